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
