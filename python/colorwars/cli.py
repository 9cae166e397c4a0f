"""The ``colorwars`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from colorwars._common import PLAYER_LETTERS, column_name
from colorwars.errors import ColorwarsError
from colorwars.record import GameFactory, GameRecord

# One colour per player, in seat order.
PLAYER_STYLES = ("bold red", "bold blue", "bold green", "bold yellow",
                 "bold magenta", "bold cyan", "bold white", "bold bright_black")  # fmt: skip


def board_text(
    width: int, counts: Sequence[int], owners: Sequence[int], bursts: Sequence[int] = ()
) -> Text:
    """The board in colour; cells that just burst are underlined."""
    height = len(counts) // width
    label = len(str(height))
    text = Text(" " * label + "".join(f" {column_name(x):>2}" for x in range(width)) + "\n")
    burst_set = set(bursts)
    for y in range(height):
        if y:
            text.append("\n")
        text.append(f"{y + 1:>{label}} ")
        for x in range(width):
            i = y * width + x
            if x:
                text.append(" ")
            if counts[i] == 0:
                text.append(" .", style="underline dim" if i in burst_set else "dim")
            else:
                style = PLAYER_STYLES[owners[i]] + (" underline" if i in burst_set else "")
                text.append(f"{counts[i]}{PLAYER_LETTERS[owners[i]]}", style=style)
    return text


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    path = Path(args.file)
    try:
        record = GameRecord.parse(path.read_text(encoding="utf-8"))
    except OSError as e:
        console.print(f"[red]cannot read {path}: {e.strerror}[/red]")
        return 2
    engine: GameFactory | None = None
    if args.engine == "reference":
        from colorwars.reference import Game as ReferenceGame

        engine = ReferenceGame
    console.print(
        f"[bold]{path.name}[/bold]: {record.width}x{record.height} {record.rules.name}, "
        f"{record.players} players, {PLAYER_LETTERS[record.first]} first, "
        f"{len(record.moves)} moves"
    )
    if record.note:
        console.print(f"[italic]{record.note}[/italic]")
    game = record.new_game(engine)
    number = 0
    for game, cell, mover in record.steps(engine):
        number += 1
        waves = game.waves()
        if args.quiet:
            continue
        console.print(
            f"\n[bold]{number}.[/bold] player [{PLAYER_STYLES[mover]}]"
            f"{PLAYER_LETTERS[mover]}[/] plays {game.cell_name(cell)}"
            + (f": {len(waves)} wave{'s' * (len(waves) != 1)}" if waves else "")
        )
        for k, wave in enumerate(waves, 1):
            names = " ".join(game.cell_name(c) for c in wave.bursts)
            console.print(f"  wave {k}: {names} burst")
            if not args.final_only:
                console.print(board_text(record.width, wave.counts, wave.owners, wave.bursts))
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
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 5x5")
    return int(width), int(height)


def _player(text: str) -> int:
    if len(text) == 1 and text in PLAYER_LETTERS:
        return PLAYER_LETTERS.index(text)
    if text.isdigit() and int(text) < len(PLAYER_LETTERS):
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a player (a to h, or 0 to 7)")


def cmd_simulate(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    from colorwars.simulation import simulate

    width, height = args.size
    if args.output and not args.output.lower().endswith((".csv", ".json")):
        Console(stderr=True).print(f"[red]error:[/red] --output {args.output}: use .csv or .json")
        return 1
    policies = args.policies.split(",")
    if len(policies) == 1:
        policies = policies * args.players
    kwargs = {
        "games": args.games, "width": width, "height": height, "players": args.players,
        "rules": args.rules, "policies": policies, "seed": args.seed, "threads": args.threads,
        "max_plies": args.max_plies, "first": args.first, "backend": args.backend,
        "address": args.address, "shards": args.shards,
        "record": bool(args.record and args.output and args.output.endswith(".json")),
    }  # fmt: skip
    show_bar = not args.no_progress and console.is_terminal and args.games >= 50_000
    if args.backend == "local" and (args.address or args.shards):
        Console(stderr=True).print("[red]error:[/red] --address and --shards need --backend ray")
        return 1
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
        title = (
            f"{s['games']:,} games, {s['board']} {s['rules']}, {s['players']} players, "
            f"seed {s['seed']}"
        )
        table = Table(title=title, title_justify="left")
        for name in ("seat", "policy", "wins", "win rate", "95% interval"):
            table.add_column(name, justify="left" if name in ("seat", "policy") else "right")
        for seat in range(s["players"]):
            lo, hi = s["win_rate_ci95"][seat]
            table.add_row(
                PLAYER_LETTERS[seat] + (" (first)" if seat == result.first else ""),
                s["policies"][seat],
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
                else f"{'all cores' if not args.threads else args.threads})"
            )
        )
    if args.output:
        result.write(args.output)
        console.print(f"per-game results written to {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="colorwars",
        description="The fast, exact engine for Color Wars / Chain Reaction.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay = sub.add_parser(
        "replay",
        help="replay a game record, showing each move's cascade wave by wave",
        description="Replay a game record (see the README's 'Game records'), showing every "
        "move and the board after each wave of its cascade. The record's stated result and "
        "final position, where given, are checked.",
    )
    replay.add_argument("file", help="a game record, e.g. seeds/games/colorwars-5x5-01.cwr")
    replay.add_argument(
        "--engine",
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
        "print win rates with 95%% intervals, game lengths and speed.",
    )
    sim.add_argument("--games", type=int, default=100_000, help="how many games (100000)")
    sim.add_argument("--size", type=_size, default=(5, 5), help="WIDTHxHEIGHT (5x5)")
    sim.add_argument("--rules", default="colorwars", help="colorwars, classic or OPENING+BURST")
    sim.add_argument("--players", type=int, default=2, help="2 to 8 (2)")
    sim.add_argument(
        "--policies",
        default="random",
        help="random or greedy, one for all seats or a comma list per seat (random)",
    )
    sim.add_argument("--first", type=_player, default=0, help="who moves first: a-h (a)")
    sim.add_argument("--threads", type=int, default=0, help="0 for all cores (0)")
    sim.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    sim.add_argument("--max-plies", type=int, default=None, help="cut games off (no limit)")
    sim.add_argument("--output", help="write per-game results to FILE.csv or FILE.json")
    sim.add_argument(
        "--record", action="store_true", help="with a .json output: include every game's moves"
    )
    sim.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local (this machine) or ray (shards on a Ray cluster; pip install 'colorwars[ray]')",
    )
    sim.add_argument("--address", help="with --backend ray: the cluster (default: start one)")
    sim.add_argument("--shards", type=int, help="with --backend ray: how many shards")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(run=cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    try:
        code: int = args.run(args, console)
    except ColorwarsError as e:
        Console(stderr=True, highlight=False).print(f"[red]error:[/red] {e}")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
