"""The terminal game (``colorwars play``): 2 to 8 players, each seat a human or an AI player,
on any board and rules the engine allows; cascades animated wave by wave in place; hint, undo,
the move list, the position and the game record.

On a terminal the game is one screen redrawn in place (rich's live display): the board, in
colour (each player's colour, and a second difference beyond hue: plain letters or a coloured
block, bold, underlined or italic; the player's letter is always written), with every loaded
cell marked ``!`` (one more orb bursts it, as the web page's dashed outline says), and under it
the status, the last move and the recent messages; each move's cascade is drawn wave by wave in
the same place. ``rules`` sums up the game's rule set, and a finished game offers a rematch
(the same settings, or the seats swapped). A terminal too small for that screen gets the
scrolling game, in colour. When standard output is not a terminal the game is plain text, with
no animation, no control codes and no rematch, so it can be piped and tested::

    $ printf 'c3\\nmoves\\nquit\\n' | colorwars play --opponent greedy --seed 1
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.control import Control
from rich.live import Live
from rich.segment import ControlType
from rich.text import Text

from colorwars import _validate as check
from colorwars._board_style import BURST, LAST, PLAYER_STYLES, board_text
from colorwars._common import PLAYER_COLOURS, PLAYER_LETTERS, board_layout, column_name
from colorwars._files import atomic_write
from colorwars.errors import (
    ColorwarsError,
    ConfigError,
    FileError,
    InvalidMoveError,
    InvalidPlayerError,
    show,
)
from colorwars.game import Game
from colorwars.players import MCTS, Player, parse_player
from colorwars.record import GameRecord
from colorwars.rules import GameConfig, Rules
from colorwars.strongest import strongest

__all__ = [
    "AI",
    "DEFAULT_DELAY",
    "HUMAN",
    "LOADED",
    "MAX_DELAY",
    "PLAYER_STYLES",
    "Setup",
    "TerminalGame",
    "board_text",
    "default_ai",
    "live_board",
    "play",
    "rules_summary",
    "setup",
]

HUMAN = "human"
AI = "ai"  # the default AI player, see default_ai()
# The default AI's thinking time a move. A time budget answers in about a second on every
# board, where a fixed budget's time grows with the board (the docs' performance page).
AI_SECONDS = 1.0
DEFAULT_DELAY = 0.25  # seconds per animation frame (one wave)
MAX_DELAY = 10.0
MOVES_WIDTH = 80  # the move list's lines are at most this wide

COMMANDS = (
    "Type a cell (c3, or its number) or a command: hint (a suggested move), undo (back to the "
    "previous human turn), moves (the move list), position (the notation), board, "
    "save FILE (the game record), rules, help, quit."
)
LOADED = "!"  # written after a loaded cell: one more orb bursts it
HINT = "?"  # written before the cell the hint suggests
REMATCH = "Rematch? [y/N/s(wap seats)] "
REMATCH_ANSWERS = "answer y (a rematch), s (a rematch with the seats swapped) or n (no)"
# The live screen's lines besides the board's and the messages': the title, the status, the
# last move, the legend and the prompt's line; and two spare lines for a typed answer.
SCREEN_LINES = 5
SPARE_LINES = 2


def default_ai(
    players: int,
    rules: str | Rules | None = None,
    width: int | None = None,
    height: int | None = None,
) -> Player:
    """The default AI (``ai``) and hint: the strongest at about a second a move for the game
    (``colorwars.strongest``; docs/learned.md, "Where people play", gives the matches): Zero
    for two players on classic boards of sides up to 12, alpha-beta with the learned
    evaluation for two players otherwise, MCTS for more. Without the board and rules, the
    choice for two players is alpha-beta with the learned evaluation."""
    return cast(Player, strongest(players, rules, width, height, time=AI_SECONDS))


def _letter(seat: int) -> Text:
    return Text(PLAYER_LETTERS[seat], style=PLAYER_STYLES[seat])


def _one_line(text: str) -> str:
    """Text safe to print as one line: no line breaks, and escapes for what is not printable
    (control codes, the surrogate escapes of a line that was not UTF-8)."""
    words = " ".join(text.split())
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in words)


@dataclass(frozen=True)
class Setup:
    """A terminal game's options, checked: the board, the players of the seats (``None`` for
    a human seat), the hint player, the animation delay, the record file and the seed."""

    width: int
    height: int
    rules: Rules
    first: int
    seats: tuple[Player | None, ...]
    hint: Player
    delay: float = DEFAULT_DELAY
    save: Path | None = None
    seed: int = 0

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def humans(self) -> int:
        return sum(p is None for p in self.seats)


def _player(name: str, config: GameConfig) -> Player:
    """An AI player from its name: ``ai`` (the default for the game, ``default_ai``) or a
    player name (``parse_player``)."""
    if name.strip().lower() == AI:
        return default_ai(config.players, config.rules, config.width, config.height)
    return parse_player(name)


def _writable(name: str) -> Path:
    """A record file that can be written: checked before the game, not after it."""
    path = Path(name)
    if path.is_dir():
        raise ConfigError(f"record file {show(name)} is a folder")
    folder = show(str(path.parent))
    if not path.parent.is_dir():
        raise ConfigError(f"record file {show(name)}: the folder {folder} does not exist")
    if not os.access(path.parent, os.W_OK):
        raise ConfigError(f"record file {show(name)}: the folder {folder} is not writable")
    return path


def setup(
    size: tuple[int, int] = (5, 5),
    rules: str | Rules = "colorwars",
    players: int | None = None,
    first: int = 0,
    seats: str | None = None,
    opponent: str | None = None,
    you: int | None = None,
    hint: str | None = None,
    delay: float | None = None,
    save: str | None = None,
    seed: int | None = None,
) -> Setup:
    """Checks a terminal game's options (``colorwars play``'s flags): every argument through
    ``colorwars._validate``, every AI player through the native engine's own check.

    ``seats`` names each seat's player, comma-separated (``human``, ``ai`` or a player name),
    or one name for every seat; without it, ``you`` (seat a by default) is the human and
    every other seat is ``opponent`` (``ai`` by default). ``players`` defaults to the number
    of seats named, else 2."""
    names = [s.strip().lower() for s in seats.split(",")] if seats is not None else None
    if names is not None and (opponent is not None or you is not None):
        raise ConfigError(
            "give --seats (every seat's player) or its shorthands --opponent and --you, not both"
        )
    if players is None:
        players = len(names) if names is not None and len(names) > 1 else 2
    # A seat typed by letter, named as typed ("--first c", not "first player 2").
    check.seat_given("--first", first, players)
    if you is not None:
        check.seat_given("--you", you, players)
    config = check.config(size[0], size[1], players, rules, first)
    n = config.players
    if names is None:
        human = check.seat(0 if you is None else you, n, "seat (--you)")
        names = [HUMAN if s == human else (opponent or AI) for s in range(n)]
    elif len(names) == 1:
        names = names * n
    elif len(names) != n:
        raise InvalidPlayerError(
            f"invalid seats {show(seats)}: {len(names)} given for {n} players; give one "
            "player for all the seats, or one for each seat (human, ai, random, greedy, "
            "mcts, alphabeta, learned, zero, zeroab, perfect, or engine:COMMAND)"
        )
    chosen = tuple(None if name == HUMAN else _player(name, config) for name in names)
    helper = _player(hint or AI, config)
    # The native engine checks that each player can play this game (alpha-beta: two players
    # only); a match of no games runs exactly that check. The hint plays for human seats.
    # Zero (a Python player) checks that a network fits the game.
    from colorwars.ai import Zero, match
    from colorwars.zero.player import ZeroAlphaBeta

    learned = (Zero, ZeroAlphaBeta)
    probe = Game(config.width, config.height, config.players, config.rules)
    for p in (helper, *chosen):
        if isinstance(p, learned):
            p.network_for(probe)
    natives = [helper if p is None or isinstance(p, learned) else p for p in chosen]
    if isinstance(helper, learned):
        natives = [p for p in natives if not isinstance(p, learned)]
        natives += [MCTS(simulations=1)] * (n - len(natives))  # plays any game: a seat filler
    match(natives, 0, config.width, config.height, config.rules)
    return Setup(
        width=config.width,
        height=config.height,
        rules=config.rules,
        first=config.first,
        seats=chosen,
        hint=helper,
        delay=DEFAULT_DELAY if delay is None else check.number(delay, "delay", 0.0, MAX_DELAY),
        save=None if save is None else _writable(save),
        seed=secrets.randbits(64) if seed is None else check.seed(seed),
    )


Ask = Callable[[Game, str], str]


def rules_summary(rules: Rules) -> list[str]:
    """A short summary of a rule set, one rule a line, in the words of the rules document
    (seeds/RULES.md): the board, the moves of its opening, its burst, capture, waves, the end."""
    lines = [
        f"the rules: {rules.name} (opening {rules.opening}, burst {rules.burst}; RULES.md)",
        "- Cells touch their neighbours beside, above and below them (no diagonals). A cell "
        "holds one orb fewer than it has neighbours: 1 in a corner, 2 on an edge, 3 inside; "
        "one orb more and it bursts.",
    ]
    if rules.opening == "drop3":  # RULES.md §2, the opening cell
        lines.append(
            "- Your first move drops three orbs on an empty cell; the drop never bursts, even "
            "in a corner. Every later move adds one orb to a cell of your own."
        )
    else:
        lines.append("- Every move adds one orb to an empty cell or to a cell of your own.")
    if rules.burst == "empty":
        lines.append(
            "- A burst sends one orb to each neighbour and empties the cell: orbs beyond one "
            "a neighbour vanish."
        )
    else:
        lines.append(
            "- A burst sends one orb to each neighbour and takes as many from the cell: any "
            "orbs beyond that stay in it."
        )
    lines += [
        "- Every cell a burst reaches becomes the mover's, with the orbs it held. Cells made "
        "too full burst in turn, in waves, until the board is still.",
        "- Once everyone has moved, a player with no orbs is out; the last player with orbs "
        "wins. No draws, no passing.",
    ]
    return lines


def _capacity(width: int, height: int, cell: int) -> int:
    """The most orbs a cell holds at rest: one fewer than its neighbours (RULES.md §1)."""
    x, y = cell % width, cell // width
    return (x > 0) + (x < width - 1) + (y > 0) + (y < height - 1) - 1


def live_board(
    width: int, counts: Sequence[int], owners: Sequence[int], marks: Mapping[int, str] = {}
) -> Text:
    """The live screen's board: as ``board_text`` (``marks`` in the gap before a cell, a
    bursting cell in reverse), and a loaded cell, one orb from bursting (as the web page's
    dashed outline: as many orbs as its capacity, or more), followed by ``!`` in its owner's
    colour and drawn underlined, so the cue does not rest on colour alone."""
    height = len(counts) // width
    _, rows = board_layout(width, counts, owners)
    label = len(str(height))
    text = Text(" " * label + "".join(f"  {column_name(x):>2} " for x in range(width)).rstrip())
    for row, cells in rows:
        text.append("\n" + row[:-1])
        for i, cell, owner in cells:
            text.append(" ")
            mark = marks.get(i, " ")
            loaded = owner >= 0 and counts[i] >= _capacity(width, height, i)
            style = "dim" if owner < 0 else PLAYER_STYLES[owner]
            if mark == BURST:
                style += " reverse"
            elif loaded:
                style += " underline"
            text.append(mark, style="bold" if mark != " " else "")
            text.append(cell, style=style)
            text.append(LOADED if loaded else " ", style=f"bold {PLAYER_COLOURS[owner]}")
    return text


class _Screen:
    """The live screen: one frame redrawn in place by rich's ``Live``. A frame ends with an
    empty line, where the prompt of a question is written; ``typed`` is told what a human's
    answer added below the frame (the terminal echoes it and its Enter), so the next redraw
    starts from the frame's own last line again."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = Live(
            Text(""),
            console=console,
            auto_refresh=False,  # redrawn when something changes, from this thread only
            redirect_stdout=False,  # input() writes its prompt itself
            redirect_stderr=False,
            vertical_overflow="crop",
        )
        self.live.start()
        console.show_cursor(True)  # Live hides it; a human types under the frame

    def draw(self, frame: RenderableType) -> None:
        self.live.update(frame, refresh=True)

    def typed(self, line: str | None) -> None:
        """After a question: ``line`` is the prompt and the answer as the terminal showed
        them (it wraps them at its width and moves to the next line), None if nothing was
        shown (an answer read from a pipe, or the end of input)."""
        if line is None:
            return
        below = max(1, -(-cell_len(line) // self.console.width))
        self.console.control(
            Control(
                ControlType.CARRIAGE_RETURN,
                (ControlType.ERASE_IN_LINE, 2),
                *(((ControlType.CURSOR_UP, 1), (ControlType.ERASE_IN_LINE, 2)) * below),
            )
        )

    def close(self, frame: RenderableType) -> None:
        """The last frame stays on the screen; what is printed next goes under it."""
        self.live.update(frame)
        self.live.stop()


@dataclass(frozen=True)
class _Played:
    mover: int
    cell: int
    waves: int


def start_holding_ctrl_c(thread: threading.Thread) -> None:
    """Starts ``thread`` (from the main thread) with Ctrl-C held until it has started, then
    raised: raised inside ``Thread.start``'s wait, it broke the lock there ("release
    unlocked lock", a traceback) instead of ending the game in one line."""
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        thread.start()
    finally:
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )
    if held:
        raise KeyboardInterrupt


class TerminalGame:
    """One game in the terminal, and its rematches: ``run()`` plays until the game is over
    and no rematch is wanted (or ``quit``, or the end of input) and returns the exit status.
    ``ask(game, prompt)`` reads a human's line; ``echo`` writes each line read back (for input
    that is not typed on a terminal, so a transcript shows it).

    On a terminal large enough (``live``) the game is one screen redrawn in place: what the
    transcript would print goes to the screen's recent messages instead (a batch too long for
    them is printed above the screen), and the board is always shown."""

    def __init__(self, setup: Setup, console: Console, ask: Ask, echo: bool = False) -> None:
        self.setup = setup
        self.console = console
        self.ask = ask
        self.echo = echo
        self.game = Game(setup.width, setup.height, setup.players, setup.rules, setup.first)
        self.played: list[_Played] = []
        self.number = 1  # the game's number: rematches count on
        self.first_setup = setup
        self.screen: _Screen | None = None
        self.messages: list[Text] = []
        self.shown = 0  # messages already drawn on the screen (or printed above it)
        self.status: Text | None = None  # the screen's status line, when not the default
        self.hint: int | None = None  # the cell the last hint suggested, marked on the board
        self.ended = False  # the end of input was read

    # -- output ----------------------------------------------------------------------------
    def print(self, *parts: str | Text, style: str = "") -> None:
        """One line; strings are plain text, never markup."""
        self.emit(Text.assemble(*parts, style=style))

    def emit(self, line: Text) -> None:
        """A line of the transcript: printed, or on the live screen one of its messages."""
        if self.screen is None:
            self.console.print(line, soft_wrap=True)
        else:
            self.messages.append(line)

    def label(self, seat: int) -> str:
        player = self.setup.seats[seat]
        if player is None:
            return "you" if self.setup.humans == 1 else HUMAN
        return player.name

    def who(self, seat: int) -> Text:
        """``greedy (b)``: the seat's player and its letter in its style."""
        return Text.assemble(self.label(seat), " (", _letter(seat), ")")

    def board(self, marks: Mapping[int, str] = {}) -> Text:
        return board_text(self.setup.width, self.game.counts(), self.game.owners(), marks)

    def show_board(self) -> None:
        if self.screen is not None:
            self.refresh()
            return
        last = self.game.peek()
        self.console.print(self.board({} if last is None else {last: LAST}), soft_wrap=True)

    def title(self) -> Text:
        """``5x5 colorwars, 2 players, a moves first: a you, b greedy``."""
        s = self.setup
        parts: list[str | Text] = [
            f"{s.width}x{s.height} {s.rules.name}, {s.players} players, ",
            _letter(s.first),
            " moves first:",
        ]
        for seat in range(s.players):
            parts += [" " if seat == 0 else ", ", _letter(seat), f" {self.label(seat)}"]
        if self.number > 1:
            parts.append(f" (game {self.number})")
        return Text.assemble(*parts)

    def intro(self) -> None:
        if self.screen is None:
            self.emit(self.title())
        if self.setup.humans and self.number == 1:
            self.print(COMMANDS)

    @property
    def animate(self) -> bool:
        """Waves are drawn in place on a terminal tall and wide enough for the board."""
        c = self.console
        lines = self.setup.height + 2
        columns = len(str(self.setup.height)) + 3 * self.setup.width
        return (
            self.setup.delay > 0
            and c.is_terminal
            and not c.is_dumb_terminal
            and lines < c.height
            and columns < c.width
        )

    @property
    def live(self) -> bool:
        """The game is one screen redrawn in place: on a terminal with room for the screen's
        lines, the board and at least one message, and as wide as the board."""
        c = self.console
        lines = SCREEN_LINES + self.setup.height + 1 + 1 + SPARE_LINES
        columns = len(str(self.setup.height)) + 5 * self.setup.width
        return c.is_terminal and not c.is_dumb_terminal and lines <= c.height and columns < c.width

    # -- the live screen -------------------------------------------------------------------
    def head(self, board: Text | None = None, status: Text | None = None) -> list[Text]:
        """The live screen's top: the title, the board (the game's, marked, unless given),
        the status, the last move and the legend."""
        g = self.game
        if board is None:
            marks = {} if self.hint is None else {self.hint: HINT}
            last = g.peek()
            if last is not None:
                marks[last] = LAST
            board = live_board(self.setup.width, g.counts(), g.owners(), marks)
        if status is None:
            status = self.status or self.status_line()
        if self.played:
            p = self.played[-1]
            waves = f": {p.waves} wave{'s' * (p.waves != 1)}" if p.waves else ""
            label = self.label(p.mover)
            verb = "play" if label == "you" else "plays"
            last_move = Text.assemble(
                f"last: {len(self.played)}. (", _letter(p.mover), f") {label} {verb} ",
                f"{g.cell_name(p.cell)}{waves}",
            )  # fmt: skip
        else:
            last_move = Text("last: no moves yet")
        legend = Text(
            f"{LAST} last move  {BURST} bursting  {LOADED} loaded: one more orb bursts it  "
            f"{HINT} hint; rules, help",
            style="dim",
        )
        return [self.title(), board, status, last_move, legend]

    def lines(self, text: Text) -> int:
        """The lines ``text`` takes on the terminal, wrapped at its width."""
        return len(text.wrap(self.console, self.console.width))

    def room(self, head: Sequence[Text]) -> int:
        """The lines left for the messages under ``head``: the prompt's line and two spare
        lines (a typed answer that wraps) kept, so the screen never scrolls."""
        used = sum(self.lines(t) for t in head)
        return self.console.height - used - 1 - SPARE_LINES

    def frame(
        self, board: Text | None = None, status: Text | None = None, prompt: bool = True
    ) -> RenderableType:
        """The live screen: its head (``head``), the newest messages that fit, and the
        empty line a question's prompt is written on."""
        head = self.head(board, status)
        room = self.room(head)
        shown: list[Text] = []
        for message in reversed(self.messages):
            room -= self.lines(message)
            if room < 0:
                break
            shown.insert(0, message)
        return Group(*head, *shown, *([Text("")] if prompt else []))

    def status_line(self) -> Text:
        g = self.game
        if g.winner is not None:
            return Text.assemble("game over: ", self.result_text())
        seat = g.to_move
        return Text.assemble(
            f"move {g.ply + 1}: player ", _letter(seat), f" ({self.label(seat)}) to move"
        )

    def refresh(self, board: Text | None = None, status: Text | None = None) -> None:
        """Redraws the live screen. The messages added since the last redraw that do not fit
        under the board together (``moves`` of a long game, ``rules`` on a small terminal)
        are printed above the screen, where the terminal keeps them."""
        if self.screen is None:
            return
        new = self.messages[self.shown :]
        if sum(self.lines(m) for m in new) > self.room(self.head(board, status)):
            del self.messages[self.shown :]
            for message in new:
                self.console.print(message)  # the live display prints it above the screen
            self.messages.append(Text("(printed above)", style="dim"))
        del self.messages[:-100]  # the screen never shows more
        self.shown = len(self.messages)
        self.screen.draw(self.frame(board, status))

    def question(self, prompt: str) -> str | None:
        """A human's answer to ``prompt``, or None at the end of input; UnicodeDecodeError
        for a line that is not UTF-8."""
        self.refresh()
        try:
            line = self.answer(prompt)
        except EOFError:
            self.ended = True
            if self.screen is None:
                self.console.print()
            return None
        except UnicodeDecodeError:
            if self.screen is not None and not self.echo:
                self.screen.typed(prompt)
            raise
        if self.screen is not None:
            self.screen.typed(None if self.echo else prompt + line)
        elif self.echo:
            self.print(_one_line(line))
        return line

    def answer(self, prompt: str) -> str:
        """``ask``; on a terminal, in a thread of its own while the main thread waits, so
        that Ctrl-C ends a wait for a line at once: the signal goes to any one thread of the
        process (the native engine has threads of its own), and a read is interrupted only
        in the thread that receives it, while the main thread's wait always is."""
        if (
            not self.console.is_terminal
            or threading.current_thread() is not threading.main_thread()
        ):
            return self.ask(self.game, prompt)
        answers: list[str] = []
        errors: list[BaseException] = []
        done = threading.Event()

        def read() -> None:
            try:
                answers.append(self.ask(self.game, prompt))
            except BaseException as e:  # handed to the main thread: EOF, a bad line
                errors.append(e)
            finally:
                done.set()

        # A daemon: after Ctrl-C the read it waits in is abandoned with the process.
        start_holding_ctrl_c(
            threading.Thread(target=read, name="colorwars play input", daemon=True)
        )
        while not done.wait(0.1):
            pass
        if errors:
            raise errors[0]
        return answers[0]

    def close(self) -> None:
        """Ends the live screen (its last frame stays); the rest is printed under it."""
        if self.screen is not None:
            screen, self.screen = self.screen, None
            screen.close(self.frame(prompt=False))

    # -- moves -----------------------------------------------------------------------------
    def play(self, move: int | str) -> None:
        """Plays a move for the player to move and shows it: the cascade wave by wave (in
        place on a terminal), then the board. The game is unchanged if the move is refused."""
        g = self.game
        mover, before, owners = g.to_move, g.counts(), g.owners()
        # RULES.md §2: a drop3 opening puts three orbs on the cell at once, later moves one.
        drop = 3 if g.rules.opening == "drop3" and mover not in g.moved else 1
        out = set(g.out)
        cell = g.play(move)
        self.hint = None
        waves = g.waves()
        self.played.append(_Played(mover, cell, len(waves)))
        count = f": {len(waves)} wave{'s' * (len(waves) != 1)}" if waves else ""
        label = self.label(mover)
        verb = "play" if label == "you" else "plays"
        self.print(f"{g.ply}. (", _letter(mover), f") {label} {verb} {g.cell_name(cell)}{count}")
        if waves and self.animate:
            before[cell] += drop
            owners[cell] = mover
            if self.screen is not None:
                self.live_animation(cell, before, owners)
            else:
                width = self.setup.width
                frames: list[RenderableType] = [board_text(width, before, owners, {cell: LAST})]
                for k, wave in enumerate(waves, 1):
                    names = " ".join(g.cell_name(c) for c in wave.bursts)
                    marks = dict.fromkeys(wave.bursts, BURST)
                    frames.append(
                        Group(
                            board_text(width, wave.counts, wave.owners, marks),
                            Text(f"wave {k} of {len(waves)}: {names} burst", style="dim"),
                        )
                    )
                self.animation(frames)
        for k, wave in enumerate(waves, 1):
            self.print(f"   wave {k}: ", " ".join(g.cell_name(c) for c in wave.bursts), " burst")
        self.show_board()
        for seat in sorted(set(g.out) - out):
            self.print("player ", _letter(seat), " is out")
        self.refresh()

    def live_animation(self, cell: int, counts: list[int], owners: list[int]) -> None:
        """The move's cascade on the live screen: the board as the orb lands, then after each
        wave, one every ``delay`` seconds."""
        g, width, delay = self.game, self.setup.width, self.setup.delay
        waves = g.waves()
        self.refresh(live_board(width, counts, owners, {cell: LAST}), Text("the orb lands"))
        for k, wave in enumerate(waves, 1):
            time.sleep(delay)
            names = " ".join(g.cell_name(c) for c in wave.bursts)
            board = live_board(width, wave.counts, wave.owners, dict.fromkeys(wave.bursts, BURST))
            self.refresh(board, Text(f"wave {k} of {len(waves)}: {names} burst", style="bold"))
        time.sleep(delay)

    def animation(self, frames: Sequence[RenderableType]) -> None:
        """The frames in place, one every ``delay`` seconds; erased at the end (the final
        board is printed after them)."""
        delay = self.setup.delay
        with Live(frames[0], console=self.console, auto_refresh=False, transient=True) as live:
            for frame in frames[1:]:
                time.sleep(delay)
                live.update(frame, refresh=True)
            time.sleep(delay)

    def seeded(self, player: Player, salt: int) -> Player:
        """The player with a seed for this move: the game's seed, the ply and ``salt``."""
        seed = (self.setup.seed + self.game.ply * 0x9E3779B9 + salt) % 2**64
        if not dataclasses.is_dataclass(player):
            return player  # Zero: deterministic for its own seed, its tree kept between moves
        return cast(Player, replace(cast(Any, player), seed=seed))

    def think(self, player: Player, salt: int, who: Text) -> int:
        """The cell ``player`` chooses for the player to move; a spinner on a terminal (the
        status line on the live screen) says ``who`` is thinking."""
        chooser = self.seeded(player, salt)
        if self.screen is not None:
            self.status = Text.assemble(who, " is thinking...")
            self.refresh()
            try:
                return chooser.choose(self.game)
            finally:
                self.status = None
        if self.console.is_terminal:
            with self.console.status(Text.assemble(who, " is thinking...")):
                return chooser.choose(self.game)
        return chooser.choose(self.game)

    # -- commands --------------------------------------------------------------------------
    def command(self, line: str) -> bool:
        """Carries out one line a human typed; False to end the game."""
        word, _, rest = line.strip().partition(" ")
        word = word.lower()
        if not word:
            return True
        if word in ("quit", "q", "exit"):
            return False
        if word in ("help", "?"):
            self.print(COMMANDS)
        elif word == "rules":
            self.rules()
        elif word == "hint":
            helper = self.setup.hint
            hint = self.think(helper, self.setup.players, Text(f"the hint, {helper.name},"))
            self.hint = hint
            self.print(f"hint: {self.game.cell_name(hint)} ({self.setup.hint.name})")
        elif word == "undo":
            self.undo()
        elif word == "moves":
            self.moves()
        elif word == "position":
            self.print(self.game.to_text())
        elif word == "board":
            self.show_board()
        elif word == "save":
            self.save(rest.strip())
        else:
            self.move(line.strip())
        return True

    def rules(self) -> None:
        """The ``rules`` command: the summary of this game's rule set, and the board's marks."""
        for line in rules_summary(self.setup.rules):
            self.print(line)
        if self.screen is not None:
            self.print(
                f"- On the board 3a is three orbs of player a; {LOADED} after a cell: loaded, "
                f"one more orb bursts it; {LAST} before it: the last move."
            )
        else:
            self.print(f"- On the board 3a is three orbs of player a; {LAST}: the last move.")

    def move(self, text: str) -> None:
        """A cell typed by a human: a name (``c3``) or a number."""
        if not any(ch.isdigit() for ch in text):  # every cell name has a row number
            self.error(f"unknown command {show(text)}; type a cell such as c3, or help")
            return
        number = text.isascii() and text.isdigit() and len(text) <= 9
        try:
            self.play(int(text) if number else text.lower())
        except InvalidMoveError:  # not a cell of this board: say what can be typed here
            w, h = self.setup.width, self.setup.height
            self.error(
                f"invalid move: {show(text)} is not a cell of this board: type a cell's name, "
                f"a column a to {column_name(w - 1)} and a row 1 to {h} (such as c3), or its "
                f"number 0 to {w * h - 1}"
            )
        except ColorwarsError as e:  # not a legal move
            self.error(str(e))

    def error(self, message: str) -> None:
        self.print(_one_line(message), style="red")

    def undo(self) -> None:
        """Back to the previous turn of a human: takes back the moves since then."""
        seats, g = self.setup.seats, self.game
        back = next(
            (k for k in range(len(self.played) - 1, -1, -1) if seats[self.played[k].mover] is None),
            None,
        )
        if back is None:
            self.error("nothing to undo: no human has moved yet")
            return
        undone = []
        while len(self.played) > back:
            done = self.played.pop()
            g.pop()
            undone.append(f"{PLAYER_LETTERS[done.mover]} {g.cell_name(done.cell)}")
        self.hint = None
        self.print(f"undone: {', '.join(undone)}; ", "player ", _letter(g.to_move), " to move")
        self.show_board()

    def moves(self) -> None:
        """The move list, whole rounds a line where they fit: ``3. a c3 (2 waves)``."""
        g = self.game
        if not self.played:
            self.print("no moves yet")
            return
        entries = []
        for p in self.played:
            waves = f" ({p.waves} wave{'s' * (p.waves != 1)})" if p.waves else ""
            entries.append((p.mover, f"{g.cell_name(p.cell)}{waves}"))
        number = len(str(len(entries))) + 1  # "12."
        rest = max(len(text) for _, text in entries)
        per_line = max(1, MOVES_WIDTH // (number + rest + 5))
        if per_line >= self.setup.players:
            per_line -= per_line % self.setup.players
        for start in range(0, len(entries), per_line):
            line = Text()
            for ply, (mover, text) in enumerate(entries[start : start + per_line], start + 1):
                line.append(f"{f'{ply}.':>{number}} ")
                line.append_text(_letter(mover))
                line.append(f" {text:<{rest}}  ")
            line.rstrip()
            self.emit(line)

    def record(self) -> GameRecord:
        """The game in the project's record format, with its result and final position."""
        letters = PLAYER_LETTERS[: self.setup.players]
        seats = ", ".join(f"{L} {self.label(k)}" for k, L in enumerate(letters))
        return GameRecord.of(self.game, self.setup.first, note=f"seats: {seats}")

    def save(self, name: str) -> bool:
        """Writes the record to ``name`` (or the ``--save`` file); one line either way."""
        if not name:
            if self.setup.save is None:
                self.error("save needs a file name: save FILE")
                return False
            name = str(self.setup.save)
        try:
            atomic_write(name, self.record().to_text(), "record")
        except FileError as e:  # written atomically: an old file of that name is kept
            reason = str(e).removeprefix(f"cannot write record {Path(name)}: ")
            self.error(f"cannot save the record to {show(name)}: {reason}")
            return False
        except (OSError, ValueError) as e:  # ValueError: a name with a NUL byte
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            self.error(f"cannot save the record to {show(name)}: {reason}")
            return False
        self.print(f"record saved to {_one_line(name)}")
        return True

    # -- the game --------------------------------------------------------------------------
    def read(self, seat: int) -> str | None:
        """A human's line, or None at the end of input."""
        try:
            return self.question(f"player {PLAYER_LETTERS[seat]}, your move: ")
        except UnicodeDecodeError:
            self.error("that line is not UTF-8 text; type a cell such as c3, or help")
            return ""

    def result_text(self) -> Text:
        winner = self.game.winner
        assert winner is not None
        if self.setup.humans == 1:
            won = self.setup.seats[winner] is None
            return Text("you win!" if won else f"{self.label(winner)} wins.")
        return Text.assemble("player ", _letter(winner), f" ({self.label(winner)}) wins.")

    def result(self) -> None:
        if self.game.winner is not None:
            self.emit(self.result_text())

    def run(self) -> int:
        """Plays the game, and the rematches asked for; 0 when it is over or the human quits
        (or input ends)."""
        if self.live:
            self.screen = _Screen(self.console)
        try:
            while True:
                self.intro()
                self.show_board()
                if not self.turns():
                    self.finish()
                    self.close()
                    self.print("bye")
                    return 0
                self.result()
                self.finish()
                if not self.rematch():
                    break
            self.close()
        except KeyboardInterrupt:
            # Ctrl-C ends the game cleanly (the command line prints one line, exit 130); the
            # record asked for is still written. The live screen's last frame stays.
            self.close()
            if self.setup.save is not None and self.played:
                self.save(str(self.setup.save))
            raise
        return 0

    def turns(self) -> bool:
        """The game's moves until it is over (True) or a human quits or input ends (False)."""
        while not self.game.is_over:
            seat = self.game.to_move
            player = self.setup.seats[seat]
            if player is not None:
                self.play(self.think(player, seat, self.who(seat)))
                continue
            line = self.read(seat)
            if line is None or not self.command(line):
                return False
        self.refresh()
        return True

    def finish(self) -> None:
        """The end of the game: the ``--save`` record is written; without one, a person at a
        terminal who played is offered it."""
        if self.setup.save is not None:
            self.save(str(self.setup.save))
            return
        if not (self.played and self.setup.humans and self.console.is_terminal and not self.echo):
            return
        if self.ended:
            return
        try:
            name = self.question("save the game record? a file name, or Enter for no: ")
        except UnicodeDecodeError:
            if self.screen is None:
                self.console.print()
            return
        if name is not None and name.strip():
            self.save(name.strip())

    def rematch(self) -> bool:
        """At a finished game on a terminal with a human seat: a rematch? ``y`` starts a new
        game with the same settings, ``s`` with the seats swapped (each player one seat on:
        a's to b, b's to a with two players); ``n``, Enter or the end of input, none. Never
        asked when the output is not a terminal: the transcript ends with the result."""
        if not (self.setup.humans and self.console.is_terminal) or self.ended:
            return False
        while True:
            try:
                answer = self.question(REMATCH)
            except UnicodeDecodeError:
                answer = "?"
            word = "n" if answer is None else answer.strip().lower()
            if word in ("", "n", "no", "q", "quit"):
                self.print("bye")
                return False
            if word in ("y", "yes", "s", "swap"):
                self.new_game(swap=word in ("s", "swap"))
                return True
            self.error(f"{show(_one_line(answer or ''))}: {REMATCH_ANSWERS}")

    def new_game(self, swap: bool) -> None:
        """The rematch: the same settings, the seats swapped if asked, the AI players' seed
        and the ``--save`` file numbered on (``game-2.cwr``), so no game repeats another or
        writes over its record."""
        s = self.setup
        seats = s.seats[-1:] + s.seats[:-1] if swap else s.seats
        self.number += 1
        first = self.first_setup
        seed = (first.seed + (self.number - 1) * 0x9E3779B97F4A7C15) % 2**64
        save = first.save
        if save is not None:
            save = save.with_name(f"{save.stem}-{self.number}{save.suffix}")
        self.setup = replace(s, seats=seats, seed=seed, save=save)
        self.game = Game(s.width, s.height, s.players, s.rules, s.first)
        self.played = []
        self.hint = None
        if self.screen is not None:  # the last game's messages go with it
            self.messages, self.shown = [], 0
        self.print(f"game {self.number}: " + ("the seats swapped" if swap else "the same seats"))


def play(args: argparse.Namespace, console: Console, ask: Ask, echo: bool) -> int:
    """``colorwars play``: the options checked, then the game (see ``TerminalGame``)."""
    options = setup(
        size=args.size,
        rules=args.rules,
        players=args.players,
        first=args.first,
        seats=args.seats,
        opponent=args.opponent,
        you=args.you,
        hint=args.hint,
        delay=args.delay,
        save=args.save,
        seed=args.seed,
    )
    return TerminalGame(options, console, ask, echo).run()
