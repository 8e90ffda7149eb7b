"""The event board's storage: what every kiosk pushed, one row per journalled event.

Why this shape: a kiosk's journal is the truth and the board a copy of it, so a row
is keyed by (kiosk, game, seq) exactly as the journal numbers its events. A batch
sent twice stores nothing the second time; a row sent again with other content is
refused (a kiosk never rewrites its history); a gap in the numbers is reported
back, never filled by guessing. Validation lives here, so the server only speaks
HTTP. SQLite is the embedded default (one laptop at an event); PostgreSQL
(``postgresql://...``, psycopg 3) holds larger events. Both run the same schema and
the same statements: this class is the only place that knows which it talks to.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules.notation import from_text

KIOSK_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # whole string (fullmatch): no trailing newline
MAX_EVENTS = 500  # per push
MAX_TEXT = 4000
#: The largest game and seq number: the INTEGER column's range on PostgreSQL, held on
#: SQLite too, so both databases take exactly the same pushes.
MAX_NUMBER = 2**31 - 1
#: A push's reply names at most this many missing runs of seqs (the kiosk resends from
#: the first anyway); a huge seq costs the board nothing.
MAX_GAPS = 20
#: A table is shown offline once its kiosk has been silent this long (kiosks send a
#: heartbeat every few seconds while the game is quiet: outbox.HEARTBEAT).
OFFLINE_AFTER = 8.0

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS games (
    kiosk TEXT NOT NULL, game INTEGER NOT NULL, table_no INTEGER NOT NULL, names TEXT NOT NULL,
    PRIMARY KEY (kiosk, game))""",
    """CREATE TABLE IF NOT EXISTS events (
    kiosk TEXT NOT NULL, game INTEGER NOT NULL, seq INTEGER NOT NULL, t DOUBLE PRECISION NOT NULL,
    state TEXT NOT NULL, rulings TEXT NOT NULL, received DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (kiosk, game, seq))""",
    """CREATE TABLE IF NOT EXISTS kiosks (
    kiosk TEXT PRIMARY KEY, table_no INTEGER NOT NULL UNIQUE, last_seen DOUBLE PRECISION NOT NULL)""",
    # a kiosk's token, as its SHA-256 (a copy of the database lets nobody push as a kiosk)
    """CREATE TABLE IF NOT EXISTS tokens (
    kiosk TEXT PRIMARY KEY, digest TEXT NOT NULL UNIQUE, issued DOUBLE PRECISION NOT NULL)""",
)
#: the kiosk's table and when it was last heard from (standard SQL: SQLite 3.24+ and PostgreSQL)
_SEEN = ("INSERT INTO kiosks (kiosk, table_no, last_seen) VALUES (?,?,?) "
         "ON CONFLICT (kiosk) DO UPDATE SET table_no = excluded.table_no, last_seen = excluded.last_seen")


class Refused(ValueError):
    """A push the board will not store; the message says why (sent back as the reply)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Stored:
    stored: int
    duplicates: int
    acked_through: int  # every seq up to here is on the board (-1: none)
    gaps: tuple[tuple[int, int], ...]  # runs (first, last) of seqs missing below the highest received


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise Refused(message)


def _int(value: Any, what: str, lo: int = 0, hi: int = MAX_NUMBER) -> int:
    _need(isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi,
          f"{what} must be a whole number from {lo} to {hi}")
    return int(value)


def _encodable(text: str) -> bool:
    """Text a database can hold: no lone surrogate halves (JSON's ``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def good_name(name: Any) -> bool:
    """A player's name as the page can show it: 1-40 characters, not only spaces, and
    no control or formatting characters (U+202E would turn the rest of a line round)."""
    return (isinstance(name, str) and 0 < len(name) <= 40 and bool(name.strip()) and _encodable(name)
            and not any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name))


def kiosk_id(value: Any) -> str:
    _need(isinstance(value, str) and KIOSK_ID.fullmatch(value) is not None,
          "kiosk: 1-64 letters, digits, '.', '_' or '-'")
    return str(value)


def table_number(value: Any) -> int:
    return _int(value, "table", 1, 999)


def validate(push: Any) -> tuple[str, int, int, list[str], list[dict[str, Any]]]:
    """The parts of a push, checked: kiosk, table, game, names, events."""
    _need(isinstance(push, dict), "the body must be a JSON object")
    kiosk = kiosk_id(push.get("kiosk"))
    table = table_number(push.get("table"))
    game = _int(push.get("game"), "game")
    names = push.get("names")
    _need(isinstance(names, list) and 2 <= len(names) <= 10 and all(good_name(n) for n in names),
          "names: 2 to 10 player names of 1-40 characters, no control characters")
    _need(len({n.strip().casefold() for n in names}) == len(names), "names: two players have the same name")
    events = push.get("events")
    _need(isinstance(events, list) and len(events) <= MAX_EVENTS, f"events: a list of at most {MAX_EVENTS}")
    out = []
    for e in events:
        _need(isinstance(e, dict), "each event must be an object")
        seq = _int(e.get("seq"), "seq")
        t = e.get("t")
        _need(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t >= 0,
              "t must be a time in seconds")
        state = e.get("state")
        _need(isinstance(state, str) and len(state) <= MAX_TEXT and _encodable(state),
              "state: the journal's state text")
        try:
            st = from_text(state)
        except Exception:  # noqa: BLE001 - any parse failure is the sender's
            raise Refused(f"event {seq}: the state text is not a TAKI state") from None
        _need(list(st.names) == names, f"event {seq}: its players are not the game's")
        rulings = e.get("rulings", [])
        _need(isinstance(rulings, list) and len(rulings) <= 50
              and all(isinstance(r, str) and len(r) <= 300 and _encodable(r) for r in rulings),
              "rulings: up to 50 short texts")
        out.append({"seq": seq, "t": float(t), "state": state, "rulings": rulings})
    return kiosk, table, game, [str(n) for n in names], out


def missing(seqs: list[int]) -> tuple[int, tuple[tuple[int, int], ...]]:
    """(the last seq of the unbroken run from 0, the runs missing between the stored
    seqs: at most :data:`MAX_GAPS`), from the sorted seqs; its work is the number of
    rows, never the size of a seq."""
    through, prev = -1, -1
    gaps: list[tuple[int, int]] = []
    for s in seqs:
        if s == through + 1:
            through = s
        if s > prev + 1 and len(gaps) < MAX_GAPS:
            gaps.append((prev + 1, s - 1))
        prev = s
    return through, tuple(gaps)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _connection_lost(e: BaseException) -> bool:
    try:
        import psycopg
    except ImportError:
        return False
    return isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError))


#: The board's SQLite files carry this application id ("TAKI"), so another program's
#: database is recognised before anything is written to it.
APPLICATION_ID = 0x54414B49
_OURS = {"games", "events", "kiosks"}  # a board file from before kiosk tokens has just these


def _own_sqlite(path: str) -> sqlite3.Connection:
    """The board's SQLite file, opened; another program's database (or a folder, or a
    file that is no database) is refused with the reason and left exactly as it was."""
    p = Path(path)
    if p.is_dir():
        raise Refused(f"--db {path} is a folder: name a file for the board's database", 500)
    if p.exists() and p.stat().st_size > 0:
        try:
            probe = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
            try:
                app_id = probe.execute("PRAGMA application_id").fetchone()[0]
                tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            finally:
                probe.close()
        except sqlite3.DatabaseError:
            raise Refused(f"--db {path} is not a database (nothing was changed): name a new file", 500) from None
        if app_id != APPLICATION_ID and not (tables and tables <= _OURS | {"tokens", "sqlite_sequence"} and
                                             _OURS <= tables):
            raise Refused(f"--db {path} is another program's database (nothing was changed): "
                          f"name a new file for the board", 500)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
    db.execute("PRAGMA journal_mode=WAL")
    return db


class BoardStore:
    """One SQLite file or one PostgreSQL database; safe to call from the server's threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.postgres = self.path.startswith(("postgresql://", "postgres://"))
        if self.postgres:
            try:
                import psycopg
            except ImportError:
                raise Refused("PostgreSQL needs psycopg: pip install 'taki-companion[board]'", 500) from None
            self.db: Any = psycopg.connect(self.path, autocommit=True)
        else:
            self.db = _own_sqlite(self.path)
        for statement in _SCHEMA:
            self.db.execute(statement)
        self._lock = threading.Lock()
        self._count: int | None = None
        self._tokens: dict[str, str] = {}  # token digest -> kiosk, as read (dropped on release)
        self._summaries: dict[tuple[str, int, int], dict[str, Any]] = {}  # a game's last state, parsed

    def _q(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        """Run one statement (``?`` placeholders in both dialects)."""
        if self.postgres:
            sql = sql.replace("?", "%s")
        return self.db.execute(sql, args)

    def close(self) -> None:
        self.db.close()

    def _retry(self, work: Any) -> Any:
        """``work()``, once more on a fresh connection if PostgreSQL dropped the old one
        (a server restart); still down: refused with 503, and the kiosk sends it again
        later (its journal keeps everything)."""
        for attempt in (0, 1):
            try:
                return work()
            except Refused:
                raise
            except Exception as e:  # noqa: BLE001 - only the connection's loss is handled here
                if not self.postgres or not _connection_lost(e):
                    raise
                try:
                    self.db.close()
                    import psycopg

                    self.db = psycopg.connect(self.path, autocommit=True)
                except Exception:  # noqa: BLE001
                    raise Refused("the board's database is unreachable; send again later", 503) from None
                if attempt:
                    raise Refused("the board's database is unreachable; send again later", 503) from None
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ kiosks

    def enrol(self, kiosk: Any, table: Any, now: float | None = None) -> str:
        """Seat a kiosk at a table on its first contact (the server checked the event
        key) and return its token, which every later push needs. A kiosk already
        enrolled, or a table another kiosk holds, is refused: the organiser releases
        it first (:meth:`release`), so holding the event key is not enough to push as
        someone else's kiosk."""
        kiosk, table = kiosk_id(kiosk), table_number(table)
        now = time.time() if now is None else now
        token = secrets.token_urlsafe(24)

        def work() -> str:
            with self._lock:
                with self._transaction():
                    if self._q("SELECT 1 FROM tokens WHERE kiosk=?", (kiosk,)).fetchone() is not None:
                        raise Refused(f"kiosk {kiosk} is already enrolled; the organiser can release "
                                      f"its table on the board's /admin page", 409)
                    owner = self._q("SELECT kiosk FROM kiosks WHERE table_no=?", (table,)).fetchone()
                    if owner is not None and owner[0] != kiosk:
                        raise Refused(f"table {table} belongs to kiosk {owner[0]}; the organiser can "
                                      f"release it on the board's /admin page", 409)
                    self._q(_SEEN, (kiosk, table, now))
                    self._q("INSERT INTO tokens VALUES (?,?,?)", (kiosk, _digest(token), now))
            return token
        return self._retry(work)

    def kiosk_of(self, token: str) -> str | None:
        """The kiosk a token was issued to (None: no such token, or released)."""
        if not token or len(token) > 200:
            return None
        digest = _digest(token)
        if digest in self._tokens:
            return self._tokens[digest]

        def read() -> str | None:
            with self._lock:
                row = self._q("SELECT kiosk FROM tokens WHERE digest=?", (digest,)).fetchone()
            if row is not None:
                self._tokens[digest] = str(row[0])
            return None if row is None else str(row[0])
        return self._retry(read)

    def heartbeat(self, kiosk: str, now: float | None = None) -> bool:
        """A quiet kiosk says it is still there; False when it has no table."""
        now = time.time() if now is None else now

        def work() -> bool:
            with self._lock:
                cur = self._q("UPDATE kiosks SET last_seen=? WHERE kiosk=?", (now, kiosk))
                return bool(cur.rowcount)
        return self._retry(work)

    def release(self, table: Any) -> str | None:
        """The organiser frees a table (a kiosk replaced, a token lost): its kiosk's
        seat and token go, its games stay on the board. Returns the kiosk that held it."""
        table = table_number(table)

        def work() -> str | None:
            with self._lock:
                with self._transaction():
                    row = self._q("SELECT kiosk FROM kiosks WHERE table_no=?", (table,)).fetchone()
                    if row is not None:
                        self._q("DELETE FROM kiosks WHERE kiosk=?", (row[0],))
                        self._q("DELETE FROM tokens WHERE kiosk=?", (row[0],))
                self._tokens = {d: k for d, k in self._tokens.items() if row is None or k != row[0]}
            return None if row is None else str(row[0])
        return self._retry(work)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One all-or-nothing unit of work (the caller holds the lock): committed when
        the block ends, rolled back when anything in it raises."""
        self._q("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        try:
            yield
            self._q("COMMIT")
        except BaseException:
            try:
                self._q("ROLLBACK")
            except Exception:  # noqa: BLE001 - a dropped connection rolls back by itself
                pass
            raise

    # ------------------------------------------------------------ pushes

    def add(self, push: Any, now: float | None = None, as_kiosk: str | None = None) -> Stored:
        """Store one validated push, all or nothing. ``as_kiosk``: the kiosk its token
        names; a push in another kiosk's name is refused."""
        kiosk, table, game, names, events = validate(push)
        if as_kiosk is not None and as_kiosk != kiosk:
            raise Refused(f"this token is kiosk {as_kiosk}'s, not {kiosk}'s", 403)
        now = time.time() if now is None else now
        return self._retry(lambda: self._add(kiosk, table, game, names, events, now))

    def _add(self, kiosk: str, table: int, game: int, names: list[str], events: list[dict[str, Any]],
             now: float) -> Stored:
        with self._lock:
            with self._transaction():
                owner = self._q("SELECT kiosk FROM kiosks WHERE table_no=?", (table,)).fetchone()
                if owner is not None and owner[0] != kiosk:
                    raise Refused(f"table {table} belongs to kiosk {owner[0]}", 409)
                seated = self._q("SELECT table_no FROM kiosks WHERE kiosk=?", (kiosk,)).fetchone()
                if seated is not None and seated[0] != table:
                    raise Refused(f"kiosk {kiosk} is table {seated[0]}, not {table}", 409)
                row = self._q("SELECT names, table_no FROM games WHERE kiosk=? AND game=?",
                              (kiosk, game)).fetchone()
                if row is not None and (json.loads(row[0]) != names or row[1] != table):
                    raise Refused(f"game {game} of kiosk {kiosk} has other players", 409)
                self._q(_SEEN, (kiosk, table, now))
                if row is None:
                    self._q("INSERT INTO games VALUES (?,?,?,?)", (kiosk, game, table, json.dumps(names)))
                stored = dup = 0
                for e in events:
                    old = self._q("SELECT state, rulings FROM events WHERE kiosk=? AND game=? AND seq=?",
                                  (kiosk, game, e["seq"])).fetchone()
                    if old is not None:
                        if old[0] != e["state"] or json.loads(old[1]) != e["rulings"]:
                            raise Refused(f"event {e['seq']} of game {game} was already stored differently", 409)
                        dup += 1
                        continue
                    self._q("INSERT INTO events VALUES (?,?,?,?,?,?,?)",
                            (kiosk, game, e["seq"], e["t"], e["state"], json.dumps(e["rulings"]), now))
                    stored += 1
            if self._count is not None:
                self._count += stored
            seqs = [int(r[0]) for r in self._q(
                "SELECT seq FROM events WHERE kiosk=? AND game=? ORDER BY seq", (kiosk, game))]
        through, gaps = missing(seqs)
        return Stored(stored, dup, through, gaps)

    # ------------------------------------------------------------ reading

    def history(self, kiosk: str, game: int) -> list[tuple[int, str]]:
        def read() -> list[tuple[int, str]]:
            with self._lock:
                return [(int(s), str(st)) for s, st in self._q(
                    "SELECT seq, state FROM events WHERE kiosk=? AND game=? ORDER BY seq", (kiosk, game))]
        return self._retry(read)

    def count(self) -> int:
        """Events on the board: counted once, then kept as pushes store them (a COUNT(*)
        over every event was the page's costliest read on PostgreSQL)."""
        if self._count is None:
            def read() -> int:
                with self._lock:
                    return int(self._q("SELECT COUNT(*) FROM events").fetchone()[0])
            self._count = self._retry(read)
        return self._count

    def tables(self, now: float | None = None, offline_after: float = OFFLINE_AFTER) -> list[dict[str, Any]]:
        """Every table's latest game as the page shows it: online while its kiosk was
        heard from within ``offline_after`` seconds (a push or a heartbeat), and when
        its last card was played (``last_event``)."""
        return self._retry(lambda: self._tables(now, offline_after))

    def _tables(self, now: float | None, offline_after: float) -> list[dict[str, Any]]:
        now = time.time() if now is None else now
        out = []
        with self._lock:
            rows = self._q(
                "SELECT k.kiosk, k.table_no, k.last_seen, g.game, g.names, e.seq, e.state, e.rulings, e.received "
                "FROM kiosks k JOIN games g ON g.kiosk = k.kiosk "
                "AND g.game = (SELECT MAX(game) FROM games WHERE kiosk = k.kiosk) "
                "LEFT JOIN events e ON e.kiosk = g.kiosk AND e.game = g.game "
                "AND e.seq = (SELECT MAX(seq) FROM events WHERE kiosk = g.kiosk AND game = g.game) "
                "ORDER BY k.table_no").fetchall()
        for kiosk, table, seen, game, names, seq, state, rulings, received in rows:
            row: dict[str, Any] = {"table": table, "kiosk": kiosk, "game": game, "names": json.loads(names),
                                   "online": now - seen <= offline_after, "last_seen": seen}
            if seq is not None:
                st = from_text(state)
                row.update(seq=seq, last_event=received, counts=list(st.counts), to_move=st.names[st.to_move],
                           stages=list(st.stages) if st.stages else None,
                           winner=st.names[st.winner] if st.winner is not None else None,
                           last=(json.loads(rulings) or [""])[-1])
            out.append(row)
        return out

    def games(self) -> list[dict[str, Any]]:
        """Every game on the board (not only each table's latest), with how it stands:
        its last state's counts and, once it is over, its winner."""
        def read() -> list[tuple[Any, ...]]:
            with self._lock:
                return list(self._q(
                    "SELECT g.kiosk, g.game, g.table_no, g.names, e.seq, e.state FROM games g "
                    "JOIN events e ON e.kiosk = g.kiosk AND e.game = g.game "
                    "AND e.seq = (SELECT MAX(seq) FROM events WHERE kiosk = g.kiosk AND game = g.game) "
                    "ORDER BY g.table_no, g.game, g.kiosk"))
        out = []
        for k, g, t, n, seq, state in self._retry(read):
            key = (str(k), int(g), int(seq))
            summary = self._summaries.get(key)
            if summary is None:  # parsed once per game and seq, not once per page update
                st = from_text(state)
                summary = {"over": st.is_over, "winner": st.names[st.winner] if st.winner is not None else None,
                           "tournament": st.stages is not None, "counts": list(st.counts)}
                if len(self._summaries) > 20_000:
                    self._summaries.clear()
                self._summaries[key] = summary
            out.append({"kiosk": k, "game": g, "table": t, "names": json.loads(n), "last_seq": seq, **summary,
                        "counts": list(summary["counts"])})
        return out

    def finished(self) -> list[dict[str, Any]]:
        """The games that are over, table by table: who won (a tournament's last game
        is a tournament won)."""
        return [g for g in self.games() if g["over"]]

    def leaders(self, tables: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Across the tables playing a tournament: each player's stage (8 -> 1, lower is
        better), then cards in hand, best first. A casual game's card count is no stage
        and is not ranked beside one. ``tables``: :meth:`tables` already read."""
        rows = []
        for t in self.tables() if tables is None else tables:
            if not t.get("stages"):
                continue
            for i, name in enumerate(t["names"]):
                rows.append({"name": name, "table": t["table"], "stage": t["stages"][i], "cards": t["counts"][i]})
        return sorted(rows, key=lambda r: (r["stage"], r["cards"]))
