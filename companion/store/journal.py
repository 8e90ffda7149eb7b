"""The game journal: every event and its rulings in SQLite, before they are spoken.

WAL mode, one transaction per event, so a power cut loses at most the event that
was being written and never doubles one (``(game, seq)`` is the primary key).
Reopening replays the events through the rules engine: the state comes back
exactly, and is checked against the state text stored with the last event.

A file that is not an SQLite database, or is one that is not ours, is refused
with :class:`JournalError` and left untouched.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules import GameState, RuleSet, Step, apply, new_game
from ..rules.events import Event
from ..rules.notation import to_text
from .codec import event_from_dict, event_to_dict, ruling_to_dict, rules_from_dict, rules_to_dict

APP_ID = 0x54414B49  # "TAKI", in the SQLite header's application_id
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    names TEXT NOT NULL,          -- JSON list, in seat order
    first INTEGER NOT NULL,
    rules TEXT NOT NULL,          -- JSON object of RuleSet options
    tournament_id INTEGER REFERENCES tournaments(id),
    table_no INTEGER,
    finished REAL,
    winner INTEGER
);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    event TEXT NOT NULL,          -- JSON, companion.store.codec
    undo INTEGER NOT NULL DEFAULT 0,  -- 1: this row takes back the last kept event
    refused INTEGER NOT NULL DEFAULT 0,  -- 1: the rules refused it (the state stayed as it was)
    rulings TEXT NOT NULL,        -- JSON list
    state TEXT NOT NULL,          -- companion.rules.notation, after the event
    PRIMARY KEY (game_id, seq)
);
"""


class JournalError(Exception):
    """The journal file cannot be used (and was not changed)."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    id: int
    names: tuple[str, ...]
    first: int
    rules: RuleSet
    created: float
    tournament_id: int | None
    table_no: int | None
    finished: float | None
    winner: int | None


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    t: float
    event: Event | None  # None for an undo row
    rulings: tuple[dict[str, Any], ...]
    state: str
    refused: bool = False


class Journal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = self._open(self.path)

    # ------------------------------------------------------------ opening

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        if path.is_dir():
            raise JournalError(f"{path} is a folder, not a journal file; choose a file name.")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise JournalError(f"the journal's folder {path.parent} cannot be made ({e.strerror or e}).") from None
        fresh = not path.exists() or path.stat().st_size == 0
        if fresh:
            Journal._create(path)
        try:
            with path.open("rb") as f:
                head = f.read(16)
        except OSError as e:
            raise JournalError(f"{path} cannot be read ({e.strerror or e}). It was left as it is.") from None
        if head != b"SQLite format 3\x00":
            raise JournalError(f"{path} is not a TAKI journal: it is not an SQLite database. "
                               "It was left as it is; choose another file.")
        try:
            db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            app = db.execute("PRAGMA application_id").fetchone()[0]
            if app != APP_ID:
                db.close()
                raise JournalError(f"{path} is an SQLite database of another program, not a TAKI "
                                   "journal. It was left as it is; choose another file.")
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None or int(row[0]) != SCHEMA_VERSION:
                db.close()
                raise JournalError(f"{path} is a TAKI journal of schema {row and row[0]}, "
                                   f"this program reads schema {SCHEMA_VERSION}.")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{path} cannot be read as a TAKI journal ({e}). "
                               "It was left as it is.") from None
        return db

    @staticmethod
    def _create(path: Path) -> None:
        """Build the journal whole in a scratch file, then rename it into place: a
        kill at any moment leaves either no journal or a complete empty one."""
        scratch = path.with_name(f".{path.name}.creating-{os.getpid()}")
        for leftover in (scratch, scratch.with_name(scratch.name + "-wal"), scratch.with_name(scratch.name + "-shm")):
            leftover.unlink(missing_ok=True)
        try:
            db = sqlite3.connect(str(scratch), isolation_level=None)
            try:
                db.execute(f"PRAGMA application_id={APP_ID}")
                db.execute("BEGIN")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                db.execute("COMMIT")
            finally:
                db.close()
            with scratch.open("rb") as f:
                os.fsync(f.fileno())
            os.replace(scratch, path)
            dir_fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except (OSError, sqlite3.DatabaseError) as e:
            scratch.unlink(missing_ok=True)
            raise JournalError(f"the journal {path} cannot be created ({e}).") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing

    def new_tournament(self, name: str) -> int:
        cur = self.db.execute("INSERT INTO tournaments (name, created) VALUES (?, ?)", (name, time.time()))
        return int(cur.lastrowid or 0)

    def new_game(self, names: tuple[str, ...] | list[str], first: int = 0, rules: RuleSet | None = None,
                 tournament_id: int | None = None, table_no: int | None = None) -> int:
        rules = rules or RuleSet()
        new_game(names, first, rules)  # validates the table before anything is written
        cur = self.db.execute(
            "INSERT INTO games (created, names, first, rules, tournament_id, table_no) VALUES (?,?,?,?,?,?)",
            (time.time(), json.dumps(list(names)), first, json.dumps(rules_to_dict(rules)),
             tournament_id, table_no),
        )
        return int(cur.lastrowid or 0)

    def set_seats(self, game_id: int, angles: tuple[float, ...]) -> None:
        """Where each player sits, seen from the camera (degrees, seat order): kept with
        the game, so a resumed game still knows who played what."""
        try:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                            (f"seats:{game_id}", json.dumps([round(a, 2) for a in angles])))
        except sqlite3.Error as e:
            raise JournalError(f"the journal {self.path} cannot be written ({e})") from None

    def seats(self, game_id: int) -> tuple[float, ...] | None:
        """The seats placed for ``game_id``, or None."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (f"seats:{game_id}",)).fetchone()
            return tuple(float(a) for a in json.loads(row[0])) if row else None
        except (sqlite3.Error, ValueError, TypeError):
            return None  # damaged: the turn order decides, as with no seats

    def append(self, game_id: int, seq: int, event: Event | None, step: Step, t: float | None = None) -> None:
        """Record one event with its rulings (an undo: ``event=None``; a refused event:
        ``step.legal`` false) in its own transaction."""
        state = step.state
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:  # read-only, locked, gone, disk full: said, not raised raw
            raise JournalError(f"the journal {self.path} cannot be written ({e})") from None
        try:
            self.db.execute(
                "INSERT INTO events (game_id, seq, t, event, undo, refused, rulings, state) VALUES (?,?,?,?,?,?,?,?)",
                (game_id, seq, time.time() if t is None else t,
                 json.dumps(event_to_dict(event)) if event is not None else "null",
                 int(event is None), int(not step.legal),
                 json.dumps([ruling_to_dict(r) for r in step.rulings]), to_text(state)),
            )
            if state.is_over:
                self.db.execute("UPDATE games SET finished=?, winner=? WHERE id=?",
                                (time.time(), state.winner, game_id))
            self.db.execute("COMMIT")
        except BaseException as e:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # no transaction left to roll back
            if isinstance(e, sqlite3.Error):
                raise JournalError(f"the journal {self.path} cannot be written ({e})") from None
            raise

    # ------------------------------------------------------------ reading

    def _game_raw(self, game_id: int) -> GameInfo:
        row = self.db.execute(
            "SELECT id, names, first, rules, created, tournament_id, table_no, finished, winner "
            "FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise JournalError(f"there is no game {game_id} in {self.path}")
        return GameInfo(row[0], tuple(json.loads(row[1])), row[2], rules_from_dict(json.loads(row[3])),
                        row[4], row[5], row[6], row[7], row[8])

    def _damaged(self, e: BaseException) -> JournalError:
        return JournalError(f"the journal {self.path} has damaged pages ({type(e).__name__}: {str(e)[:80]}); "
                            f"it was left as it is")

    def _games_raw(self, tournament_id: int | None = None) -> list[GameInfo]:
        q = "SELECT id FROM games" + (" WHERE tournament_id=?" if tournament_id is not None else "") + " ORDER BY id"
        args = (tournament_id,) if tournament_id is not None else ()
        return [self._game_raw(r[0]) for r in self.db.execute(q, args)]

    def _unfinished_raw(self) -> GameInfo | None:
        row = self.db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return self._game_raw(row[0]) if row else None

    def game(self, game_id: int) -> GameInfo:
        with self.reading():
            return self._game_raw(game_id)

    def games(self, tournament_id: int | None = None) -> list[GameInfo]:
        with self.reading():
            return self._games_raw(tournament_id)

    def unfinished(self) -> GameInfo | None:
        with self.reading():
            return self._unfinished_raw()

    def tournaments(self) -> list[tuple[int, str]]:
        with self.reading():
            return self._tournaments_raw()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Damaged pages or rows read back as a JournalError a person can act on."""
        try:
            yield
        except JournalError:
            raise
        except (sqlite3.Error, ValueError, KeyError, TypeError, IndexError) as e:
            raise self._damaged(e) from None

    def last_state(self, game_id: int) -> str | None:
        """The stored state text after a game's last event (None: no event yet)."""
        with self.reading():
            row = self.db.execute("SELECT state FROM events WHERE game_id=? ORDER BY seq DESC LIMIT 1",
                                  (game_id,)).fetchone()
            return None if row is None else str(row[0])

    def entries(self, game_id: int) -> Iterator[Entry]:
        with self.reading():
            yield from self._entries_raw(game_id)

    def _entries_raw(self, game_id: int) -> Iterator[Entry]:
        for seq, t, event, rulings, state, refused in self.db.execute(
                "SELECT seq, t, event, rulings, state, refused FROM events WHERE game_id=? ORDER BY seq",
                (game_id,)):
            e = json.loads(event)
            yield Entry(seq, t, None if e is None else event_from_dict(e), tuple(json.loads(rulings)), state,
                        bool(refused))

    def _tournaments_raw(self) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self.db.execute("SELECT id, name FROM tournaments ORDER BY id")]


@dataclass(frozen=True, slots=True)
class Replayed:
    info: GameInfo
    state: GameState
    history: tuple[GameState, ...]  # the states before each kept event, for undo
    events: tuple[Event, ...]  # the kept events, in order
    next_seq: int


def replay(journal: Journal, game_id: int) -> Replayed:
    """Rebuild a game from its journal, checking every stored state on the way."""
    info = journal.game(game_id)
    state = new_game(info.names, info.first, info.rules)
    history: list[GameState] = []
    kept: list[Event] = []
    seq = 0
    for entry in journal.entries(game_id):
        if entry.seq != seq:
            raise JournalError(f"game {game_id}: event {seq} is missing from the journal")
        if entry.event is None:
            if not history:
                raise JournalError(f"game {game_id}: an undo with nothing to take back")
            state = history.pop()
            kept.pop()
        else:
            step = apply(state, entry.event)
            if step.legal == entry.refused:
                raise JournalError(f"game {game_id}: stored event {seq} is judged differently now "
                                   f"({step.text}); the journal was written by other rules")
            if step.legal:
                history.append(state)
                kept.append(entry.event)
                state = step.state
        if to_text(state) != entry.state:
            raise JournalError(f"game {game_id}: replayed state differs from the journal at event {seq}")
        seq += 1
    return Replayed(info, state, tuple(history), tuple(kept), seq)
