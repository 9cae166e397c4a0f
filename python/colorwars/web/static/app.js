// colorwars web app: plain JavaScript, no build step, nothing loaded from elsewhere.
// The engine lives on the server; this page shows its answers. Every move the server
// returns comes with its cascade's waves, which are animated one by one.
//
// Hooks for tools that drive the page: board cells carry data-cell="INDEX"; #board carries
// data-position (the notation of the position shown), data-game (the game's id),
// data-state ("loading", "busy", "ready": a human may move, "watching": AIs play,
// "paused", "over", "replay"), data-animating and data-waves-animated (waves shown so far).
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
  };

  class ApiError extends Error {
    constructor(message, type, status) {
      super(message);
      this.type = type;
      this.status = status;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
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
  const colour = (p) => ui.options.colours[p];
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
    const w = MARGIN + g.width * CELL + 2, h = MARGIN + g.height * CELL + 2;
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
    const exactBest = values && values.exact.solved ? values.exact.best.cell : -1;
    for (let i = 0; i < counts.length; i++) {
      const x = i % g.width, y = Math.floor(i / g.width);
      const n = counts[i], owner = owners[i];
      const classes = ["cell"];
      if (legal.has(i)) classes.push("legal");
      if (marks.last === i) classes.push("last");
      if (bursting.has(i)) classes.push("bursting");
      if (captured.has(i)) classes.push("captured");
      if (ui.hint && ui.hint.position === g.position && ui.hint.cell === i && !ui.replay) classes.push("hint");
      if (exactBest === i) classes.push("best");
      const cell = el("g", { class: classes.join(" "), "data-cell": i, transform: `translate(${MARGIN + x * CELL} ${MARGIN + y * CELL})` }, svg);
      const name = cellName(g, i);
      cell.setAttribute("aria-label", n ? `${name}: ${n} orb${n > 1 ? "s" : ""} of player ${letter(owner)}` : `${name}: empty`);
      if (legal.has(i)) {
        cell.setAttribute("tabindex", "0");
        cell.setAttribute("role", "button");
      }
      el("rect", { class: "bg", width: CELL, height: CELL }, cell);
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
    legend(g);
    moveList(g);
    status(g);
    $("position-text").value = replay ? replay.positions[replay.index] : g.position;
    replayControls(g);
    buttons(g);
  }

  function humanMayMove(g) {
    return g.winner === null && isHuman(g, g.to_move) && !ui.busy && !ui.replay;
  }

  function setState(g) {
    let s;
    if (ui.replay) s = "replay";
    else if (g.winner !== null) s = "over";
    else if (ui.busy) s = "busy";
    else if (isHuman(g, g.to_move)) s = "ready";
    else s = ui.paused ? "paused" : "watching";
    board.dataset.state = s;
  }

  function status(g) {
    setState(g);
    const who = (p) => {
      const kind = seatKind(g, p);
      const you = kind === "human" ? (humans(g) === 1 ? "you" : "human") : kind;
      return `player ${letter(p)} (${you})`;
    };
    let text;
    if (ui.replay) {
      const k = ui.replay.index, m = ui.replay.moves[k - 1];
      text = `Replay: after move ${k} of ${ui.replay.moves.length}` + (m ? ` (${letter(m.player)} played ${m.name})` : "");
    } else if (g.winner !== null) {
      const kind = seatKind(g, g.winner);
      text = kind === "human" && humans(g) === 1 ? "You win!" : `Player ${letter(g.winner)} (${kind === "human" ? "human" : kind}) wins after ${g.ply} moves.`;
    } else if (ui.busy && !isHuman(g, g.to_move)) {
      text = `${who(g.to_move)} is thinking…`;
    } else if (!isHuman(g, g.to_move) && ui.paused) {
      text = `Paused: ${who(g.to_move)} to move.`;
    } else {
      text = `${who(g.to_move)} to move`.replace(/^p/, "P");
    }
    $("status").textContent = text;
  }

  function legend(g) {
    const box = $("legend");
    box.replaceChildren();
    for (let p = 0; p < g.players; p++) {
      const item = document.createElement("span");
      item.className = "seat";
      if (g.winner === null && p === g.to_move) item.classList.add("to-move");
      const orbs = g.counts.reduce((sum, n, i) => sum + (g.owners[i] === p ? n : 0), 0);
      const out = g.position.split(" ")[6];
      if (out !== "-" && out.includes(letter(p))) item.classList.add("out");
      item.appendChild(badge(p));
      const label = document.createElement("span");
      const kind = seatKind(g, p) === "human" && humans(g) === 1 ? "you" : seatKind(g, p);
      label.textContent = `${letter(p)} ${kind} · ${orbs} orb${orbs === 1 ? "" : "s"}`;
      item.appendChild(label);
      box.appendChild(item);
    }
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = "dashed frame: one more orb bursts the cell";
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
    $("hint").disabled = ui.busy || over || ui.replay !== null;
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
    try {
      if (before && previous && previous.id === result.id) await animate(before, result, result);
    } finally {
      board.dataset.animating = "false";
      ui.skip = false;
    }
    ui.game = result;
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
    }
  }

  async function playCell(i) {
    const g = ui.game;
    if (!g || !humanMayMove(g)) return;
    if (!g.legal_moves.includes(i)) {
      say(`${cellName(g, i)} is not a legal move for player ${letter(g.to_move)}.`);
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
      const ok = await busy(async () => {
        const result = await api("POST", `/api/games/${g.id}/ai-move`, { ply: g.ply });
        if (generation === ui.generation) await showMove(result);
        return true;
      });
      if (!ok) return;
      if (humans(ui.game) === 0) await wait(Math.min(400, speed()));
    }
  }

  function setGame(g) {
    ui.generation += 1;
    ui.game = g;
    ui.hint = null;
    ui.analysis = null;
    ui.replay = null;
    ui.paused = false;
    stopReplayTimer();
    $("analysis-result").textContent = "";
    show(g);
    aiTurns();
  }

  async function newGame(body) {
    say("");
    const g = await busy(() => api("POST", "/api/games", body));
    if (g) setGame(g);
    return g;
  }

  // Undo takes back the last human move and every AI move after it; with no human seat, one.
  function undoCount(g) {
    const moves = g.moves;
    if (!moves.length) return 0;
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
      say(`Hint: ${result.name} (${result.ai}, ${result.seconds} s)`, true);
      show(ui.game);
    }
  }

  // ---- analysis -----------------------------------------------------------------------------
  async function analyse() {
    const g = ui.game;
    const simulations = Number($("analysis-simulations").value) || ui.options.analysis_default;
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
    exact.textContent = result.exact.solved
      ? `Exact: ${result.exact.reason}; best first move ${result.exact.best.name} (line ${result.exact.line.join(" ")}).`
      : `Exact result: not available (${result.exact.reason}).`;
    box.appendChild(exact);
    show(ui.game);
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
    for (const r of o.rules) $("ng-rules").add(new Option(r, r));
    for (let n = o.players[0]; n <= o.players[1]; n++) $("ng-players").add(new Option(String(n), String(n)));
    for (const id of ["ng-width", "ng-height"]) {
      $(id).min = String(o.sides[0]);
      $(id).max = String(o.sides[1]);
    }
    $("analysis-simulations").max = String(o.limits.simulations);
    $("analysis-simulations").value = String(o.analysis_default);
    boardSelect.addEventListener("change", () => { $("ng-custom").hidden = boardSelect.value !== "custom"; });
    $("ng-players").addEventListener("change", seatRows);
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
      for (const k of ui.options.seats) {
        const option = new Option(k === "mcts" ? "MCTS" : k === "alphabeta" ? "alpha-beta" : k, k);
        if (k === "alphabeta" && n !== 2) option.disabled = true;
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
        budget.max = String(k === "mcts" ? ui.options.limits.simulations : ui.options.limits.depth);
        budget.title = k === "mcts" ? "simulations" : "depth";
        budget.setAttribute("aria-label", `${budget.title} for seat ${letter(p)}`);
        if (!budget.value || budget.dataset.kind !== k) budget.value = defaults[k] || "";
        budget.dataset.kind = k;
      };
      kind.addEventListener("change", sync);
      const previous = old[p] || (p === 0 ? "human" : ui.options.default_seats[1]);
      const [k, arg] = previous.split(":");
      kind.value = k === "alphabeta" && n !== 2 ? "mcts" : k;
      sync();
      if (arg && kind.value === k) budget.value = arg;
      box.appendChild(row);
    }
  }

  function readSeat(row) {
    const k = row.querySelector(".seat-kind").value;
    const b = row.querySelector(".seat-budget").value;
    return k === "mcts" || k === "alphabeta" ? `${k}:${b}` : k;
  }

  function formBody(watch) {
    const choice = $("ng-board").value;
    const [w, h] = choice === "custom" ? [$("ng-width").value, $("ng-height").value] : choice.split("x");
    const seats = [...document.querySelectorAll("#ng-seats .seat-row")].map(readSeat);
    return {
      width: Number(w),
      height: Number(h),
      rules: $("ng-rules").value,
      players: Number($("ng-players").value),
      first: $("ng-first").value,
      seats: watch ? seats.map((s, p) => (s === "human" ? (p % 2 ? "greedy" : "mcts:2000") : s)) : seats,
    };
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
      }
    });
    $("undo").addEventListener("click", undo);
    $("hint").addEventListener("click", hint);
    $("skip").addEventListener("click", () => {
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
      newGame(formBody(false));
    });
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

  async function start() {
    wire();
    try {
      ui.options = await api("GET", "/api/options");
    } catch (e) {
      $("status").textContent = `The server did not answer: ${e.message}`;
      return;
    }
    fillForm(ui.options);
    // The default game at once: 5 × 5 colorwars, you as player a against greedy.
    await newGame({ width: 5, height: 5, players: 2, rules: "colorwars", first: 0, seats: ui.options.default_seats });
  }

  window.colorwars = { ui, api };
  start();
})();
