// colorwars web app: plain JavaScript, no build step, nothing loaded from elsewhere.
// The engine lives on the server; this page shows its answers. Every move the server
// returns comes with its cascade's waves, which are animated one by one.
//
// Hooks for tools that drive the page: board cells carry data-cell="INDEX"; #board carries
// data-position (the notation of the position shown), data-game (the game's id),
// data-state ("loading", "busy", "ready": a human may move, "watching": AIs play,
// "paused", "over", "replay"), data-animating and data-waves-animated (waves shown so far).
// The result screen (#result) carries data-result, the winner's seat index, once a game is won.
//
// Online games: the page at /?game=ID&token=TOKEN keeps the token in this browser
// (localStorage), takes it out of the address bar, and sends it as Authorization: Bearer on
// every request for that game; GET /api/games/ID/events (Server-Sent Events) brings the other
// players' moves at once. Settings (theme, sound, colours, speed) are remembered here too.
"use strict";

(() => {
  const CELL = 60;
  const MARGIN = 26;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const board = $("board");

  const ui = {
    options: null,
    game: null, // the last state the server sent
    shown: null, // {counts, owners} on the board now
    generation: 0, // bumps with every new game: stale loops stop
    busy: false,
    paused: false,
    skip: false,
    hint: null,
    analysis: null,
    replay: null, // {positions, moves, index} while replaying
    replayTimer: null,
    wavesAnimated: 0,
    seat: null, // an online game's seat of this browser (null: a spectator, or offline)
    events: null, // the EventSource of an online game
    pending: null, // a pushed state that came in while the page was busy
    lastMove: null, // the last move's answer, with its waves (for the result's summary)
    resultClosed: false,
    focusCell: null, // the cell keyboard focus was on when a redraw left it on the board
  };

  // ---- settings and tokens, remembered in this browser ---------------------------------
  // JSON under "colorwars.KEY" in a Web Storage area (the window's property: reading it can
  // throw where storage is off).
  const keeper = (area) => ({
    get(key, fallback) {
      try {
        const v = window[area].getItem(`colorwars.${key}`);
        return v === null ? fallback : JSON.parse(v);
      } catch (e) {
        return fallback;
      }
    },
    set(key, value) {
      try { window[area].setItem(`colorwars.${key}`, JSON.stringify(value)); } catch (e) { /* private mode */ }
    },
  });
  const store = keeper("localStorage"); // this browser's, shared by its tabs
  const tabStore = keeper("sessionStorage"); // this tab's own
  const settings = Object.assign({ theme: "system", sound: false, colours: [], seenHelp: false }, store.get("settings", {}));
  const saveSettings = () => store.set("settings", settings);
  // A seat's token, kept for each game: this browser's (localStorage, shared by its tabs),
  // and a tab's own (sessionStorage) when a link for another seat of the same game is opened
  // here: the creator trying the friend's link plays b in that tab and keeps a everywhere
  // else, rather than losing seat a's token.
  const tokens = store.get("tokens", {});
  const tabTokens = tabStore.get("tab-tokens", {});
  const tokenFor = (id) => tabTokens[id] || tokens[id] || null;
  // Bounded maps, the oldest first out; merged with what other tabs wrote since.
  function remember(key, map, id, value) {
    const all = store.get(key, {});
    delete all[id];
    all[id] = value; // the newest last
    const ids = Object.keys(all);
    while (ids.length > 200) delete all[ids.shift()];
    store.set(key, all);
    Object.assign(map, all);
  }
  function keepToken(id, token) {
    remember("tokens", tokens, id, token);
  }
  function keepTabToken(id, token) {
    if (token === null) delete tabTokens[id];
    else tabTokens[id] = token;
    tabStore.set("tab-tokens", tabTokens);
  }
  // A rematch is played with the same tokens: kept where the old game's was.
  function carryToken(from, to) {
    if (tabTokens[from]) keepTabToken(to, tabTokens[from]);
    else if (tokens[from]) keepToken(to, tokens[from]);
  }
  // The share links of the online games this browser made (the server gives them once).
  const links = store.get("links", {});
  const keepLinks = (id, value) => remember("links", links, id, value);
  // A rematch's links: the same tokens, the new game's id; swapped seats swap the letters.
  function carryLinks(from, to, swap) {
    const old = links[from];
    if (!old) return;
    const moved = {};
    for (const [who, url] of Object.entries(old)) {
      const seat = swap && (who === "a" || who === "b") ? (who === "a" ? "b" : "a") : who;
      moved[seat] = url.replace(`game=${from}`, `game=${to}`);
    }
    keepLinks(to, moved);
  }

  class ApiError extends Error {
    constructor(message, type, status) {
      super(message);
      this.type = type;
      this.status = status;
    }
  }

  async function api(method, path, body, asToken) {
    const init = { method, headers: {} };
    const game = /^\/api\/games\/([^/?]+)/.exec(path);
    const token = asToken !== undefined ? asToken : game ? tokenFor(game[1]) : null;
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      // The browser's own words ("Failed to fetch") say nothing to a player.
      throw new ApiError("the server did not answer: is colorwars serve still running? Reload the page once it is", "NoServer", 0);
    }
    let data;
    try {
      data = await response.json();
    } catch (e) {
      throw new ApiError(`the server answered ${response.status} without JSON`, "BadResponse", response.status);
    }
    if (!response.ok) throw new ApiError(data.error || response.statusText, data.type, response.status);
    return data;
  }

  // ---- small helpers -----------------------------------------------------------------
  const letter = (p) => "abcdefgh"[p];
  const colour = (p) => settings.colours[p] || ui.options.colours[p];
  const columnName = (x) => {
    let name = "";
    for (let n = x + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(97 + ((n - 1) % 26)) + name;
    return name;
  };
  const cellName = (g, i) => columnName(i % g.width) + (Math.floor(i / g.width) + 1);
  const el = (name, attrs = {}, parent = null) => {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  };
  const neighbours = (g, i) => {
    const x = i % g.width, y = Math.floor(i / g.width), out = [];
    if (y > 0) out.push(i - g.width);
    if (x > 0) out.push(i - 1);
    if (x < g.width - 1) out.push(i + 1);
    if (y < g.height - 1) out.push(i + g.width);
    return out;
  };
  const centre = (g, i) => [MARGIN + (i % g.width) * CELL + CELL / 2, MARGIN + Math.floor(i / g.width) * CELL + CELL / 2];
  const subtracts = (rules) => rules === "classic" || rules.endsWith("+subtract");
  const seatKind = (g, p) => g.seats[p];
  const isHuman = (g, p) => g.seats[p] === "human";
  const humans = (g) => g.seats.filter((s) => s === "human").length;
  // Whose turn this browser plays: any human seat offline; online, only its own seat.
  const mine = (g, p) => isHuman(g, p) && (!g.online || ui.seat === p);
  const LEVELS = { easy: "Easy", medium: "Medium", hard: "Hard", perfect: "Perfect" };
  // The rule sets as people know them; the API's name after it (records and positions use it).
  const RULES = {
    colorwars: "Color Wars",
    classic: "Classic",
    "drop3+subtract": "Color Wars start, classic bursts",
    "none+empty": "Classic start, Color Wars bursts",
  };
  const ruleLabel = (r) => RULES[r] || r;
  const seatLabel = (kind) => LEVELS[kind] || kind;

  function say(text, info = false) {
    const m = $("message");
    m.textContent = text || "";
    m.className = info ? "info" : "";
  }

  // ---- shapes: every player has a colour, a shape and a letter (colour-blind safe) ----
  function shape(p, cx, cy, r, parent, cls = "orb") {
    const fill = colour(p);
    const pts = (list) => list.map(([a, b]) => `${(cx + a * r).toFixed(2)},${(cy + b * r).toFixed(2)}`).join(" ");
    const poly = (n, rot, k = 1) =>
      pts(Array.from({ length: n }, (_, j) => {
        const t = rot + (2 * Math.PI * j) / n;
        return [k * Math.cos(t), k * Math.sin(t)];
      }));
    switch (p) {
      case 0: return el("circle", { cx, cy, r: r * 0.95, fill, class: cls }, parent);
      case 1: return el("rect", { x: cx - r * 0.82, y: cy - r * 0.82, width: r * 1.64, height: r * 1.64, fill, class: cls }, parent);
      case 2: return el("polygon", { points: poly(3, -Math.PI / 2, 1.1), fill, class: cls }, parent);
      case 3: return el("polygon", { points: poly(4, 0, 1.1), fill, class: cls }, parent);
      case 4: return el("polygon", { points: poly(3, Math.PI / 2, 1.1), fill, class: cls }, parent);
      case 5: return el("polygon", { points: poly(6, 0, 1.0), fill, class: cls }, parent);
      case 6: {
        const star = Array.from({ length: 10 }, (_, j) => {
          const t = -Math.PI / 2 + (Math.PI * j) / 5, k = j % 2 ? 0.5 : 1.15;
          return [k * Math.cos(t), k * Math.sin(t)];
        });
        return el("polygon", { points: pts(star), fill, class: cls }, parent);
      }
      default: {
        const a = 0.36, b = 1.0;
        const cross = [[-a, -b], [a, -b], [a, -a], [b, -a], [b, a], [a, a], [a, b], [-a, b], [-a, a], [-b, a], [-b, -a], [-a, -a]];
        return el("polygon", { points: pts(cross), fill, class: cls }, parent);
      }
    }
  }

  function badge(p) {
    const svg = el("svg", { viewBox: "0 0 20 20", "aria-hidden": "true", class: "badge" });
    shape(p, 10, 10, 7, svg);
    return svg;
  }

  const SPOTS = {
    1: [[0.5, 0.5]],
    2: [[0.32, 0.5], [0.68, 0.5]],
    3: [[0.5, 0.3], [0.3, 0.68], [0.7, 0.68]],
    4: [[0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]],
    5: [[0.28, 0.28], [0.72, 0.28], [0.5, 0.5], [0.28, 0.72], [0.72, 0.72]],
    6: [[0.25, 0.32], [0.5, 0.32], [0.75, 0.32], [0.25, 0.68], [0.5, 0.68], [0.75, 0.68]],
    7: [[0.25, 0.28], [0.5, 0.28], [0.75, 0.28], [0.5, 0.5], [0.25, 0.72], [0.5, 0.72], [0.75, 0.72]],
  };

  // ---- the board -----------------------------------------------------------------------
  // marks: {last, bursting: [], captured: [], clickable: bool}
  function draw(g, counts, owners, marks = {}) {
    ui.shown = { counts, owners };
    // Keyboard focus on a cell stays on that cell through the redraw (every move redraws).
    const active = document.activeElement;
    const focused = active && board.contains(active) ? active.closest("[data-cell]") : null;
    const keep = focused ? Number(focused.dataset.cell) : active === board ? ui.focusCell : null;
    const w = MARGIN + g.width * CELL + 2, h = MARGIN + g.height * CELL + 2;
    // The board's shape, for the layout to fit it in the window's height as well as its width.
    document.documentElement.style.setProperty("--board-aspect", (w / h).toFixed(4));
    const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, role: "group", "aria-label": `${g.width} by ${g.height} board` });
    for (let x = 0; x < g.width; x++) {
      el("text", { x: MARGIN + x * CELL + CELL / 2, y: MARGIN - 8, "text-anchor": "middle", class: "label" }, svg).textContent = columnName(x);
    }
    for (let y = 0; y < g.height; y++) {
      el("text", { x: MARGIN / 2, y: MARGIN + y * CELL + CELL / 2 + 5, "text-anchor": "middle", class: "label" }, svg).textContent = y + 1;
    }
    const legal = new Set(marks.clickable ? g.legal_moves : []);
    const bursting = new Set(marks.bursting || []);
    const captured = new Set(marks.captured || []);
    const values = ui.analysis && ui.analysis.position === g.position && !ui.replay ? ui.analysis : null;
    const best = values ? Math.max(...values.moves.map((m) => m.share), 1e-9) : 1;
    const byCell = new Map(values ? values.moves.map((m) => [m.cell, m]) : []);
    const exactBest = values && values.exact.solved && values.exact.best ? values.exact.best.cell : -1;
    for (let i = 0; i < counts.length; i++) {
      const x = i % g.width, y = Math.floor(i / g.width);
      const n = counts[i], owner = owners[i];
      const classes = ["cell"];
      if (legal.has(i)) classes.push("legal");
      if (marks.last === i) classes.push("last");
      if (bursting.has(i)) classes.push("bursting");
      if (captured.has(i)) classes.push("captured");
      const hinted = ui.hint && ui.hint.position === g.position && ui.hint.cell === i && !ui.replay;
      if (hinted) classes.push("hint");
      if (exactBest === i) classes.push("best");
      const cell = el("g", { class: classes.join(" "), "data-cell": i, transform: `translate(${MARGIN + x * CELL} ${MARGIN + y * CELL})` }, svg);
      const name = cellName(g, i);
      cell.setAttribute("aria-label", n ? `${name}: ${n} orb${n > 1 ? "s" : ""} of player ${letter(owner)}` : `${name}: empty`);
      // Legal cells are in the Tab order; every cell takes focus from the arrow keys (Enter
      // on an illegal one says why it is not a move).
      cell.setAttribute("tabindex", legal.has(i) ? "0" : "-1");
      if (legal.has(i)) cell.setAttribute("role", "button");
      el("rect", { class: "bg", width: CELL, height: CELL }, cell);
      if (hinted) {
        // Not the dashed "one more orb bursts" frame: a ring and a star, in the hint's green.
        el("circle", { class: "hint-ring", cx: CELL / 2, cy: CELL / 2, r: CELL * 0.43 }, cell);
        const star = Array.from({ length: 10 }, (_, j) => {
          const t = -Math.PI / 2 + (Math.PI * j) / 5, k = j % 2 ? 3 : 7;
          return `${(CELL - 10 + k * Math.cos(t)).toFixed(1)},${(10 + k * Math.sin(t)).toFixed(1)}`;
        });
        el("polygon", { class: "hint-star", points: star.join(" ") }, cell);
      }
      if (n > 0) {
        el("rect", { class: "tint", x: 1, y: 1, width: CELL - 2, height: CELL - 2, fill: colour(owner), "fill-opacity": 0.16 }, cell);
        el("text", { x: 4, y: 14, class: "tag", fill: colour(owner) }, cell).textContent = letter(owner);
        const capacity = neighbours(g, i).length - 1;
        if (n >= capacity) {
          el("rect", { class: "loaded", x: 3, y: 3, width: CELL - 6, height: CELL - 6, rx: 6, stroke: colour(owner) }, cell);
        }
        if (n <= 7) {
          const r = n <= 4 ? CELL * 0.105 : CELL * 0.085;
          for (const [dx, dy] of SPOTS[n]) shape(owner, dx * CELL, dy * CELL, r, cell);
        } else {
          el("text", { x: CELL / 2, y: CELL * 0.62, "text-anchor": "middle", class: "many", fill: colour(owner) }, cell).textContent = n;
        }
      }
      const v = byCell.get(i);
      if (v) {
        el("rect", { class: "shade", width: CELL, height: CELL, fill: "#0a7a3d", "fill-opacity": (0.08 + 0.55 * (v.share / best)).toFixed(3) }, cell);
        const rate = v.win_rate === null ? "–" : `${Math.round(v.win_rate * 100)}%`;
        el("text", { x: CELL - 4, y: CELL - 5, "text-anchor": "end", class: "value", fill: "#06331a" }, cell).textContent = rate;
      }
    }
    el("g", { class: "flyers" }, svg);
    board.replaceChildren(svg);
    if (keep !== null && keep !== undefined && keep < counts.length) {
      ui.focusCell = keep;
      svg.querySelector(`[data-cell="${keep}"]`).focus({ preventScroll: true });
    }
  }

  function show(g) {
    // The board and every hook for the state the server sent.
    const replay = ui.replay;
    if (replay) {
      const position = replay.positions[replay.index];
      const parsed = parse(position, g);
      const last = replay.index > 0 ? replay.moves[replay.index - 1].cell : undefined;
      draw(g, parsed.counts, parsed.owners, { last, clickable: false });
      board.dataset.position = position;
    } else {
      const last = g.moves.length ? g.moves[g.moves.length - 1].cell : undefined;
      draw(g, g.counts, g.owners, { last, clickable: humanMayMove(g) });
      board.dataset.position = g.position;
    }
    board.dataset.game = g.id;
    board.dataset.ply = String(g.ply);
    legend(g, ui.shown.counts, ui.shown.owners, replay ? replay.positions[replay.index] : g.position);
    moveList(g);
    status(g);
    $("position-text").value = replay ? replay.positions[replay.index] : g.position;
    replayControls(g);
    buttons(g);
    result(g);
    onlinePanel(g);
  }

  function humanMayMove(g) {
    return g.winner === null && mine(g, g.to_move) && !ui.busy && !ui.replay;
  }

  function setState(g) {
    let s;
    if (ui.replay) s = "replay";
    else if (g.winner !== null) s = "over";
    else if (ui.busy) s = "busy";
    else if (mine(g, g.to_move)) s = "ready";
    else if (isHuman(g, g.to_move)) s = "waiting"; // online: another browser's turn
    else s = ui.paused ? "paused" : "watching";
    board.dataset.state = s;
  }

  function status(g) {
    setState(g);
    const who = (p) => `player ${letter(p)} (${seatName(g, p)})`;
    let text;
    if (ui.replay) {
      const k = ui.replay.index, m = ui.replay.moves[k - 1];
      text = `Replay: after move ${k} of ${ui.replay.moves.length}` + (m ? ` (${letter(m.player)} played ${m.name})` : "");
    } else if (g.winner !== null) {
      text = seatName(g, g.winner) === "you" ? "You win!" : `Player ${letter(g.winner)} (${seatName(g, g.winner)}) wins after ${g.ply} moves.`;
    } else if (isHuman(g, g.to_move) && !mine(g, g.to_move)) {
      text = `Waiting for player ${letter(g.to_move)} to move`;
    } else if (ui.busy && !isHuman(g, g.to_move)) {
      text = `${who(g.to_move)} is thinking…`;
    } else if (!isHuman(g, g.to_move) && ui.paused) {
      text = `Paused: ${who(g.to_move)} to move.`;
    } else {
      text = `${who(g.to_move)} to move`.replace(/^p/, "P");
    }
    $("status").textContent = text;
  }

  // A seat as the page names it: "you" (this browser's only seat), "human", a difficulty
  // ("Hard"), or the AI's name.
  function seatName(g, p) {
    const kind = seatKind(g, p);
    if (kind !== "human") return seatLabel(kind);
    if (g.online) return ui.seat === p ? "you" : ui.seat === null || ui.seat === undefined ? "human" : "friend";
    return humans(g) === 1 ? "you" : "human";
  }

  // The players, their orbs on the board shown (a replayed position's in a replay).
  function legend(g, counts, owners, position) {
    const box = $("legend");
    box.replaceChildren();
    const fields = position.split(" ");
    const toMove = "abcdefgh".indexOf(fields[4]);
    for (let p = 0; p < g.players; p++) {
      const item = document.createElement("span");
      item.className = "seat";
      item.dataset.seat = String(p);
      if (g.winner === null || ui.replay) { if (p === toMove) item.classList.add("to-move"); }
      const orbs = counts.reduce((sum, n, i) => sum + (owners[i] === p ? n : 0), 0);
      item.dataset.orbs = String(orbs);
      const out = fields[6];
      if (out !== "-" && out.includes(letter(p))) item.classList.add("out");
      item.appendChild(badge(p));
      const label = document.createElement("span");
      label.textContent = `${letter(p)} ${seatName(g, p)} · ${orbs} orb${orbs === 1 ? "" : "s"}`;
      item.appendChild(label);
      box.appendChild(item);
    }
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = "dashed frame: one more orb bursts the cell · green ring: the hint";
    box.appendChild(note);
  }

  function moveList(g) {
    const list = $("moves");
    list.replaceChildren();
    const current = ui.replay ? ui.replay.index : g.moves.length;
    g.moves.forEach((m, k) => {
      const li = document.createElement("li");
      li.dataset.moveCell = String(m.cell);
      li.dataset.player = String(m.player);
      li.appendChild(badge(m.player));
      li.append(` ${letter(m.player)} ${m.name}`);
      if (k + 1 === current) li.classList.add("current");
      li.addEventListener("click", () => enterReplay(k + 1));
      list.appendChild(li);
    });
    const last = list.lastElementChild;
    if (last && !ui.replay) last.scrollIntoView({ block: "nearest" });
  }

  function buttons(g) {
    const over = g.winner !== null;
    const hasHuman = humans(g) > 0;
    $("undo").disabled = ui.busy || ui.replay !== null || undoCount(g) === 0;
    $("hint").disabled = ui.busy || over || ui.replay !== null || (g.online && !mine(g, g.to_move));
    $("analyse").disabled = over || ui.replay !== null;
    // A record starts from the empty board: a game from a pasted position has none.
    $("save-record").disabled = g.first === null;
    $("save-record").title = g.first === null
      ? "A game from a pasted position has no record (a record starts from the empty board): copy the position instead"
      : "Download the game as a record (.cwr)";
    $("pause").hidden = hasHuman || over;
    $("pause").textContent = ui.paused ? "Resume" : "Pause";
  }

  // Position notation, field 4: rows from the top separated by "/", each cell "." or a count
  // and an owner letter (see the README's "Position notation").
  function parse(position, g) {
    const rows = position.split(" ")[3].split("/");
    const counts = [], owners = [];
    for (const row of rows) {
      for (const m of row.matchAll(/\.|(\d+)([a-h])/g)) {
        if (m[0] === ".") { counts.push(0); owners.push(-1); }
        else { counts.push(Number(m[1])); owners.push("abcdefgh".indexOf(m[2])); }
      }
    }
    if (counts.length !== g.width * g.height) throw new Error("cannot read the position");
    return { counts, owners };
  }

  // ---- animation ----------------------------------------------------------------------
  const speed = () => Number($("speed").value);

  function wait(ms) {
    return new Promise((resolve) => {
      if (ui.skip || ms <= 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); document.removeEventListener("colorwars-skip", done); resolve(); }
      document.addEventListener("colorwars-skip", done);
    });
  }

  // Orbs fly from each bursting cell to its neighbours, the cell empties, then the board
  // after the wave (from the engine) is drawn: captured cells change colour.
  async function animate(before, g, result) {
    const waves = result.waves;
    const ms = speed();
    if (!waves.length || ms === 0 || ui.skip) return;
    board.dataset.animating = "true";
    const mover = result.move.player;
    const cell = result.move.cell;
    let counts = before.counts.slice(), owners = before.owners.slice();
    // RULES.md §2: a move that bursts added exactly one orb (a three-orb drop never bursts).
    counts[cell] += 1;
    owners[cell] = mover;
    draw(g, counts, owners, { last: cell, bursting: [cell] });
    await wait(ms * 0.6);
    for (const [k, wave] of waves.entries()) {
      if (ui.skip) break;
      $("status").textContent = `Player ${letter(mover)} plays ${result.move.name}: wave ${k + 1} of ${waves.length}`;
      const emptied = counts.slice();
      for (const b of wave.bursts) {
        emptied[b] = subtracts(g.rules) ? Math.max(0, counts[b] - neighbours(g, b).length) : 0;
      }
      draw(g, emptied, owners, { last: cell, bursting: wave.bursts });
      const flyers = board.querySelector(".flyers");
      const r = CELL * 0.1;
      const flights = [];
      for (const b of wave.bursts) {
        const [x0, y0] = centre(g, b);
        for (const n of neighbours(g, b)) {
          const [x1, y1] = centre(g, n);
          const orb = el("g", { class: "flyer" }, flyers);
          shape(mover, x0, y0, r, orb);
          if (orb.animate) {
            const flight = orb.animate(
              [{ transform: "translate(0px, 0px)" }, { transform: `translate(${x1 - x0}px, ${y1 - y0}px)` }],
              { duration: ms, easing: "ease-in-out", fill: "forwards" },
            );
            flights.push(flight);
          }
        }
      }
      await wait(ms);
      flights.forEach((f) => f.cancel());
      const captured = wave.owners.map((o, i) => (o !== owners[i] && o >= 0 && owners[i] >= 0 ? i : -1)).filter((i) => i >= 0);
      counts = wave.counts.slice();
      owners = wave.owners.slice();
      draw(g, counts, owners, { last: cell, captured });
      ui.wavesAnimated += 1;
      board.dataset.wavesAnimated = String(ui.wavesAnimated);
      await wait(ms * 0.4);
    }
    board.dataset.animating = "false";
  }

  // A move's answer from the server: animate its waves, then show the new state.
  async function showMove(result) {
    const before = ui.shown;
    const previous = ui.game;
    ui.hint = null;
    ui.analysis = null;
    $("analysis-result").textContent = "";
    sound(result.waves.length ? "burst" : "place");
    result.before = before ? before.owners.slice() : null;
    try {
      if (before && previous && previous.id === result.id) await animate(before, result, result);
    } finally {
      board.dataset.animating = "false";
      ui.skip = false;
    }
    ui.game = result;
    ui.lastMove = result;
    if (result.winner !== null) sound("win");
  }

  // ---- playing --------------------------------------------------------------------------
  async function busy(task) {
    ui.busy = true;
    if (ui.game) show(ui.game);
    try {
      return await task();
    } catch (e) {
      say(e.message);
      return undefined;
    } finally {
      ui.busy = false;
      if (ui.game) show(ui.game);
      // A state pushed while busy: shown now (dropped if it is the one just shown).
      const pushed = ui.pending;
      ui.pending = null;
      if (pushed) setTimeout(() => receive(pushed), 0);
    }
  }

  async function playCell(i) {
    const g = ui.game;
    if (!g || !humanMayMove(g)) return;
    if (!g.legal_moves.includes(i)) {
      // The server says why (the rules' reason); nothing is played.
      try {
        const why = await api("GET", `/api/games/${g.id}/check-move?cell=${i}`);
        if (!why.legal) say(`${cellName(g, i)}: ${why.reason.replace(/^illegal move \S+ \(cell \d+\): /, "")}.`);
      } catch (e) {
        say(e.message);
      }
      return;
    }
    say("");
    const generation = ui.generation;
    await busy(async () => {
      const result = await api("POST", `/api/games/${g.id}/moves`, { cell: i, ply: g.ply });
      if (generation === ui.generation) await showMove(result);
    });
    await aiTurns();
  }

  // While an AI seat is to move (and nobody paused), ask the server for its moves.
  async function aiTurns() {
    const generation = ui.generation;
    while (ui.game && generation === ui.generation && !ui.replay) {
      const g = ui.game;
      if (g.winner !== null || isHuman(g, g.to_move) || ui.paused || ui.busy) return;
      // Online, the browser of the human who moved last (before any, the creator's) asks for
      // the AI seats' moves, so a game goes on without the creator; the others see them pushed.
      if (g.online && ui.seat !== aiAsker(g)) return;
      const ok = await busy(async () => {
        const result = await api("POST", `/api/games/${g.id}/ai-move`, { ply: g.ply });
        if (generation === ui.generation) await showMove(result);
        return true;
      });
      if (!ok) return;
      if (humans(ui.game) === 0) await wait(Math.min(400, speed()));
    }
  }

  function aiAsker(g) {
    for (let k = g.moves.length - 1; k >= 0; k--) {
      if (isHuman(g, g.moves[k].player)) return g.moves[k].player;
    }
    return g.creator;
  }

  function setGame(g) {
    ui.generation += 1;
    ui.game = g;
    ui.hint = null;
    ui.analysis = null;
    ui.replay = null;
    ui.paused = false;
    ui.lastMove = null;
    ui.resultClosed = false;
    ui.pending = null;
    if (g.online) {
      if (g.seat !== undefined) ui.seat = g.seat;
    } else {
      ui.seat = null;
    }
    stopReplayTimer();
    $("analysis-result").textContent = "";
    store.set("current", g.id);
    revealBoard();
    listen(g);
    show(g);
    colourPickers();
    aiTurns();
  }

  // On a phone the side panels are below the board: a game started there scrolls back to it.
  function revealBoard() {
    const top = $("play").getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.5) $("play").scrollIntoView({ block: "start" });
  }

  async function newGame(body) {
    say("");
    const g = await busy(() => api("POST", "/api/games", body));
    if (g) {
      if (g.token) keepToken(g.id, g.token);
      if (g.links) keepLinks(g.id, g.links);
      ui.setup = { ...body };
      delete ui.setup.position;
      delete ui.setup.record;
      setGame(g);
      refreshRecent();
    }
    return g;
  }

  // ---- online: the push channel ------------------------------------------------------------
  // Every change of an online game comes as an event with the whole state; a browser that
  // reconnects (EventSource does it by itself) gets the state now first.
  function listen(g) {
    if (ui.events && ui.events.gameId === g.id) return;
    if (ui.events) ui.events.close();
    ui.events = null;
    if (!g.online || typeof EventSource === "undefined") return;
    const source = new EventSource(`/api/games/${g.id}/events`);
    source.gameId = g.id;
    for (const kind of ["state", "move", "undo"]) {
      source.addEventListener(kind, (event) => receive(JSON.parse(event.data)));
    }
    source.addEventListener("rematch", (event) => {
      const data = JSON.parse(event.data);
      if (!ui.game || ui.game.id !== data.id || ui.rematching === data.id) return; // its own
      carryToken(data.id, data.rematch);
      carryLinks(data.id, data.rematch, data.swap);
      say("A rematch: the new game is on.", true);
      openGame(data.rematch);
    });
    source.addEventListener("deleted", (event) => {
      source.close();
      const why = JSON.parse(event.data).why;
      say(why === "forgotten"
        ? "The server no longer keeps this game: it keeps a bounded number of online games."
        : "This game was deleted by its creator.");
    });
    source.addEventListener("open", () => { $("online-seat").classList.remove("offline"); });
    source.addEventListener("error", () => { $("online-seat").classList.add("offline"); });
    ui.events = source;
  }

  let receiving = Promise.resolve();
  function receive(state) {
    receiving = receiving.then(() => take(state)).catch((e) => say(e.message));
    return receiving;
  }

  async function take(state) {
    const g = ui.game;
    if (!g || state.id !== g.id) return;
    if (ui.busy) { ui.pending = state; return; }
    if (state.ply === g.ply && state.position === g.position) return; // already shown
    // A move pushed before moves this page has shown since (held while it was busy, e.g. its
    // own move before the AI's answer): from the past, it would show a stale board.
    if (state.move && state.ply <= g.ply && state.moves.every((m, k) => g.moves[k].cell === m.cell)) return;
    if (state.move && state.ply === g.ply + 1 && !ui.replay) {
      await busy(() => showMove(state));
    } else {
      ui.game = Object.assign({}, state);
      ui.hint = null;
      ui.analysis = null;
      show(ui.game);
    }
    aiTurns();
  }

  // Undo takes back the last human move and every AI move after it; with no human seat, one.
  function undoCount(g) {
    const moves = g.moves;
    if (!moves.length) return 0;
    // Online, a seat takes back only its own last move, before anyone has answered it.
    if (g.online) return moves[moves.length - 1].player === ui.seat ? 1 : 0;
    if (humans(g) === 0) return 1;
    let k = 0;
    while (k < moves.length && !isHuman(g, moves[moves.length - 1 - k].player)) k++;
    return k < moves.length ? k + 1 : 0;
  }

  async function undo() {
    const g = ui.game;
    const n = undoCount(g);
    if (!n) return;
    if (humans(g) === 0) ui.paused = true;
    const result = await busy(() => api("POST", `/api/games/${g.id}/undo`, { plies: n }));
    if (result) {
      ui.game = result;
      ui.hint = null;
      ui.analysis = null;
      show(result);
    }
  }

  async function hint() {
    const g = ui.game;
    const result = await busy(() => api("POST", `/api/games/${g.id}/hint`));
    if (result && ui.game.position === result.position) {
      ui.hint = result;
      const who = result.ai === "proof" ? "proven" : `${result.ai}, ${result.seconds} s`;
      say(`Hint: ${result.name} (${who}): ${result.why}.`, true);
      show(ui.game);
    }
  }

  // ---- analysis -----------------------------------------------------------------------------
  async function analyse() {
    const g = ui.game;
    const input = $("analysis-simulations");
    const simulations = Number(input.value);
    const most = ui.options.limits.simulations;
    say(""); // an earlier analysis's error is not this one's
    if (input.validity.badInput || !input.value.trim() || !Number.isInteger(simulations) || simulations < 1 || simulations > most) {
      $("analysis-result").textContent = "";
      say(`Simulations: a whole number from 1 to ${most.toLocaleString()}, not ${input.validity.badInput || !input.value.trim() ? "that" : input.value}.`);
      input.focus();
      return;
    }
    $("analysis-result").textContent = "Searching…";
    const result = await busy(() => api("POST", `/api/games/${g.id}/analysis`, { simulations }));
    if (!result) { $("analysis-result").textContent = ""; return; }
    if (ui.game.position !== result.position) return;
    ui.analysis = result;
    const box = $("analysis-result");
    box.replaceChildren();
    const head = document.createElement("div");
    head.textContent = `MCTS, ${result.simulations.toLocaleString()} simulations in ${result.seconds} s: shade = share of simulations, number = win rate of player ${letter(result.to_move)}.`;
    box.appendChild(head);
    const top = [...result.moves].sort((a, b) => b.visits - a.visits).slice(0, 5);
    const list = document.createElement("ol");
    for (const m of top) {
      const li = document.createElement("li");
      const rate = m.win_rate === null ? "not tried" : `wins ${(m.win_rate * 100).toFixed(0)}%`;
      li.textContent = `${m.name}: ${(m.share * 100).toFixed(1)}% of simulations, ${rate}`;
      list.appendChild(li);
    }
    box.appendChild(list);
    const exact = document.createElement("div");
    exact.className = "exact";
    exact.textContent = exactText(result.exact, g);
    box.appendChild(exact);
    const note = document.createElement("div");
    note.className = "small";
    const top1 = top.length ? top[0].name : "";
    const proven = result.exact.solved && result.exact.best ? result.exact.best.name : "";
    note.textContent = proven && top1 && proven !== top1
      ? `The search's favourite ${top1} is not the proven move ${proven}: MCTS estimates from random playouts, the proof is exact; trust the proof. The hint plays the proof where there is one, else alpha-beta with the learned evaluation at about a second, which can differ from MCTS too.`
      : "The hint plays the proven move where there is one, else the choice of alpha-beta with the learned evaluation at about a second; MCTS's shading is an estimate and can differ from both.";
    box.appendChild(note);
    show(ui.game);
  }

  function exactText(exact, g) {
    if (!exact.solved) return `Exact result: not proven (${exact.reason}).`;
    const moves = Object.entries(exact.moves || {});
    const wins = moves.filter(([, m]) => m.winner === g.to_move).map(([c]) => cellName(g, Number(c)));
    const loses = moves.filter(([, m]) => m.winner !== g.to_move).length;
    const best = exact.best ? `; best move ${exact.best.name}` : "";
    const line = exact.line && exact.line.length > 1 ? ` (line ${exact.line.join(" ")})` : "";
    const settled = exact.complete ? "every move settled" : `${moves.length} of ${g.legal_moves.length} moves settled`;
    const winning = wins.length ? `; winning moves: ${wins.join(", ")}` : "";
    return `Exact: ${exact.reason}${best}${line}. ${settled}: ${wins.length} win, ${loses} lose${winning}.`;
  }

  // ---- the result screen ------------------------------------------------------------------------
  function result(g) {
    const box = $("result");
    const over = g.winner !== null && !ui.replay;
    const appears = box.hidden && over && !ui.resultClosed;
    box.hidden = !over || ui.resultClosed;
    // A keyboard user is taken to the result's buttons, not left on a board that is over.
    if (appears) setTimeout(() => { if (!box.hidden) $("rematch").focus({ preventScroll: true }); }, 0);
    board.parentElement.classList.toggle("finished", over && !ui.resultClosed);
    if (!over) { box.dataset.result = ""; return; }
    box.dataset.result = String(g.winner);
    const name = seatName(g, g.winner);
    $("result-title").replaceChildren(badge(g.winner), document.createTextNode(
      name === "you" ? " You win!" : ` Player ${letter(g.winner)} (${name}) wins`));
    $("result-summary").textContent = summary(g);
    $("rematch-swap").hidden = g.players !== 2;
  }

  // One line on the game: its length, and the cascade that decided it.
  function summary(g) {
    const last = g.moves[g.moves.length - 1];
    let text = `${g.ply} moves.`;
    const m = ui.lastMove && ui.lastMove.id === g.id && ui.lastMove.ply === g.ply ? ui.lastMove : null;
    if (last && m && m.waves.length) {
      const bursts = m.waves.reduce((n, w) => n + w.bursts.length, 0);
      const before = m.before || [];
      const taken = g.owners.filter((o, i) => o === g.winner && before[i] >= 0 && before[i] !== g.winner).length;
      const waves = `${m.waves.length} wave${m.waves.length > 1 ? "s" : ""}`;
      const cells = taken ? `, took ${taken} cell${taken > 1 ? "s" : ""}` : "";
      text += ` The decisive cascade: ${letter(last.player)} on ${last.name} set off ${waves} of bursts (${bursts} in all)${cells} and left no opponent an orb.`;
    } else if (last) {
      text += ` The last move: ${letter(last.player)} on ${last.name}.`;
    }
    return text;
  }

  // The same game again from its start (seats swapped if asked). Online, every browser
  // follows (the server's "rematch" event), each player keeping their own token.
  async function rematch(swap) {
    const g = ui.game;
    ui.rematching = g.id; // its "rematch" event is this browser's own
    const next = await busy(async () => {
      const made = await api("POST", `/api/games/${g.id}/rematch`, { swap });
      carryToken(g.id, made.id);
      carryLinks(g.id, made.id, swap && g.players === 2);
      return made;
    });
    ui.rematching = null;
    if (next) {
      setGame(next);
      refreshRecent();
    }
  }

  // ---- the online panel -------------------------------------------------------------------------
  function onlinePanel(g) {
    const panel = $("online");
    panel.hidden = !g.online;
    if (!g.online) return;
    $("online-seat").textContent = ui.seat === null || ui.seat === undefined
      ? "You are watching this game."
      : `You play ${letter(ui.seat)}. Moves arrive here as soon as they are made.`;
    // The links this browser was given when it made the game (kept across reloads).
    const shared = links[g.id] || null;
    const box = $("online-links");
    if (!shared) { box.replaceChildren(); delete box.dataset.game; return; }
    if (box.dataset.game === g.id) return;
    box.dataset.game = g.id;
    box.replaceChildren();
    for (const [who, url] of Object.entries(shared)) {
      const row = document.createElement("div");
      row.className = "row link";
      const label = document.createElement("span");
      label.textContent = who === "spectator" ? "To watch:" : `For player ${who}:`;
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = url;
      input.dataset.link = who;
      input.setAttribute("aria-label", label.textContent);
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = "Copy";
      copy.addEventListener("click", async () => {
        try { await navigator.clipboard.writeText(url); say("Link copied.", true); } catch (e) { input.select(); }
      });
      row.append(label, input, copy);
      box.appendChild(row);
    }
  }

  // ---- sound: synthesised with Web Audio, off until turned on ---------------------------------
  let audio = null;
  function sound(kind) {
    if (!settings.sound) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const t = audio.currentTime;
      const tone = (freq, start, length, type = "sine", gain = 0.12) => {
        const osc = audio.createOscillator(), amp = audio.createGain();
        osc.type = type;
        osc.frequency.setValueAtTime(freq, t + start);
        amp.gain.setValueAtTime(gain, t + start);
        amp.gain.exponentialRampToValueAtTime(0.0001, t + start + length);
        osc.connect(amp).connect(audio.destination);
        osc.start(t + start);
        osc.stop(t + start + length + 0.02);
      };
      if (kind === "place") tone(520, 0, 0.08);
      if (kind === "burst") { tone(180, 0, 0.18, "triangle", 0.18); tone(90, 0.02, 0.22, "sawtooth", 0.06); }
      if (kind === "win") [523, 659, 784, 1046].forEach((f, k) => tone(f, k * 0.12, 0.25, "sine", 0.1));
    } catch (e) { /* no audio here */ }
  }

  // ---- theme, colours, views --------------------------------------------------------------------
  function applyTheme() {
    document.documentElement.dataset.theme = settings.theme;
    $("theme").textContent = `Theme: ${settings.theme}`;
    $("sound").textContent = `Sound: ${settings.sound ? "on" : "off"}`;
    $("sound").setAttribute("aria-pressed", String(settings.sound));
  }

  // sRGB to CIE Lab (D65), for the colour distance; WCAG's relative luminance for contrast.
  function rgb(hex) {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => v / 255);
  }
  const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  function luminance(hex) {
    const [r, g, b] = rgb(hex).map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function contrast(a, b) {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  }
  function lab(hex) {
    const [r, g, b] = rgb(hex).map(linear);
    const xyz = [
      (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
      0.2126 * r + 0.7152 * g + 0.0722 * b,
      (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    ].map((v) => (v > 0.008856 ? Math.cbrt(v) : 7.787 * v + 16 / 116));
    return [116 * xyz[1] - 16, 500 * (xyz[0] - xyz[1]), 200 * (xyz[1] - xyz[2])];
  }
  const distance = (a, b) => Math.hypot(...lab(a).map((v, k) => v - lab(b)[k]));
  // The thresholds: a colour distance (CIE76 ΔE) of at least 20 between any two players, and a
  // contrast of at least 2:1 against the board's cells in both themes (the orbs also have a
  // dark outline, a shape and a letter).
  const MIN_DISTANCE = 20, MIN_CONTRAST = 2, BACKGROUNDS = { light: "#fbfbfc", dark: "#232a35" };

  // Why a palette is refused, or null when every colour can be told apart.
  function paletteProblem(colours, players) {
    for (let p = 0; p < players; p++) {
      for (const [theme, bg] of Object.entries(BACKGROUNDS)) {
        const c = contrast(colours[p], bg);
        if (c < MIN_CONTRAST) return `${letter(p)}'s colour ${colours[p]} is too faint on the ${theme} board (contrast ${c.toFixed(2)}:1, at least ${MIN_CONTRAST}:1)`;
      }
      for (let q = 0; q < p; q++) {
        const d = distance(colours[p], colours[q]);
        if (d < MIN_DISTANCE) return `${letter(q)} and ${letter(p)} are too close to tell apart (colour distance ${d.toFixed(1)}, at least ${MIN_DISTANCE})`;
      }
    }
    return null;
  }

  function colourPickers() {
    const box = $("colours");
    box.replaceChildren();
    const n = ui.game ? ui.game.players : 2;
    for (let p = 0; p < n; p++) {
      const row = document.createElement("label");
      row.className = "seat-row";
      row.appendChild(badge(p));
      row.append(` ${letter(p)} `);
      const input = document.createElement("input");
      input.type = "color";
      input.id = `colour-${p}`;
      input.value = colour(p);
      input.setAttribute("aria-label", `colour of player ${letter(p)}`);
      input.addEventListener("change", () => setColour(p, input.value));
      row.appendChild(input);
      box.appendChild(row);
    }
  }

  function setColour(p, value) {
    const colours = ui.options.colours.map((c, k) => settings.colours[k] || c);
    colours[p] = value.toLowerCase();
    const problem = paletteProblem(colours, ui.game ? ui.game.players : 2);
    const message = $("colour-message");
    if (problem) {
      message.textContent = `Not used: ${problem}.`;
      $(`colour-${p}`).value = colour(p);
      return;
    }
    message.textContent = "";
    settings.colours = colours;
    saveSettings();
    if (ui.game) show(ui.game);
    colourPickers();
  }

  function setView(study) {
    document.body.classList.toggle("view-study", study);
    document.body.classList.toggle("view-play", !study);
    $("view-study").setAttribute("aria-pressed", String(study));
    $("view-study").textContent = study ? "Play" : "Study";
  }

  // ---- recent games --------------------------------------------------------------------------
  async function refreshRecent() {
    let list;
    try { list = (await api("GET", "/api/games")).games; } catch (e) { return; }
    const box = $("recent");
    box.replaceChildren();
    for (const g of list) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.dataset.game = g.id;
      const state = g.winner === null ? `move ${g.ply}` : `${letter(g.winner)} won`;
      button.textContent = `${g.width}×${g.height} ${RULES[g.rules] || g.rules}, ${g.seats.map(seatLabel).join(" v ")}, ${state}${g.online ? ", online" : ""}`;
      button.addEventListener("click", () => openGame(g.id));
      li.appendChild(button);
      box.appendChild(li);
    }
  }

  async function openGame(id) {
    const g = await busy(() => api("GET", `/api/games/${id}`));
    if (g) setGame(g);
    return g;
  }

  // ---- replay -------------------------------------------------------------------------------
  function replayControls(g) {
    const slider = $("replay");
    slider.max = String(g.moves.length);
    slider.value = String(ui.replay ? ui.replay.index : g.moves.length);
    $("replay-label").textContent = ui.replay
      ? `After move ${ui.replay.index} of ${g.moves.length}`
      : `Live: after move ${g.moves.length}`;
    $("replay-live").disabled = !ui.replay;
    $("replay-resume").disabled = !ui.replay || ui.replay.index === g.moves.length || ui.busy;
    $("replay-play").textContent = ui.replayTimer ? "Stop" : "Play";
  }

  // The history comes in pages (a long game's is megabytes): fetch them all, in order.
  async function fetchHistory(id) {
    const positions = [], moves = [];
    for (let start = 0; start !== null;) {
      const page = await api("GET", `/api/games/${id}/history?start=${start}`);
      positions.push(...page.positions);
      moves.push(...page.moves);
      start = page.next;
    }
    return { positions, moves };
  }

  async function enterReplay(index) {
    const g = ui.game;
    if (!g || ui.busy) return;
    if (!ui.replay || ui.replay.id !== g.id || ui.replay.ply !== g.ply) {
      const history = await busy(() => fetchHistory(g.id));
      if (!history) return;
      ui.replay = { id: g.id, ply: g.ply, positions: history.positions, moves: history.moves, index: 0 };
    }
    ui.replay.index = Math.max(0, Math.min(index, ui.replay.moves.length));
    show(g);
  }

  function leaveReplay() {
    stopReplayTimer();
    ui.replay = null;
    if (ui.game) show(ui.game);
    aiTurns();
  }

  function stopReplayTimer() {
    if (ui.replayTimer) clearInterval(ui.replayTimer);
    ui.replayTimer = null;
  }

  async function resumeFromReplay() {
    const g = ui.game;
    if (!ui.replay) return;
    const n = g.moves.length - ui.replay.index;
    stopReplayTimer();
    ui.replay = null;
    if (n > 0) {
      ui.paused = humans(g) === 0;
      const result = await busy(() => api("POST", `/api/games/${g.id}/undo`, { plies: n }));
      if (result) ui.game = result;
    }
    show(ui.game);
    aiTurns();
  }

  // ---- new game form ----------------------------------------------------------------------
  function fillForm(o) {
    const boardSelect = $("ng-board");
    for (const [w, h] of o.board_presets) boardSelect.add(new Option(`${w} × ${h}`, `${w}x${h}`));
    boardSelect.add(new Option("custom…", "custom"));
    for (const r of o.rules) {
      const option = new Option(ruleLabel(r), r);
      option.title = `"${r}" in the API, records and positions`;
      $("ng-rules").add(option);
    }
    for (let n = o.players[0]; n <= o.players[1]; n++) $("ng-players").add(new Option(String(n), String(n)));
    for (const id of ["ng-width", "ng-height"]) {
      $(id).min = String(o.sides[0]);
      $(id).max = String(o.sides[1]);
    }
    $("analysis-simulations").max = String(o.limits.simulations);
    $("analysis-simulations").value = String(o.analysis_default);
    boardSelect.addEventListener("change", () => { $("ng-custom").hidden = boardSelect.value !== "custom"; seatRows(); });
    $("ng-players").addEventListener("change", seatRows);
    $("ng-rules").addEventListener("change", seatRows);
    for (const id of ["ng-width", "ng-height"]) $(id).addEventListener("change", seatRows);
    // Online: the other seats are a friend's by default.
    $("ng-online").addEventListener("change", () => {
      if (!$("ng-online").checked) return;
      const kinds = document.querySelectorAll("#ng-seats .seat-kind");
      if (kinds.length === 2 && kinds[0].value === "human") { kinds[1].value = "human"; kinds[1].dispatchEvent(new Event("change")); }
    });
    seatRows();
  }

  function seatRows() {
    const n = Number($("ng-players").value);
    const first = $("ng-first");
    const keep = first.value;
    first.replaceChildren();
    for (let p = 0; p < n; p++) first.add(new Option(letter(p), letter(p)));
    if (keep && "abcdefgh".indexOf(keep) < n) first.value = keep;
    const box = $("ng-seats");
    const old = [...box.querySelectorAll(".seat-row")].map(readSeat);
    box.replaceChildren();
    for (let p = 0; p < n; p++) {
      const row = document.createElement("div");
      row.className = "seat-row";
      row.appendChild(badge(p));
      const label = document.createElement("span");
      label.textContent = letter(p);
      row.appendChild(label);
      const kind = document.createElement("select");
      kind.className = "seat-kind";
      kind.setAttribute("aria-label", `seat ${letter(p)}`);
      const [bw, bh] = boardSize();
      const solved = n === 2 && ui.options.perfect_boards.includes(`${bw}x${bh} ${$("ng-rules").value}`);
      // Zero, the shipped network's search: two players, its networks' rules, sides up to theirs.
      const zeroFits = n === 2 && Math.max(bw, bh) <= ui.options.limits.zero_side
        && ui.options.zero_rules.includes($("ng-rules").value);
      // Hard is the strongest at a second for the game: Zero where it beat the others there.
      const hz = ui.options.hard_zero;
      const hardZero = hz && n === 2 && Math.max(bw, bh) <= hz.side && hz.rules.includes($("ng-rules").value);
      for (const k of ui.options.seats) {
        const names = { mcts: "MCTS", alphabeta: "alpha-beta", human: "human", zero: "Zero (network)" };
        const level = k === "hard" && hardZero ? hz.player : ui.options.difficulties[k];
        const option = new Option(level ? `${LEVELS[k]} (${level})` : names[k] || k, k);
        if (k === "alphabeta" && n !== 2) { option.disabled = true; option.title = "alpha-beta plays two-player games only"; }
        if (k === "perfect" && !solved) { option.disabled = true; option.title = "only on the boards the package has solved"; }
        if (k === "zero" && !zeroFits) {
          option.disabled = true;
          option.title = `two players, ${ui.options.zero_rules.join(" or ")} rules, sides up to ${ui.options.limits.zero_side}`;
        }
        // A disabled option's title is not shown by every browser: the reason is in its text.
        if (option.disabled) option.text += ` — ${k === "alphabeta" ? "two players only" : k === "perfect" ? "solved boards only" : "not this game"}`;
        kind.add(option);
      }
      const budget = document.createElement("input");
      budget.type = "number";
      budget.className = "seat-budget";
      budget.min = "1";
      row.append(kind, budget);
      // The server's default budgets ("mcts:2000", "alphabeta:4"): about a second at most.
      const defaults = Object.fromEntries(ui.options.ai_defaults.filter((n) => n.includes(":")).map((n) => n.split(":")));
      const sync = () => {
        const k = kind.value;
        budget.hidden = !(k in defaults);
        const searches = k === "mcts" || k === "zero";
        const limits = ui.options.limits;
        budget.max = String(k === "zero" ? limits.zero_simulations : k === "mcts" ? limits.simulations : limits.depth);
        budget.title = searches ? "simulations" : "depth";
        budget.setAttribute("aria-label", `${budget.title} for seat ${letter(p)}`);
        if (!budget.value || budget.dataset.kind !== k) budget.value = defaults[k] || "";
        budget.dataset.kind = k;
      };
      kind.addEventListener("change", sync);
      const previous = old[p] || (p === 0 ? "human" : ui.options.default_seats[1]);
      const [k, arg] = previous.split(":");
      kind.value = (k === "alphabeta" && n !== 2) || (k === "perfect" && !solved) || (k === "zero" && !zeroFits) ? "hard" : k;
      sync();
      if (arg && kind.value === k) budget.value = arg;
      box.appendChild(row);
    }
  }

  function readSeat(row) {
    const k = row.querySelector(".seat-kind").value;
    const b = row.querySelector(".seat-budget").value;
    return k === "mcts" || k === "alphabeta" || k === "zero" ? `${k}:${b}` : k;
  }

  function boardSize() {
    const choice = $("ng-board").value;
    return (choice === "custom" ? [$("ng-width").value, $("ng-height").value] : choice.split("x")).map(Number);
  }

  function formBody(watch) {
    const [w, h] = boardSize();
    const seats = [...document.querySelectorAll("#ng-seats .seat-row")].map(readSeat);
    const body = {
      width: w,
      height: h,
      rules: $("ng-rules").value,
      players: Number($("ng-players").value),
      first: $("ng-first").value,
      seats: watch ? seats.map((s, p) => (s === "human" ? (p % 2 ? "easy" : "medium") : s)) : seats,
    };
    if ($("ng-online").checked && !watch) body.online = true;
    return body;
  }

  // ---- files and clipboard ----------------------------------------------------------------
  async function copyPosition() {
    const text = $("position-text").value;
    try {
      await navigator.clipboard.writeText(text);
      say("Position copied.", true);
    } catch (e) {
      $("position-text").select();
      document.execCommand("copy");
      say("Position selected: copy it with Ctrl-C if it did not copy.", true);
    }
  }

  async function saveRecord() {
    const g = ui.game;
    const result = await busy(() => api("GET", `/api/games/${g.id}/record`));
    if (!result) return;
    const url = URL.createObjectURL(new Blob([result.record], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = result.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    say(`Saved ${result.filename}.`, true);
  }

  async function loadRecord(file) {
    const text = await file.text();
    const players = /^\s*players:\s*(\d+)/m.exec(text);
    const n = players ? Number(players[1]) : 2;
    const seats = Array.from({ length: Math.min(Math.max(n, 2), 8) }, () => "human");
    const g = await newGame({ record: text, seats });
    if (g) {
      say(`Loaded ${file.name}: ${g.moves.length} moves. Every seat is human; replay it with the slider.`, true);
      if (g.moves.length) await enterReplay(0);
    }
  }

  async function pastePosition() {
    const text = $("position-text").value.trim();
    const n = Number(text.split(/\s+/)[2]);
    const current = ui.game ? ui.game.seats : [];
    const seats = current.length === n ? current : Array.from({ length: n || 2 }, (_, p) => (p === 0 ? "human" : "greedy"));
    const body = { position: text, seats };
    const g = await newGame(body);
    if (g) say("Playing on from the pasted position.", true);
  }

  // ---- wiring -----------------------------------------------------------------------------
  function wire() {
    board.addEventListener("click", (event) => {
      const target = event.target.closest("[data-cell]");
      if (target) playCell(Number(target.dataset.cell));
    });
    board.addEventListener("keydown", (event) => {
      const target = event.target.closest("[data-cell]");
      if (target && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        playCell(Number(target.dataset.cell));
        return;
      }
      // The arrow keys move between cells (Tab goes through the legal ones only).
      const step = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[event.key];
      const g = ui.game;
      if (!step || !g || !target) return;
      event.preventDefault();
      const i = Number(target.dataset.cell);
      const x = Math.min(g.width - 1, Math.max(0, (i % g.width) + step[0]));
      const y = Math.min(g.height - 1, Math.max(0, Math.floor(i / g.width) + step[1]));
      const next = board.querySelector(`[data-cell="${y * g.width + x}"]`);
      if (next) next.focus();
    });
    $("undo").addEventListener("click", undo);
    $("hint").addEventListener("click", hint);
    $("skip").addEventListener("click", () => {
      // Only a running animation: an idle Skip would otherwise skip the next move's.
      if (board.dataset.animating !== "true") return;
      ui.skip = true;
      document.dispatchEvent(new Event("colorwars-skip"));
    });
    $("pause").addEventListener("click", () => {
      ui.paused = !ui.paused;
      show(ui.game);
      aiTurns();
    });
    const stored = localStorage.getItem("colorwars.speed");
    if (stored !== null && [...$("speed").options].some((o) => o.value === stored)) $("speed").value = stored;
    $("speed").addEventListener("change", () => localStorage.setItem("colorwars.speed", $("speed").value));
    $("new-game").addEventListener("submit", (event) => {
      event.preventDefault();
      $("new-game-panel").open = false;
      newGame(formBody(false));
    });
    const openNewGame = () => {
      setView(false);
      $("new-game-panel").open = true;
      $("new-game-panel").scrollIntoView({ block: "nearest" });
      $("ng-start").focus();
    };
    $("new-game-button").addEventListener("click", openNewGame);
    $("result-new").addEventListener("click", () => { ui.resultClosed = true; if (ui.game) show(ui.game); openNewGame(); });
    $("rematch").addEventListener("click", () => rematch(false));
    $("rematch-swap").addEventListener("click", () => rematch(true));
    $("result-close").addEventListener("click", () => { ui.resultClosed = true; if (ui.game) show(ui.game); board.focus({ preventScroll: true }); });
    $("view-study").addEventListener("click", () => setView(!document.body.classList.contains("view-study")));
    const rules = $("rules-dialog");
    const showRules = () => (rules.showModal ? rules.showModal() : rules.setAttribute("open", ""));
    $("rules-button").addEventListener("click", showRules);
    $("first-game-rules").addEventListener("click", showRules);
    $("rules-close").addEventListener("click", () => (rules.close ? rules.close() : rules.removeAttribute("open")));
    $("first-game-close").addEventListener("click", () => {
      settings.seenHelp = true;
      saveSettings();
      $("first-game").hidden = true;
    });
    $("theme").addEventListener("click", () => {
      const order = ["system", "light", "dark"];
      settings.theme = order[(order.indexOf(settings.theme) + 1) % order.length];
      saveSettings();
      applyTheme();
    });
    $("sound").addEventListener("click", () => {
      settings.sound = !settings.sound;
      saveSettings();
      applyTheme();
      if (settings.sound) sound("place");
    });
    $("colours-reset").addEventListener("click", () => {
      settings.colours = [];
      saveSettings();
      $("colour-message").textContent = "";
      colourPickers();
      if (ui.game) show(ui.game);
    });
    $("recent-panel").addEventListener("toggle", () => { if ($("recent-panel").open) refreshRecent(); });
    $("ng-watch").addEventListener("click", () => newGame(formBody(true)));
    $("copy-position").addEventListener("click", copyPosition);
    $("paste-position").addEventListener("click", pastePosition);
    $("save-record").addEventListener("click", saveRecord);
    $("load-record").addEventListener("change", (event) => {
      const file = event.target.files[0];
      if (file) loadRecord(file);
      event.target.value = "";
    });
    $("replay").addEventListener("input", (event) => enterReplay(Number(event.target.value)));
    $("replay-step-back").addEventListener("click", () => enterReplay((ui.replay ? ui.replay.index : ui.game.moves.length) - 1));
    $("replay-step").addEventListener("click", () => ui.replay && enterReplay(ui.replay.index + 1));
    $("replay-live").addEventListener("click", leaveReplay);
    $("replay-resume").addEventListener("click", resumeFromReplay);
    $("replay-play").addEventListener("click", async () => {
      if (ui.replayTimer) { stopReplayTimer(); show(ui.game); return; }
      if (!ui.replay || ui.replay.index >= ui.replay.moves.length) await enterReplay(0);
      if (!ui.replay) return;
      ui.replayTimer = setInterval(() => {
        if (!ui.replay || ui.replay.index >= ui.replay.moves.length) { stopReplayTimer(); if (ui.game) show(ui.game); return; }
        enterReplay(ui.replay.index + 1);
      }, Math.max(250, speed() * 2));
      show(ui.game);
    });
    $("analyse").addEventListener("click", analyse);
    $("clear-analysis").addEventListener("click", () => {
      ui.analysis = null;
      $("analysis-result").textContent = "";
      if (ui.game) show(ui.game);
    });
  }

  // A link with a seat's token. The token this browser already has for the game is kept when
  // the link's is no seat's (anyone who knows a game's id could send a player a link with a
  // made-up token), and when both are seats (the creator opening the friend's link): the
  // link's seat is then this tab's own, and the browser's other tabs keep theirs.
  async function follow(id, token) {
    const own = tokens[id] || null;
    if (!own || own === token) {
      keepToken(id, token);
      keepTabToken(id, null); // the browser's own seat, in this tab too
      return api("GET", `/api/games/${id}`);
    }
    const asLink = await api("GET", `/api/games/${id}`, undefined, token);
    if (!asLink.online || asLink.seat === null) return api("GET", `/api/games/${id}`);
    const asOwn = await api("GET", `/api/games/${id}`, undefined, own);
    if (asOwn.seat === null) {
      keepToken(id, token); // the browser's was no seat's: the link's replaces it
      keepTabToken(id, null);
    } else if (asOwn.seat !== asLink.seat) {
      keepTabToken(id, token);
      ui.followed = true;
      say(`This tab plays ${letter(asLink.seat)} (the link's seat); this browser's other tabs keep playing ${letter(asOwn.seat)}.`, true);
    }
    return asLink;
  }

  async function start() {
    applyTheme();
    wire();
    // A link to a game (?game=ID, with &token=TOKEN for a seat): the token is kept in this
    // browser and taken out of the address bar (and so out of the history and any Referer).
    const params = new URLSearchParams(location.search);
    const linked = params.get("game");
    const linkToken = linked ? params.get("token") : null;
    if (params.has("game") || params.has("token")) history.replaceState(null, "", location.pathname);
    try {
      ui.options = await api("GET", "/api/options");
    } catch (e) {
      $("status").textContent = `The server did not answer: ${e.message}`;
      return;
    }
    fillForm(ui.options);
    $("first-game").hidden = settings.seenHelp || Boolean(linked);
    // The game of the link, else the one this browser played last (a reload resumes it),
    // else the default game: 5 × 5 colorwars, you as player a against the default AI.
    const resume = linked || store.get("current", null);
    if (resume) {
      try {
        const g = linked && linkToken ? await follow(linked, linkToken) : await api("GET", `/api/games/${resume}`);
        setGame(g);
        if (linked && g.online && !ui.followed) say(ui.seat === null ? "Watching this game." : `You play ${letter(ui.seat)}.`, true);
        colourPickers();
        return;
      } catch (e) {
        if (linked) say(`That game is not here: ${e.message}`);
      }
    }
    await newGame({ width: 5, height: 5, players: 2, rules: "colorwars", first: 0, seats: ui.options.default_seats });
    colourPickers();
  }

  window.colorwars = { ui, api };
  start();
})();
