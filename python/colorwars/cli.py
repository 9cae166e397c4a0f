"""The ``colorwars`` command line."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from rich.console import Console
from rich.text import Text

from colorwars import __version__
from colorwars._board_style import BURST, PLAYER_STYLES, board_text
from colorwars._common import PLAYER_LETTERS, column_name
from colorwars._files import atomic_open, check_output
from colorwars._validate import MAX_GAMES, seat_given, show
from colorwars._validate import size as board_size
from colorwars.errors import (
    ColorwarsError,
    ConfigError,
    FileError,
    InvalidPlayerError,
    InvalidRecordError,
    missing_extra,
)
from colorwars.players import BATCH_PLAYER_NAMES, PLAYER_NAMES
from colorwars.record import GameFactory, GameRecord

__all__ = ["PLAYER_STYLES", "board_text", "build_parser", "main", "parse_seat"]


# The largest record `replay` reads (a record of every move of a long 32x32 game is far smaller).
MAX_RECORD_BYTES = 16 * 2**20


def read_record(path: Path) -> GameRecord:
    """A record file, read with a bound (``/dev/zero`` is not a record) and decoded as UTF-8."""
    with path.open("rb") as f:
        data = f.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise InvalidRecordError(
            f"invalid record: {show(str(path))} is larger than {MAX_RECORD_BYTES // 2**20} MiB"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidRecordError(
            f"invalid record: {show(str(path))} is not UTF-8 text (byte {e.start})"
        ) from None
    return GameRecord.parse(text)


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    if args.quiet and args.final_only:
        raise ConfigError(
            "--quiet (only the final position) and --final-only (the moves, and the final "
            "board) ask for different things: give one"
        )
    path = Path(args.file)
    record = read_record(path)
    engine: GameFactory | None = None
    if args.engine == "reference":
        from colorwars.reference import Game as ReferenceGame

        engine = ReferenceGame
    console.print(
        Text.assemble(
            (path.name, "bold"),
            f": {record.width}x{record.height} {record.rules.name}, "
            f"{record.players} players, {PLAYER_LETTERS[record.first]} first, "
            f"{len(record.moves)} moves",
        )
    )
    if record.note:
        console.print(Text(record.note, style="italic"))
    game = record.new_game(engine)
    number = 0
    for game, cell, mover in record.steps(engine):
        number += 1
        waves = game.waves()
        if args.quiet:
            continue
        console.print(
            Text.assemble(
                "\n",
                (f"{number}.", "bold"),
                " player ",
                (PLAYER_LETTERS[mover], PLAYER_STYLES[mover]),
                f" plays {game.cell_name(cell)}",
                f": {len(waves)} wave{'s' * (len(waves) != 1)}" if waves else "",
            )
        )
        for k, wave in enumerate(waves, 1):
            names = " ".join(game.cell_name(c) for c in wave.bursts)
            console.print(f"  wave {k}: {names} burst")
            if not args.final_only:
                marks = dict.fromkeys(wave.bursts, BURST)
                console.print(board_text(record.width, wave.counts, wave.owners, marks))
        if not waves and not args.final_only:
            console.print(board_text(record.width, game.counts(), game.owners()))
    console.print("\n[bold]final position[/bold]")
    console.print(board_text(record.width, game.counts(), game.owners()))
    console.print(game.to_text(), highlight=False, soft_wrap=True)
    if game.winner is not None:
        console.print(f"player {PLAYER_LETTERS[game.winner]} wins after {number} moves")
    else:
        console.print(
            f"unfinished after {number} moves; player {PLAYER_LETTERS[game.to_move]} to move"
        )
    record.check(game)
    if record.result is not None or record.final is not None:
        console.print(
            "[green]the record's stated result and final position match the replay[/green]"
        )
    return 0


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"([0-9]{1,6})x([0-9]{1,6})", text.strip().lower())
    if match is None:
        raise argparse.ArgumentTypeError(f"{show(text)} is not WIDTHxHEIGHT, e.g. 5x5")
    return int(match[1]), int(match[2])


def _count(text: str) -> int:
    """A whole number on the command line (range checked by colorwars._validate)."""
    if not re.fullmatch(r"-?[0-9]{1,30}", text.strip()):
        raise argparse.ArgumentTypeError(f"{show(text)} is not a whole number")
    return int(text)


def _games(text: str) -> int:
    """A number of games on the command line: none would print tables of nothing."""
    n = _count(text)
    if not 1 <= n <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"{n} games: expected from 1 to 2**40")
    return n


def _even_games(text: str) -> int:
    """A number of games per pair, half with each seat first."""
    n = _count(text)
    if not (2 <= n <= MAX_GAMES and n % 2 == 0):
        raise argparse.ArgumentTypeError(
            f"{n} games: expected an even number from 2 to 2**40 (half with each seat first)"
        )
    return n


def parse_seat(text: str) -> int:
    """A seat on the command line: its letter (``a`` to ``h``) or its number (0 to 7)."""
    if len(text) == 1 and text in PLAYER_LETTERS:
        return PLAYER_LETTERS.index(text)
    if text.isdigit() and int(text) < len(PLAYER_LETTERS):
        return int(text)
    raise argparse.ArgumentTypeError(f"{show(text)} is not a player (a to h, or 0 to 7)")


def note(message: str) -> None:
    """One line on stderr, never markup (what a command says besides what was asked)."""
    with contextlib.suppress(BrokenPipeError):
        _Console(stderr=True, highlight=False).print(Text(message), soft_wrap=True)


def require_matplotlib(needs: str) -> Any:
    """matplotlib's pyplot on the Agg backend, or ``MissingExtraError`` (checked before a run
    whose result it draws, not after)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise missing_extra("plot", f"{needs} needs matplotlib", "matplotlib") from None
    return plt


def cmd_simulate(args: argparse.Namespace, console: Console) -> int:
    seat_given("--first", args.first, args.players)
    if args.record and not (args.output and args.output.lower().endswith(".json")):
        raise ConfigError(
            "--record keeps every game's moves in the JSON output: it needs --output F.json"
        )
    existed = bool(args.output) and Path(args.output).exists()
    try:
        # The check makes a file in the output's folder and removes it: a signal may land
        # there too, and it says the same as one during the run.
        output = writable_output(args.output, (".csv", ".json"), "results") if args.output else None
        return _simulate(args, console, output)
    except KeyboardInterrupt as e:
        if not args.output:
            raise
        # The output is written atomically, so an interrupted run leaves it as it was.
        raise type(e)(_unwritten(Path(args.output), existed)) from None


def _simulate(args: argparse.Namespace, console: Console, output: Path | None) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    from colorwars.simulation import simulate

    width, height = args.size
    names = args.seats.split(",")
    seats = names[0] if len(names) == 1 else names  # one name plays every seat
    kwargs = {
        "games": args.games, "width": width, "height": height, "players": args.players,
        "rules": args.rules, "seats": seats, "seed": args.seed, "threads": args.threads,
        "max_plies": args.max_plies, "first": args.first, "backend": args.backend,
        "address": args.address, "shards": args.shards, "record": args.record,
    }  # fmt: skip
    show_bar = not args.no_progress and console.is_terminal and args.games >= 50_000
    if show_bar:
        columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn())
        with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as bar:
            task = bar.add_task("simulating", total=args.games)
            result = simulate(**kwargs, progress=lambda done, _: bar.update(task, completed=done))
    else:
        result = simulate(**kwargs)
    s = result.summary()
    if args.json:
        console.print_json(data=s)
    else:
        title = Text(
            f"{s['games']:,} games, {s['board']} {s['rules']}, {s['players']} players, "
            f"seed {s['seed']}"
        )
        table = Table(title=title, title_justify="left")
        for name in ("seat", "player", "wins", "win rate", "95% interval"):
            table.add_column(name, justify="left" if name in ("seat", "player") else "right")
        for seat in range(s["players"]):
            lo, hi = s["win_rate_ci95"][seat]
            table.add_row(
                PLAYER_LETTERS[seat] + (" (first)" if seat == result.first else ""),
                Text(s["seats"][seat]),
                f"{s['wins'][seat]:,}",
                f"{s['win_rate'][seat]:.2%}",
                f"{lo:.2%} - {hi:.2%}",
            )
        console.print(table)
        p = s["plies"]
        console.print(
            f"game length: mean {p['mean']:.1f} plies (sd {p['std']:.1f}), min {p['min']}, "
            f"10% {p['p10']:.0f}, median {p['median']:.0f}, 90% {p['p90']:.0f}, max {p['max']}"
        )
        if s["truncated"]:
            console.print(f"unfinished (cut at {args.max_plies} plies): {s['truncated']:,}")
        console.print(
            f"cascades: {s['waves_per_ply']:.2f} waves per ply, longest {s['longest_cascade']}"
        )
        console.print(
            f"speed: {s['games_per_second']:,.0f} games/s, {s['plies_per_second']:,.0f} plies/s "
            f"({s['seconds']:.2f} s on "
            + (
                f"Ray, {s['shards']} shards)"
                if args.backend == "ray"
                else "all cores)"
                if not args.threads
                else f"{args.threads} thread{'s' if args.threads != 1 else ''})"
            )
        )
    if output is not None:
        result.write(output)
        try:
            # On stderr: stdout holds only what was asked (the JSON with --json).
            note(f"per-game results written to {output}")
        except KeyboardInterrupt:
            return 130  # the file is written whole; only this line was cut short
    return 0


def writable_output(name: str, suffixes: tuple[str, ...], what: str = "output") -> Path:
    """Checks an output file before a long run: its ending, and that its folder exists and
    is writable (a ``FileError`` naming it)."""
    path = Path(name)
    if not path.name.lower().endswith(suffixes):
        raise ConfigError(f"{what} {show(name)}: the file name must end in {' or '.join(suffixes)}")
    return check_output(path, what)


def _unwritten(path: Path, existed: bool) -> str:
    """What an interrupted run says of its output file: it was not written."""
    kept = "the old file is kept" if existed else "no file was made"
    return f"{path} was not written ({kept})"


class _Bar:
    """A rich progress bar on a terminal; nothing elsewhere (CI, pipes)."""

    def __init__(self, console: Console, label: str) -> None:
        from rich.progress import Progress

        self.bar = Progress(console=console, transient=True) if console.is_terminal else None
        self.label = label
        self.task: Any = None

    def __enter__(self) -> _Bar:
        if self.bar is not None:
            self.bar.__enter__()
            self.task = self.bar.add_task(self.label, total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)


def _show_progress(args: argparse.Namespace, console: Console) -> bool:
    """Progress is shown on a terminal, unless ``--no-progress``."""
    return console.is_terminal and not getattr(args, "no_progress", False)


def _reporter(args: argparse.Namespace, status: Any) -> Callable[[str], None] | None:
    """Where a search's progress goes: the status line on a terminal; elsewhere (a log file,
    ``nohup``, a pipe) a plain line on stderr every ``--log-every`` seconds (60; 0: none), so
    that a run of hours shows in its log how far it has got. None: no progress at all."""
    if status is not None:
        return lambda text: status.update(Text(text, style="dim"))
    every = getattr(args, "log_every", None)
    every = 60.0 if every is None else every
    if getattr(args, "no_progress", False) or every == 0:
        return None
    last = time.monotonic()

    def line(text: str) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= every:
            last = now
            print(text, file=sys.stderr, flush=True)

    return line


# Which of ``colorwars solve``'s methods each option is for, and whether it was given (the
# options' defaults are None so that a given one can be told from one left out).
_SOLVE_OPTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("--max-depth", "max_depth", ("alphabeta",)),
    ("--time", "time", ("pn", "length")),
    ("--memory", "memory", ("pn", "length")),
    ("--start", "start", ("length",)),
    ("--checkpoint", "checkpoint", ("pn", "length")),
    ("--after", "after", ("pn",)),
    ("--save-every", "save_every", ("pn", "length")),
    ("--no-split", "no_split", ("pn",)),
    ("--verify", "verify", ("pn", "length")),
    ("--threads", "threads", ("pn",)),
    ("--backend ray", "backend", ("pn",)),
    ("--address", "address", ("pn",)),
)
_METHOD_NAMES = {"alphabeta": "alpha-beta", "pn": "proof-number search", "length": "length"}


# Boards of this many cells or more: alpha-beta, the default method, takes minutes to hours
# (4 x 5 colorwars: 445 M positions, 173 s; 5 x 5 is far past it), so a run without --method
# says so and names the faster method.
ALPHABETA_SLOW_CELLS = 20


def _given(value: object) -> bool:
    """An option given: not its default (None, a flag left off, the local backend)."""
    return value is not None and value is not False and value != "local"


def _solve_method(args: argparse.Namespace) -> str:
    """The method ``colorwars solve`` runs: the one named, or the one the options given are
    for (alpha-beta when none is); an option given that the method does not take is a
    ``ConfigError`` saying which methods take it, rather than an option quietly ignored."""
    given = [
        (flag, methods) for flag, attr, methods in _SOLVE_OPTIONS if _given(getattr(args, attr))
    ]
    method: str | None = args.method
    if method is None:
        wanted = [methods for _, methods in given if methods != ("alphabeta",)]
        method = "alphabeta" if not wanted else "length" if ("length",) in wanted else "pn"
    for flag, methods in given:
        if method not in methods:
            takes = " or ".join(f"--method {m}" for m in methods)
            raise ConfigError(
                f"{flag} is for {takes}, not {_METHOD_NAMES[method]} (--method {method})"
            )
    if args.address is not None and args.backend != "ray":
        raise ConfigError("--address needs --backend ray")
    if args.save_every is not None and args.checkpoint is None:
        raise ConfigError("--save-every needs --checkpoint (the file it saves)")
    if args.save_every is not None and args.save_every != 0:
        from colorwars import length, proof

        least = length.SAVE_EVERY_LEAST if method == "length" else proof.SAVE_EVERY_LEAST
        if not least <= args.save_every <= 1e9:  # nan too
            raise ConfigError(
                f"invalid --save-every {args.save_every:g}: expected seconds from {least:g} "
                "to 1e+09, or 0 (save only at the end)"
            )
    if args.log_every is not None and not 0 <= args.log_every <= 1e9:
        raise ConfigError(
            f"invalid --log-every {args.log_every:g}: expected seconds from 0 to 1e+09 "
            "(0: no progress lines)"
        )
    return method


def cmd_solve(args: argparse.Namespace, console: Console) -> int:
    from colorwars import solver

    width, height = board_size(*args.size)  # a board that is not allowed: no note first
    method = _solve_method(args)
    if method == "length":
        return _keeping(args, "the table", lambda: _length(args, console))
    if method == "pn":
        return _keeping(args, "the proofs", lambda: _prove(args, console))
    if args.method is None and width * height >= ALPHABETA_SLOW_CELLS:
        note(
            f"{width}x{height}: alpha-beta finds the length too and may take hours on a board "
            "this size; --method pn proves the winner alone far sooner"
        )
    status = console.status("solving ...") if _show_progress(args, console) else None
    with status or contextlib.nullcontext():
        progress = None
        if (report := _reporter(args, status)) is not None:
            start = time.perf_counter()
            what = f"solving {width}x{height} {args.rules}"

            def progress(positions: int) -> None:
                secs = time.perf_counter() - start
                report(f"{what}: {positions:,} positions, {secs:,.0f} s")

        solution = solver.solve(
            width, height, rules=args.rules, cache=not args.no_cache, progress=progress,
            max_depth=200 if args.max_depth is None else args.max_depth,
        )  # fmt: skip
    console.print(Text(str(solution)), soft_wrap=True)
    if not args.no_cache:
        console.print(Text(f"(kept in {solver.cache_path()})", style="dim"))
    return 0


def _keeping(args: argparse.Namespace, what: str, run: Callable[[], int]) -> int:
    """Runs a search with ``--checkpoint``: stopped by Ctrl-C, it says where what it found is
    kept (the search saves it before it stops), as a finished run does; only when this run
    wrote the file (a save that failed leaves an older one, which it does not vouch for)."""
    began = time.time()
    try:
        return run()
    except KeyboardInterrupt as e:
        path = None if args.checkpoint is None else Path(args.checkpoint)
        try:
            saved = path is not None and path.stat().st_mtime >= began - 1.0
        except OSError:
            saved = False
        if str(e) or not saved:
            raise
        raise type(e)(f"{what} kept in {args.checkpoint}") from None


def _prove(args: argparse.Namespace, console: Console) -> int:
    """``colorwars solve`` by proof-number search: progress on the terminal, the proven
    winner after each group of symmetric first moves, a checkpoint kept if asked."""
    from colorwars.proof import prove

    width, height = args.size
    start = time.perf_counter()
    status = console.status("proving ...") if _show_progress(args, console) else None
    with status or contextlib.nullcontext():
        progress = None
        if (report := _reporter(args, status)) is not None:

            def progress(message: str, positions: int) -> None:
                secs = time.perf_counter() - start
                report(f"proving {message}: {positions:,} positions, {secs:,.0f} s")

        where: tuple[Any, ...] = (width, height, args.rules)
        moves = [] if args.after is None else args.after.replace(",", " ").split()
        if args.after is not None and not moves:
            raise ConfigError("--after names no move: give moves such as c3 or 'c3 b2'")
        if args.after is not None:
            from colorwars.game import Game

            game = Game(width, height, rules=args.rules)
            for i, move in enumerate(moves, 1):
                try:  # a name (c3) or a cell number (12), as the game takes them
                    cell = game.play(int(move) if move.isascii() and move.isdigit() else move)
                except ColorwarsError as e:  # which of the moves, as well as why
                    raise type(e)(f"--after, move {i} of {len(moves)} ({move}): {e}") from None
                moves[i - 1] = game.cell_name(cell)  # said by name in the result
            where = (game,)
        proof = prove(
            *where,
            time=args.time,
            memory=args.memory,
            checkpoint=args.checkpoint,
            split=not args.no_split,
            backend=args.backend,
            address=args.address,
            progress=progress,
            threads=0 if args.threads is None else args.threads,
            save_every=600.0 if args.save_every is None else args.save_every or None,
            verify=args.verify,
        )
    said = str(proof)
    if args.after is not None:  # "6x6 colorwars after c3: player b wins ..."
        head, _, rest = said.partition(":")
        said = f"{head} after {' '.join(moves)}:{rest}"
    console.print(Text(said), soft_wrap=True)
    if proof.unsaved is not None:
        # The result above stands; what failed is keeping it.
        note(f"error: {proof.unsaved} (the result above stands; its proofs were not kept)")
        return 2
    if args.checkpoint is not None:
        console.print(Text(f"(proofs kept in {args.checkpoint})", style="dim"))
    return 0 if proof.winner is not None or proof.complete else 3


def _length(args: argparse.Namespace, console: Console) -> int:
    """``colorwars solve --method length``: the exact length by depth-bounded proof-number
    search, one line of result; exit status 3 if it was not found in time."""
    from colorwars.length import exact_length

    width, height = args.size
    start = time.perf_counter()
    status = console.status("searching ...") if _show_progress(args, console) else None
    with status or contextlib.nullcontext():
        progress = None
        if (report := _reporter(args, status)) is not None:

            def progress(positions: int) -> None:
                secs = time.perf_counter() - start
                report(f"exact length: {positions:,} positions, {secs:,.0f} s")

            def walking(walked: int) -> None:
                secs = time.perf_counter() - start
                report(
                    f"exact length, checking the proof and refutation: {walked:,} positions, "
                    f"{secs:,.0f} s"
                )

        found = exact_length(
            width,
            height,
            args.rules,
            time=args.time,
            memory=args.memory,
            progress=progress,
            check_progress=None if progress is None else walking,
            start=args.start,
            checkpoint=args.checkpoint,
            save_every=1800.0 if args.save_every is None else args.save_every or 1e9,
            verify=args.verify,
        )
    console.print(Text(str(found)), soft_wrap=True)
    if args.checkpoint is not None:
        console.print(Text(f"(the table kept in {args.checkpoint})", style="dim"))
    return 0 if found.plies is not None else 3


def _ray_only(args: argparse.Namespace) -> None:
    """Refuses ``--address`` and ``--shards`` without ``--backend ray``, whose alone they are
    (the Python API's message names its keywords, not the flags)."""
    if getattr(args, "backend", "ray") == "ray":
        return
    given = [f"--{name}" for name in ("address", "shards") if getattr(args, name, None) is not None]
    if given:
        verb = "needs" if len(given) == 1 else "need"
        raise ConfigError(f"{' and '.join(given)} {verb} --backend ray")


def _backend_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend local|ray`` and ``--address`` (the Ray cluster), as every command has them."""
    parser.add_argument(
        "--backend", type=_word, choices=("local", "ray"), default="local", help=what
    )
    parser.add_argument("--address", help="with --backend ray: the cluster (default: start one)")


def _player_list(text: str) -> list[Any]:
    """Players from a comma list of names (``parse_player`` reads each)."""
    from colorwars.players import parse_player

    names = text.split(",")
    if any(not name.strip() for name in names):
        raise InvalidPlayerError(
            f"invalid player list {show(text)}: an empty name (expected names between commas)"
        )
    return [parse_player(name) for name in names]


def cmd_tournament(args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    from colorwars.ai import tournament

    width, height = args.size
    players = _player_list(args.entrants)
    with _Bar(console, "matches") as bar:
        result = tournament(
            players, args.games, width, height, args.rules, args.seed, args.threads,
            progress=bar, backend=args.backend, address=args.address,
        )  # fmt: skip
    table = Table(
        title=Text(
            f"round robin, {width}x{height} {result.rules.name}, "
            + (
                f"{args.games} games per pair (half with each seat first)"
                if args.games % 2 == 0
                else f"{args.games} game{'s' if args.games > 1 else ''} per pair (the odd one "
                "with the later entrant first)"
            )
        ),
        title_justify="left",
    )
    for name in ("player", "won", "games", "win rate", "95% interval", "Elo"):
        table.add_column(name, justify="left" if name == "player" else "right")
    order = sorted(range(len(players)), key=lambda i: -result.elo[i])
    for i in order:
        rate, (lo, hi) = result.score(i)
        table.add_row(
            result.names[i],
            f"{result.wins[i].sum():.0f}",
            f"{result.games[i].sum():.0f}",
            f"{rate:.1%}",
            f"{lo:.1%} - {hi:.1%}",
            f"{result.elo[i]:+.0f}",
        )
    console.print(table)
    pairs = Table(title="win rate of the row against the column", title_justify="left")
    pairs.add_column("")
    for i in order:
        pairs.add_column(result.names[i], justify="right")
    for i in order:
        cells = [
            "" if i == j else f"{result.wins[i, j] / max(result.games[i, j], 1):.0%}" for j in order
        ]
        pairs.add_row(result.names[i], *cells)
    console.print(pairs)
    _say_forfeits(console, result.forfeits)
    return 0


def _say_forfeits(console: Console, forfeits: list[dict[str, Any]]) -> None:
    """One line per player and reason for the games a player lost by failing (an engine that
    did not start or broke the protocol), so a table of losses is not all that is said."""
    counts: dict[tuple[str, str], int] = {}
    for f in forfeits:
        key = (f["players"][f["seat"]], f["reason"])
        counts[key] = counts.get(key, 0) + 1
    for (name, reason), n in counts.items():
        games = "game" if n == 1 else "games"
        console.print(
            Text(f"{name} forfeited {n} {games}: {reason}", style="bold red"), soft_wrap=True
        )


def _board_weight(text: str) -> tuple[int, int, float]:
    """``WIDTHxHEIGHT`` or ``WIDTHxHEIGHT:WEIGHT`` (a board of a training run, drawn by weight)."""
    board, _, weight = text.partition(":")
    width, height = _size(board)
    try:
        w = float(weight) if weight else 1.0
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{show(text)}: the weight after ':' must be a number"
        ) from None
    if not w > 0 or w == float("inf"):
        raise argparse.ArgumentTypeError(f"{show(text)}: the weight after ':' must be above 0")
    return width, height, w


_TRAIN_FLAGS = (
    "minutes", "iterations", "bootstrap", "expert_depth", "expert_eval", "bootstrap_steps",
    "games", "simulations", "steps", "batch", "lr", "buffer", "channels", "blocks",
    "eval_games", "eval_simulations", "seed",
)  # fmt: skip


def cmd_train(args: argparse.Namespace, console: Console) -> int:
    from dataclasses import replace

    from colorwars.zero.training import RunSettings, train

    args.rules_given = args.rules is not None
    settings = RunSettings(rules=args.rules or "colorwars")
    if args.board:
        settings = replace(settings, sizes=list(args.board))
    given = {k: getattr(args, k) for k in _TRAIN_FLAGS if getattr(args, k) is not None}
    settings = replace(settings, **given)
    if args.export:
        check_output(args.export, "network")
    named = set(given) | ({"rules"} if args.rules_given else set())
    named |= {"sizes"} if args.board else set()
    network = train(
        args.folder, settings, progress=not args.no_progress, log=note, given=named,
        threads=args.threads, start_from=args.start_from,
    )  # fmt: skip
    if args.export:
        network.save(args.export)
        note(f"network saved to {args.export}")
    info = network.info
    console.print(
        Text(
            f"{args.folder}: {info.get('games', 0):,} games, {info.get('positions', 0):,} "
            f"positions, {info.get('seconds', 0) / 60:.1f} minutes, {network.size:,} parameters"
        )
    )
    return 0


def cmd_ladder(args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    from colorwars.ladder import ladder
    from colorwars.players import parse_player

    if args.png:
        writable_output(args.png, (".png",), "picture")
    plt = require_matplotlib("--png") if args.png else None
    if args.json:
        writable_output(args.json, (".json",), "output")
    width, height = args.size
    players = [parse_player(name) for name in args.players]
    with _Bar(console, "ladder games") as bar:
        result = ladder(
            players, args.games, width, height, args.rules, args.time, args.seed,
            args.threads, progress=bar, backend=args.backend, address=args.address,
        )  # fmt: skip
    budget = f"{args.time:g} s a move" if args.time else "each player's own budget"
    table = Table(
        title=Text(
            f"ladder, {width}x{height} {result.rules.name}, {budget}, {args.games} games per "
            f"pair (both seats, shared random openings), {result.seconds:.0f} s"
        ),
        title_justify="left",
    )
    for name in ("player", "Elo", "95% interval", "score", "games"):
        table.add_column(name, justify="left" if name == "player" else "right")
    for i in result.order():
        lo, hi = result.interval[i]
        played = result.games[i].sum()
        table.add_row(
            result.names[i], f"{result.elo[i]:+.0f}", f"{lo:+.0f} to {hi:+.0f}",
            f"{result.wins[i].sum() / max(played, 1):.1%}", f"{played:.0f}",
        )  # fmt: skip
    console.print(table)
    _say_forfeits(console, result.forfeits)
    if args.json:
        import json

        from colorwars._files import digest

        body = result.to_json()
        check = digest(json.dumps(body, sort_keys=True).encode())
        with atomic_open(args.json, "output", "w") as f:
            json.dump({"format": "colorwars ladder 1", "blake2b": check, **body}, f, indent=2)
    if plt is not None:
        order = result.order()[::-1]
        fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(order) + 1.4), dpi=120)
        elo = [result.elo[i] for i in order]
        err = [
            [result.elo[i] - result.interval[i][0] for i in order],
            [result.interval[i][1] - result.elo[i] for i in order],
        ]
        ax.errorbar(elo, range(len(order)), xerr=err, fmt="o", capsize=4)
        ax.set_yticks(range(len(order)), [result.names[i] for i in order])
        ax.set_xlabel("Elo (mean 0), 95% interval")
        ax.set_title(f"{width}x{height} {result.rules.name}, {budget}")
        ax.grid(alpha=0.3, axis="x")
        fig.tight_layout()
        with atomic_open(args.png, "picture") as f:
            fig.savefig(f, format="png")
        plt.close(fig)
    return 0


def cmd_openings(args: argparse.Namespace, console: Console) -> int:
    from colorwars import ai
    from colorwars.players import parse_player

    width, height = args.size
    names = args.seats.split(",")
    if len(names) != 2:
        raise InvalidPlayerError(
            f"invalid seats {show(args.seats)}: give two players, seat a's and seat b's, "
            "e.g. greedy,mcts:200"
        )
    a = parse_player(args.old_a or names[0])
    b = parse_player(args.old_b or names[1])
    plt = None
    if args.png:
        plt = require_matplotlib("--png")  # before the games, not after them
        writable_output(args.png, (".png",), "heatmap")
    with _Bar(console, "opening cells") as bar:
        rates, counts = ai.opening_win_rates(
            a, b, args.games, width, height, args.rules, args.seed, args.threads, progress=bar,
            backend=args.backend, address=args.address,
        )  # fmt: skip
    console.print(
        Text(
            f"first player's win rate by opening cell, {width}x{height} {args.rules}, "
            f"{a.name} (seat a, first) against {b.name}, {args.games} games per cell"
        )
    )
    text = Text(" " * 3 + "".join(f"{column_name(x):>5}" for x in range(width)) + "\n")
    for y in range(height):
        text.append(f"{y + 1:>3}")
        for x in range(width):
            rate = float(rates[y, x])
            # Red for cells that lose for the first player, green for cells that win.
            red, green = int(255 * min(1, 2 * (1 - rate))), int(255 * min(1, 2 * rate))
            text.append(f" {rate * 100:3.0f}%", style=f"black on rgb({red},{green},60)")
        text.append("\n")
    console.print(text)
    best = np.unravel_index(int(rates.argmax()), rates.shape)
    worst = np.unravel_index(int(rates.argmin()), rates.shape)
    console.print(
        f"best opening {column_name(int(best[1]))}{int(best[0]) + 1} ({rates.max():.1%}), "
        f"worst {column_name(int(worst[1]))}{int(worst[0]) + 1} ({rates.min():.1%}); "
        f"{int(counts.sum()):,} finished games"
    )
    if args.png and plt is not None:
        fig, ax = plt.subplots(figsize=(1 + width, 1 + height))
        image = ax.imshow(rates, cmap="RdYlGn", vmin=0, vmax=1)
        for y in range(height):
            for x in range(width):
                ax.text(x, y, f"{rates[y, x]:.0%}", ha="center", va="center", fontsize=8)
        ax.set_xticks(range(width), [column_name(x) for x in range(width)])
        ax.set_yticks(range(height), [str(y + 1) for y in range(height)])
        ax.set_title(f"first player's win rate by opening\n{width}x{height} {args.rules}, "
                     f"{a.name} vs {b.name}", fontsize=9)  # fmt: skip
        fig.colorbar(image, ax=ax, fraction=0.046)
        fig.tight_layout()
        with atomic_open(args.png, "heatmap") as f:
            fig.savefig(f, format="png", dpi=120)
        plt.close(fig)
        console.print(Text(f"heatmap saved to {args.png}"))
    return 0


def _ask(game: Any, prompt: str) -> str:
    """One line from the human (a seam the tests replace)."""
    return input(prompt)


def cmd_conformance(args: argparse.Namespace, console: Console) -> int:
    """The conformance suite against colorwars or another engine: 0 every case passed, 1 any
    failed, 2 bad usage or a setup that fails before any case runs (the data, an engine that
    cannot be started), said in one line."""
    from colorwars import conformance

    try:
        return conformance.main(args)
    except ColorwarsError as e:
        _fail(_option_names(str(e)))
        return 2


def cmd_engine(args: argparse.Namespace, console: Console) -> int:
    """The engine protocol on stdin/stdout until ``quit`` or the end of the input."""
    from colorwars.engine import serve
    from colorwars.players import parse_player

    parse_player(args.player)  # a bad name is one line on stderr, before any protocol
    try:
        return serve(player=args.player)
    except FileError:  # stdout cannot be written (a full disk): said once, by main
        _stdout_to_devnull()  # what is still buffered goes nowhere, not to a second error
        raise


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    from colorwars.terminal import play

    try:
        typed = sys.stdin.isatty()
    except (AttributeError, ValueError):  # no stdin, or a closed one
        typed = False
    # Lines that are not typed at a terminal are echoed, so a transcript shows them.
    return play(args, console, lambda game, prompt: _ask(game, prompt), echo=not typed)


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    """The web app (``colorwars.web``) until Ctrl-C."""
    try:
        from colorwars.web import serve
    except ModuleNotFoundError as e:
        raise missing_extra(
            "web", f"colorwars serve needs the web extra ({e.name} is missing)", e.name
        ) from None

    def announce(line: str) -> None:
        if line.startswith("http"):
            line = f"playing at {line} (Ctrl-C stops)"
        console.print(Text(f"colorwars: {line}"), soft_wrap=True)

    serve(args.host, args.port, open_browser=args.open, announce=announce, db=args.db)
    # Every client has had its answer. A search abandoned at shutdown may still be running
    # natively in a worker thread; the interpreter must not be finalised under it (a native
    # thread coming back into a finalised interpreter can crash the process), so the process
    # ends here, its output flushed.
    if any(t.is_alive() and t.name.startswith("colorwars ") for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)
    return 0


class _Renamed(argparse.Action):
    """A flag's old name, hidden from ``--help``: it still works and says its new name on
    stderr."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        self.new = new
        kwargs["help"] = argparse.SUPPRESS
        super().__init__(*args, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        note(f"colorwars: {option_string} is deprecated, use {self.new}")
        setattr(namespace, self.dest, values)


def _text(text: str) -> str:
    """An option's text, refused when empty: ``--output ''`` quietly meant no output."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a value, not an empty text")
    return text


def _word(text: str) -> str:
    """A choice as given, its case and surrounding spaces aside (``--method PN``)."""
    return text.strip().lower()


class _Parser(argparse.ArgumentParser):
    """argparse, its usage errors said in one line (the usage block is one ``--help`` away),
    as every other error of the command line is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="colorwars",
        description="The fast, exact engine for Color Wars / Chain Reaction.",
    )
    parser.add_argument("--version", action="version", version=f"colorwars {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay = sub.add_parser(
        "replay",
        help="replay a game record, showing each move's cascade wave by wave",
        description="Replay a game record (see docs/api.md, 'Game records'), showing every "
        "move and the board after each wave of its cascade. The record's stated result and "
        "final position, where given, are checked.",
    )
    replay.add_argument("file", help="a game record, e.g. seeds/games/05-colorwars-5x5-2p.cwr")
    replay.add_argument(
        "--engine",
        type=_word,
        choices=("native", "reference"),
        default="native",
        help="which engine replays it (default: native)",
    )
    replay.add_argument(
        "--final-only", action="store_true", help="list moves and waves, draw only the end"
    )
    replay.add_argument("--quiet", action="store_true", help="only the final position")
    replay.set_defaults(run=cmd_replay)

    sim = sub.add_parser(
        "simulate",
        help="play many games natively on all cores and summarise them",
        description="Play many complete games natively (all cores, reproducible by seed) and "
        "print win rates with 95% intervals, game lengths and speed.",
    )
    sim.add_argument("--games", type=_games, default=100_000, help="how many games (100000)")
    sim.add_argument("--size", type=_size, default=(5, 5), help="WIDTHxHEIGHT (5x5)")
    sim.add_argument("--rules", default="colorwars", help="colorwars, classic or OPENING+BURST")
    sim.add_argument("--players", type=int, default=2, help="2 to 8 (2)")
    sim.add_argument(
        "--seats",
        default="random",
        metavar="LIST",
        help=f"each seat's player from seat a, comma-separated: {BATCH_PLAYER_NAMES}; or one "
        "for every seat (random)",
    )
    sim.add_argument("--policies", dest="seats", action=_Renamed, new="--seats")
    sim.add_argument("--first", type=parse_seat, default=0, help="who moves first: a-h (a)")
    sim.add_argument("--threads", type=int, default=0, help="0 for all cores (0)")
    sim.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    sim.add_argument("--max-plies", type=int, default=None, help="cut games off (no limit)")
    sim.add_argument("--output", type=_text, help="write per-game results to FILE.csv or FILE.json")
    sim.add_argument(
        "--record", action="store_true", help="keep every game's moves in --output F.json"
    )
    _backend_flags(
        sim, "local (this machine) or ray (shards on a Ray cluster; pip install 'colorwars[ray]')"
    )
    sim.add_argument("--shards", type=int, help="with --backend ray: how many shards")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(run=cmd_simulate)

    solve = sub.add_parser(
        "solve",
        help="solve a board exactly (two players, from the empty board)",
        description="By default (alpha-beta) the winner with perfect play, the game's length "
        "(the winner as fast as it can, the loser holding out) and a principal variation; "
        "results are cached. With --method pn, proof-number search proves the winner after "
        "each group of symmetric first moves (not the length), with progress on the terminal; "
        "with --method length, depth-bounded proof-number search proves the exact length. "
        "Without --method, the method is the one the options given are for (--time, "
        "--checkpoint and the like: pn; --start: length); an option the method does not take "
        "is an error. Exit status 3 if the position's winner was not proven in time.",
    )
    solve.add_argument("size", type=_size, help="WIDTHxHEIGHT, e.g. 3x3")
    solve.add_argument(
        "--rules", default="colorwars", help="colorwars (the default), classic or OPENING+BURST"
    )
    solve.add_argument(
        "--max-depth", type=int, help="alphabeta: give up beyond this many plies (200)"
    )
    solve.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    solve.add_argument(
        "--method",
        type=_word,
        choices=("alphabeta", "pn", "length"),
        help="alphabeta (exact length), pn (proof-number search: the winner) or length "
        "(depth-bounded proof-number search: the exact length, proven from both sides); by "
        "default the one the options given are for, alphabeta if none",
    )
    solve.add_argument("--time", type=float, help="pn, length: stop after this many seconds")
    solve.add_argument(
        "--memory", help="pn, length: the table's size, e.g. 8G (default by board, 16M to 4G)"
    )
    solve.add_argument(
        "--checkpoint",
        type=_text,
        help="pn: keep proofs and results in FILE; length: keep the table in FILE; a run "
        "resumes from it",
    )
    solve.add_argument(
        "--after",
        metavar="MOVES",
        help="pn: prove the position after these moves from the empty board, e.g. c3 or "
        "'c3 b2' (one group of first moves alone)",
    )
    solve.add_argument(
        "--save-every",
        type=float,
        metavar="SECONDS",
        help="save the checkpoint this often while searching (pn: 600; length: "
        "1800); 0: only at the end",
    )
    _backend_flags(solve, "pn: prove the first-move groups here or as Ray tasks")
    solve.add_argument(
        "--no-split", action="store_true", help="pn: prove the position, not each first move"
    )
    solve.add_argument(
        "--threads",
        type=int,
        help="pn: searchers sharing the table; 0 for one per core here, 1 per Ray task (0)",
    )
    solve.add_argument(
        "--verify",
        action="store_true",
        help="pn: walk each proof (read from --checkpoint, or just found) to the end of every "
        "game before it counts; length: walk the proof and the refutation of the length; the "
        "result says how many positions the walks took",
    )
    solve.add_argument(
        "--start",
        type=int,
        metavar="PLIES",
        help="length: the first bound tried (twice the cells); a length bracketed by "
        "earlier runs is proven and refuted without the searches around it",
    )
    solve.add_argument("--no-progress", action="store_true", help="no progress line")
    solve.add_argument(
        "--log-every",
        type=float,
        metavar="SECONDS",
        help="off a terminal (a log file, nohup): a progress line on stderr this often "
        "(60; 0: none)",
    )
    solve.set_defaults(run=cmd_solve)

    common = _Parser(add_help=False)
    common.add_argument("--size", type=_size, default=(5, 5), help="WIDTHxHEIGHT (5x5)")
    common.add_argument("--rules", default="colorwars", help="colorwars, classic or OPENING+BURST")
    common.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    common.add_argument("--threads", type=int, default=0, help="0 for all cores (0)")
    _backend_flags(common, "play here on all cores, or each match as a Ray task (the same games)")
    # The parser's own list (it had drifted from a copy here): learned is alpha-beta with the
    # learned evaluation, zero and zeroab the network's players, perfect proof search first.
    players_help = (
        PLAYER_NAMES + " (engine:COMMAND: another program that speaks the engine protocol)"
    )
    tour = sub.add_parser(
        "tournament",
        parents=[common],
        help="a round robin among players: win rates, 95%% intervals, Elo",
        description="Every pair of players plays --games games, half with each seat first.",
    )
    # A round robin has no seats (each pair plays both): its players are its entrants.
    tour.add_argument(
        "--entrants",
        default="random,greedy,alphabeta:3,mcts:1000",
        metavar="LIST",
        help=f"the players, comma-separated: {players_help}",
    )
    # The flag's old names (--players is a count in simulate and play).
    tour.add_argument("--policies", dest="entrants", action=_Renamed, new="--entrants")
    tour.add_argument("--players", dest="entrants", action=_Renamed, new="--entrants")
    tour.add_argument("--games", type=_games, default=100, help="games per pair (100)")
    tour.set_defaults(run=cmd_tournament)

    lad = sub.add_parser(
        "ladder",
        parents=[common],
        help="every pair of players at a fixed time a move: Bradley-Terry Elo, 95%% intervals",
        description="Every pair plays --games games, half with each player moving first, from "
        "shared random openings; --time seconds a move for every player whose name sets no "
        "budget. Players: " + players_help + ".",
    )
    lad.add_argument("players", nargs="+", metavar="PLAYER", help="two or more players")
    lad.add_argument("--time", type=float, default=None, help="seconds a move (each player's own)")
    lad.add_argument("--games", type=_even_games, default=20, help="games per pair, even (20)")
    lad.add_argument("--png", type=_text, help="save the ratings as a PNG (needs colorwars[plot])")
    lad.add_argument("--json", type=_text, help="save the results as JSON")
    lad.set_defaults(run=cmd_ladder)

    op = sub.add_parser(
        "openings",
        parents=[common],
        help="the first player's win rate for each opening cell, as a heatmap",
        description="For each cell, --games games whose first move is that cell, then played "
        "by the players of seat a (who moves first) and seat b; drawn in the terminal and "
        "optionally saved as a PNG.",
    )
    op.add_argument(
        "--seats",
        default="greedy,greedy",
        metavar="A,B",
        help=f"seat a's and seat b's players, e.g. greedy,mcts:200 ({BATCH_PLAYER_NAMES})",
    )
    # The flags' old names, kept working: --policies, and one seat's player each (``first``
    # is the seat that starts elsewhere, so it names no player here any more).
    op.add_argument("--policies", dest="seats", action=_Renamed, new="--seats")
    op.add_argument("--first", dest="old_a", action=_Renamed, new="--seats A,B")
    op.add_argument("--second", dest="old_b", action=_Renamed, new="--seats A,B")
    op.set_defaults(old_a=None, old_b=None)
    op.add_argument("--games", type=_games, default=200, help="games per opening cell (200)")
    op.add_argument("--png", type=_text, help="save the heatmap as a PNG (needs colorwars[plot])")
    op.set_defaults(run=cmd_openings)

    train = sub.add_parser(
        "train",
        help="train a network for colorwars.ai.Zero (needs colorwars[train])",
        description="Expert games of alpha-beta, then AlphaZero-style self-play iterations, "
        "in the run folder FOLDER: checkpointed after every iteration and every five minutes of "
        "expert games (run.ckpt), with the "
        "network (network.net) and the learning curve (curve.png). Running it again on the "
        "folder resumes the run; --minutes and --iterations may be raised to go on.",
    )
    train.add_argument("folder", metavar="FOLDER", help="the run folder (made if missing)")
    train.add_argument("--rules", default=None, type=_word, choices=("colorwars", "classic"))
    train.add_argument(
        "--board", action="append", type=_board_weight, metavar="WxH[:WEIGHT]",
        help="a board to train on, drawn by weight (repeat; the first is the one measured; "
        "default 5x5)",
    )  # fmt: skip
    for flag, kind, text in (
        ("minutes", float, "training minutes in all, earlier runs on the folder included (30)"),
        ("iterations", int, "self-play iterations at most (1000; 0: the expert bootstrap only)"),
        ("bootstrap", int, "expert games of alpha-beta against itself (2000)"),
        ("expert-depth", int, "the expert's alpha-beta depth (3)"),
        ("bootstrap-steps", int, "training steps on the expert games (3000)"),
        ("games", int, "self-play games per iteration (64)"),
        ("simulations", int, "PUCT simulations per self-play move (64)"),
        ("steps", int, "training steps per iteration (300)"),
        ("batch", int, "positions per training step (256)"),
        ("lr", float, "Adam's learning rate (0.002)"),
        ("buffer", int, "positions kept for training (150000)"),
        ("channels", int, "the network's channels (32)"),
        ("blocks", int, "the network's residual blocks (3)"),
        ("eval-games", int, "games against each fixed opponent per measurement (20)"),
        ("eval-simulations", int, "PUCT simulations per move when measuring (64)"),
        ("seed", int, "the run's seed (0)"),
    ):
        train.add_argument(f"--{flag}", type=kind, default=None, help=text)
    train.add_argument(
        "--expert-eval", default=None, type=_word, choices=("hand", "learned"),
        help="the expert's evaluation: alpha-beta's hand-made one or the learned one (hand)",
    )  # fmt: skip
    train.add_argument(
        "--threads", type=int, default=0,
        help="threads playing the expert games, 0 for all cores; the games are the same "
        "whatever the number (0)",
    )  # fmt: skip
    train.add_argument(
        "--start-from", metavar="RUN", type=_text, default=None,
        help="a new run that starts where the run folder RUN is (past its expert games): its "
        "network, optimiser and kept positions, its rules and network shape; this run then "
        "plays self-play iterations under its own settings",
    )  # fmt: skip
    train.add_argument("--export", metavar="PATH", help="also save the network to PATH")
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.set_defaults(run=cmd_train)

    engine = sub.add_parser(
        "engine",
        help="answer the engine protocol on stdin/stdout (for GUIs, bots, tournament managers)",
        description="Speak the colorwars-engine protocol on stdin and stdout: one command a "
        "line (protocol, isready, newgame, position, play, undo, legal, show, status, go, "
        "analyse, setoption, stop, quit), answered by info lines and one final line. See the "
        "docs' engine page for every command and a transcript. Ends at quit or the end of the "
        "input.",
    )
    engine.add_argument(
        "--player",
        default="alphabeta",
        metavar="PLAYER",
        help="the player that searches (alphabeta; setoption player=NAME changes it): "
        + players_help,
    )
    engine.set_defaults(run=cmd_engine)

    from colorwars import conformance

    conf = sub.add_parser(
        "conformance",
        help="run the conformance suite (rules cases, perft) against colorwars or an engine",
        description="Check an implementation against the conformance suite in "
        "seeds/conformance/: colorwars itself (the native engine, or --reference), or any "
        "program that speaks the engine protocol (--engine CMD). One line per failing case "
        "and a summary; exit status 0 when every case passes, 1 when any fails, 2 for bad "
        "usage, unreadable data or an engine that cannot be started. See the docs' "
        "conformance page.",
    )
    conformance.add_arguments(conf)
    conf.set_defaults(run=cmd_conformance)

    play = sub.add_parser(
        "play",
        help="play a game in the terminal: 2 to 8 players, each seat a human or an AI",
        description="Play in the terminal, on any board and rules the engine allows, with 2 "
        "to 8 players, each seat a human (hot-seat) or an AI player. Type a cell (c3, or its "
        "number) or a command: hint, undo (back to the previous human turn), moves, position, "
        "board, save FILE, rules, help, quit. On a terminal the game is one screen redrawn in "
        "place: the board in colour with loaded cells marked !, each cascade animated wave by "
        "wave, and a rematch offered at the end; piped, the game is plain text.",
    )
    play.add_argument(
        "--size",
        type=_size,
        default=(5, 5),
        metavar="WxH",
        help="WIDTHxHEIGHT, each side 2 to 32 (5x5; the web game's presets are 5x5, 6x6, 8x8 "
        "and 8x10)",
    )
    play.add_argument("--rules", default="colorwars", help="colorwars, classic or OPENING+BURST")
    play.add_argument(
        "--players", type=_count, metavar="N", help="2 to 8 (the number of --seats, else 2)"
    )
    play.add_argument(
        "--first", type=parse_seat, default=0, metavar="P", help="who moves first: a-h (a)"
    )
    play.add_argument(
        "--seats",
        metavar="LIST",
        help="each seat's player from seat a, comma-separated: human, ai, or any player "
        "--opponent takes (alpha-beta, learned, zero and zeroab: two players only; perfect "
        "plays its fallback with more); or one for every seat, e.g. human for a hot-seat game. "
        "Default: you (--you) against --opponent",
    )
    play.add_argument(
        "--opponent",
        type=_text,
        metavar="PLAYER",
        help="the AI in every seat but yours: ai (the default) thinks about a second a move "
        "on any board (alpha-beta with the learned evaluation for two players, MCTS for "
        "more), where a fixed budget's time "
        "grows with the board (see the docs' performance page); or " + players_help,
    )
    play.add_argument("--you", type=parse_seat, metavar="P", help="your seat: a-h (a)")
    play.add_argument(
        "--hint",
        type=_text,
        metavar="PLAYER",
        help="the player that answers 'hint' (ai), as --opponent",
    )
    play.add_argument(
        "--delay",
        type=float,
        metavar="SECONDS",
        help="seconds per wave of the animation on a terminal; 0 for none (0.25)",
    )
    play.add_argument(
        "--save",
        type=_text,
        metavar="FILE",
        help="write the game record to FILE when the game ends",
    )
    play.add_argument(
        "--seed", type=_count, metavar="S", help="the AI players' seed (a new one each game)"
    )
    play.set_defaults(run=cmd_play)

    serve = sub.add_parser(
        "serve",
        help="play in a web browser (needs colorwars[web])",
        description="Serve the game as a web page and a JSON API (see docs/web.md). "
        "Listens on 127.0.0.1 (this machine only) unless told otherwise.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_count, default=8000, help="port, 0 for any free one (8000)")
    serve.add_argument("--open", action="store_true", help="open the page in a browser")
    serve.add_argument(
        "--db",
        type=_text,
        metavar="PATH",
        default=None,
        help="the SQLite file the games are kept in (web-games.sqlite3 in the user's data folder)",
    )
    serve.set_defaults(run=cmd_serve)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that a run stops as Ctrl-C stops it: files being
    written are left as they were (``colorwars._files``) and one line says so."""


class _Console(Console):
    """A console that reports a closed pipe (``colorwars ... | head -1``) as
    ``BrokenPipeError`` to ``main``, rather than rich's own exit with status 1."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def _fail(message: str) -> None:
    """One line on stderr: no traceback, no markup interpretation of the message."""
    line = " ".join(message.split())  # one line, whatever the message held
    with contextlib.suppress(BrokenPipeError):  # stderr a closed pipe too: nothing to say
        _Console(stderr=True, highlight=False).print(
            Text.assemble(("error: ", "red"), line), soft_wrap=True
        )


class _ClosedStream(io.RawIOBase):
    """A standard stream the command was started without (``colorwars engine >&-``):
    Python gives ``None`` for it, which no command expects. Every read and write fails, as
    on the closed descriptor, with an ``OSError`` that names the stream, so the command's
    own handling of an output it cannot write (or an input it cannot read) says so."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise OSError(errno.EBADF, "it is closed", self._name)

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, "it is closed", self._name)


def _tolerant_streams() -> None:
    """stdout and stderr write what their encoding cannot hold as escapes (``\\xe9``)
    instead of failing: a note in a record, a player's name, on an ASCII terminal
    (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``). A closed stdin or stdout reads and writes
    as ``_ClosedStream``; with stderr closed there is nobody to tell, and errors go nowhere."""
    if sys.stdin is None:
        sys.stdin = io.TextIOWrapper(_ClosedStream("standard input"))
    if sys.stdout is None:
        sys.stdout = io.TextIOWrapper(_ClosedStream("standard output"), write_through=True)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the life of the process)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "\u00e9\u2014\U0001f3b2".encode(encoding, getattr(stream, "errors", None) or "strict")
        except (UnicodeError, LookupError):
            if reconfigure is not None:
                with contextlib.suppress(Exception):
                    reconfigure(errors="backslashreplace")


# The Python names of settings the command line gives as options of other names, as errors
# name them ("invalid max_plies 0" for --max-plies 0).
_OPTION_NAMES = {
    "max_plies": "--max-plies",
    "games_per_pair": "--games",
    "save_every": "--save-every",
    "max_depth": "--max-depth",
}


def _option_names(message: str) -> str:
    """An error's message with a setting's Python name given as the option's."""
    return re.sub(
        r"^invalid (" + "|".join(_OPTION_NAMES) + r")\b",
        lambda m: f"invalid {_OPTION_NAMES[m[1]]}",
        message,
    )


def _stdout_to_devnull() -> None:
    """Points stdout at devnull, so that the exit's flush of an output that cannot be written
    (a closed pipe, a full disk) does not fail again (Python's recipe)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _closed_pipe() -> int:
    """The end of a run whose output pipe was closed early: quietly, stdout pointed at
    devnull, with the status of a program that SIGPIPE stopped (128 + 13)."""
    _stdout_to_devnull()
    return 128 + signal.SIGPIPE


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _negative_values(argv: list[str]) -> list[str]:
    """``--memory -5G`` as ``--memory=-5G``: argparse takes a value that starts with ``-``
    for an option unless it is a plain number, and said only "expected one argument"; the
    option's own check then says what is allowed."""
    out: list[str] = []
    for token in argv:
        previous = out[-1] if out else ""
        if (
            re.fullmatch(r"-[0-9.]\S*", token)
            and not re.fullmatch(r"-[0-9]+|-[0-9]*\.[0-9]+", token)
            and re.fullmatch(r"--[a-z][a-z0-9-]*", previous)
        ):
            out[-1] = f"{previous}={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status: 0 done, 1 an error (one line on
    stderr), 2 bad usage (argparse) or a file that cannot be read or written, 130
    interrupted by Ctrl-C, 143 stopped by SIGTERM, 141 (quietly) when the output is a pipe
    closed early (``colorwars ... | head -1``)."""
    _tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(
        _negative_values(sys.argv[1:] if argv is None else list(argv))
    )  # argparse itself ignores a closed pipe for --help
    console = _Console(highlight=False)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        _ray_only(args)
        code: int = args.run(args, console)
        sys.stdout.flush()  # a closed pipe shows here rather than at the exit
    except BrokenPipeError:
        return _closed_pipe()
    except KeyboardInterrupt as e:
        what = "terminated" if isinstance(e, Terminated) else "interrupted"
        _fail(f"{what}: {e}" if str(e) else what)
        return 143 if isinstance(e, Terminated) else 130
    except FileError as e:
        _fail(str(e))
        return 2
    except ColorwarsError as e:
        _fail(_option_names(str(e)))
        return 1
    except MemoryError as e:
        _fail(f"out of memory: {e}" if str(e) else "out of memory")
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        _fail(f"{where}{e.strerror or e}")
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return code


if __name__ == "__main__":
    sys.exit(main())
