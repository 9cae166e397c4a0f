"""The web app's games on disk: one SQLite file (``colorwars serve --db PATH``; by default
``web-games.sqlite3`` in the user's data folder, from ``platformdirs``), so that a reload
resumes a game and a server restart loses none.

Each game is one row: its id, the client that started it, when it was last used, and a JSON
object with what rebuilds it (the start, the seats, the seed, the moves and who made them, the
online seats' token digests, never the tokens). Every change is one transaction (SQLite's
atomic commit: the file holds the old row or the new one, whatever happens in between).

Opening checks the file (``PRAGMA quick_check``) and its schema version; a file that is not
SQLite, is damaged, or is another program's or a newer version's gives one ``FileError``
naming it, and nothing is written to it. A row that cannot be read back is refused on its own
(``DamagedGame``), and the other games are untouched.

Bounded: at most ``MAX_GAME_BYTES`` a game, and the file at most ``MAX_DB_BYTES`` (SQLite's
``max_page_count``); the number of games is the store's bound (``store.py``).

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as folder:
...     db = GameDB(pathlib.Path(folder) / "games.sqlite3")
...     db.save("g1", "local", 1.0, {"moves": [12]}, online=False)
...     db.load("g1"), db.index()
...     db.close()
({'moves': [12]}, [('g1', 'local', False)])
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from colorwars.errors import FileError

__all__ = [
    "MAX_DB_BYTES",
    "MAX_GAME_BYTES",
    "SCHEMA",
    "GameDB",
    "StoreError",
    "default_path",
]

#: The schema this code writes and reads (``meta`` table, key ``schema``).
SCHEMA = 1
APPLICATION = "colorwars web games"
#: One game's row (a 32x32 game of 6,000 plies takes about 70 kB).
MAX_GAME_BYTES = 512 << 10
#: The whole file: the store's 500 games of the largest kind fit with room to spare.
MAX_DB_BYTES = 512 << 20


class StoreError(Exception):
    """A write the database refused (full, read-only, locked): the change is not kept."""


def default_path() -> Path:
    """``web-games.sqlite3`` in the user's data folder (``platformdirs``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("colorwars", appauthor=False)) / "web-games.sqlite3"


class GameDB:
    """The games' SQLite file (see the module's docstring). Thread-safe: one connection,
    one lock."""

    def __init__(self, path: str | os.PathLike[str], *, make_folder: bool = False) -> None:
        """Opens (or creates) the file ``path``. Its folder must exist, as for every file
        colorwars writes, unless ``make_folder`` (the default file's folder, made on first
        use)."""
        self.path = Path(path)
        self._lock = threading.Lock()
        where = os.fspath(self.path)

        def bad(reason: str) -> FileError:
            return FileError(
                f"invalid game database {where}: {reason}; move it away or choose another "
                "file with --db"
            )

        folder = self.path.parent
        if not make_folder and not folder.is_dir():
            raise FileError(
                f"cannot open the game database {where}: the folder {os.fspath(folder)} does "
                "not exist"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise FileError(
                f"cannot create the folder of the game database {where}: {e.strerror}"
            ) from None
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            self._db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            raise FileError(f"cannot open the game database {where}: {e}") from None
        try:
            self._check(existed, bad)
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise bad(f"it is damaged or not SQLite ({e})") from None
        except FileError:
            self._db.close()
            raise

    def _check(self, existed: bool, bad: Any) -> None:
        db = self._db
        found = db.execute("PRAGMA quick_check").fetchall()
        if found != [("ok",)]:
            raise bad(f"it is damaged ({'; '.join(str(r[0]) for r in found[:3])})")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            if existed and db.execute("PRAGMA page_count").fetchone()[0] > 1:
                raise bad("it holds no tables")
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute(
                    "CREATE TABLE games (id TEXT PRIMARY KEY, client TEXT NOT NULL, "
                    "online INTEGER NOT NULL, used REAL NOT NULL, data TEXT NOT NULL)"
                )
                db.execute("CREATE INDEX games_used ON games (used)")
                db.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("application", APPLICATION), ("schema", str(SCHEMA))],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        elif not {"meta", "games"} <= tables:
            raise bad("it is not a colorwars game database (no meta and games tables)")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("application") != APPLICATION:
            raise bad("it is not a colorwars game database")
        if meta.get("schema") != str(SCHEMA):
            raise bad(f"its schema is version {meta.get('schema')}, this colorwars reads {SCHEMA}")
        page = int(db.execute("PRAGMA page_size").fetchone()[0])
        db.execute(f"PRAGMA max_page_count = {MAX_DB_BYTES // page}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(sql, args)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise StoreError(f"the game database {self.path} refused the change: {e}") from e

    def save(
        self, game_id: str, client: str, used: float, data: dict[str, Any], online: bool
    ) -> None:
        """Writes a game's row (one transaction); ``StoreError`` if refused or too large."""
        text = json.dumps(data, separators=(",", ":"))
        if len(text) > MAX_GAME_BYTES:
            raise StoreError(
                f"game {game_id} would take {len(text)} bytes, more than the {MAX_GAME_BYTES} "
                "a game may take in the database"
            )
        self._write(
            "INSERT INTO games VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "client = excluded.client, online = excluded.online, used = excluded.used, "
            "data = excluded.data",
            (game_id, client, int(online), used, text),
        )

    def touch(self, game_id: str, used: float) -> None:
        self._write("UPDATE games SET used = ? WHERE id = ?", (used, game_id))

    def delete(self, game_id: str) -> None:
        self._write("DELETE FROM games WHERE id = ?", (game_id,))

    def load(self, game_id: str) -> Any:
        """A game's JSON object, None if there is no such row; ``ValueError`` if the row is
        not JSON or cannot be read (not UTF-8, a damaged page)."""
        with self._lock:
            try:
                row = self._db.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()
            except sqlite3.Error as e:
                raise ValueError(f"its row cannot be read: {e}") from None
        return None if row is None else json.loads(row[0])

    def index(self) -> list[tuple[str, str, bool]]:
        """Every game's (id, client, online), the least recently used first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, client, online FROM games ORDER BY used, id"
            ).fetchall()
        return [(str(i), str(c), bool(o)) for i, c, o in rows]
