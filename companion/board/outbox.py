"""The kiosk's side of event mode: its own journal is the outbox.

Why: the kiosk must keep refereeing with the board or the network gone, and the
board must end up with exactly what the journal holds. So nothing is queued in
memory: a thread reads journal entries past the last one the board acknowledged,
pushes them in order, and records the acknowledgement in a small file beside the
journal (``<journal>.board``); failures are retried with back-off (1 s doubling to
30 s). The board stores by (kiosk, game, seq), so a batch sent twice is harmless.

On its first contact the kiosk joins with the event key and keeps the kiosk token
the board returns (in the same file); every push carries the token. While the game
is quiet it sends a heartbeat every few seconds, so the board can tell a quiet
table from one whose kiosk is gone.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..store.journal import Journal, JournalError

Transport = Callable[[str, bytes, dict[str, str]], tuple[int, bytes]]
BATCH = 200
#: Seconds of quiet after which the kiosk tells the board it is still there (the board
#: shows a table offline after store.OFFLINE_AFTER seconds of silence).
HEARTBEAT = 3.0


def http_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:  # noqa: S310 - the organiser's own URL
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class OutboxError(ValueError):
    """The kiosk cannot keep its outbox: the message says why."""


class Outbox:
    def __init__(self, journal_path: str | Path, board_url: str, event_key: str, kiosk: str, table: int,
                 transport: Transport = http_post, clock: Callable[[], float] = time.monotonic) -> None:
        self.journal_path = Path(journal_path)
        self.base = board_url.rstrip("/")
        self.url = self.base + "/api/push"
        self.key, self.kiosk, self.table = event_key, kiosk, table
        self.transport, self.clock = transport, clock
        acks = Path(str(self.journal_path) + ".board")
        if acks.is_dir():
            raise OutboxError(f"{acks} is a folder: the kiosk keeps what the board acknowledged in that file; "
                              f"move the folder away")
        try:
            self.acks = sqlite3.connect(str(acks), check_same_thread=False, isolation_level=None)
            self.acks.execute("CREATE TABLE IF NOT EXISTS acked (url TEXT, game INTEGER, seq INTEGER, "
                              "PRIMARY KEY (url, game))")
            self.acks.execute("CREATE TABLE IF NOT EXISTS token (url TEXT, kiosk TEXT, table_no INTEGER, "
                              "token TEXT NOT NULL, PRIMARY KEY (url, kiosk, table_no))")
        except sqlite3.Error as e:
            raise OutboxError(f"{acks} cannot hold what the board acknowledged ({e})") from None
        self.status = "not yet in touch with the board"
        self.offline_since: float | None = None
        self.refused: str | None = None  # the board said no for a reason retrying cannot fix
        self._last_contact: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acked(self, game: int) -> int:
        row = self.acks.execute("SELECT seq FROM acked WHERE url=? AND game=?", (self.url, game)).fetchone()
        return -1 if row is None else int(row[0])

    def _mark(self, game: int, seq: int) -> None:
        self.acks.execute("INSERT OR REPLACE INTO acked VALUES (?,?,?)", (self.url, game, seq))

    def pending(self, journal: Journal) -> list[tuple[int, list[str], list[dict[str, Any]]]]:
        """(game, names, events not yet acknowledged) for every game in the journal."""
        out = []
        for info in journal.games():
            done = self.acked(info.id)
            events = [{"seq": e.seq, "t": e.t, "state": e.state,
                       "rulings": [str(r.get("text", ""))[:300] for r in e.rulings][:50]}
                      for e in journal.entries(info.id) if e.seq > done]
            if events:
                out.append((info.id, list(info.names), events))
        return out

    def _send(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes] | None:
        """POST to the board; None (and the kiosk marked offline) when it cannot be reached."""
        try:
            return self.transport(self.base + path, body, {"Content-Type": "application/json", **headers})
        except (OSError, ValueError) as e:  # no network, board down
            self._offline(f"board unreachable ({e})")
            return None

    def _token(self) -> str | None:
        """The kiosk token for this board, joining with the event key the first time."""
        row = self.acks.execute("SELECT token FROM token WHERE url=? AND kiosk=? AND table_no=?",
                                (self.base, self.kiosk, self.table)).fetchone()
        if row is not None:
            return str(row[0])
        answer = self._send("/api/enrol", json.dumps({"kiosk": self.kiosk, "table": self.table}).encode(),
                            {"X-Event-Key": self.key})
        if answer is None:
            return None
        status, reply = answer
        if status != 200:
            why = _reason(reply)
            if status in (401, 409, 422):
                self.refused = f"the board refused to seat this kiosk at table {self.table}: {why}"
            self._offline(f"board answered {status}: {why}")
            return None
        try:
            token = str(json.loads(reply)["token"])
        except (ValueError, TypeError, KeyError):
            self._offline(f"{self.base} answered, but not as a TAKI board does: is --board the board's address?")
            return None
        self.acks.execute("INSERT OR REPLACE INTO token VALUES (?,?,?,?)", (self.base, self.kiosk, self.table, token))
        self.refused = None
        return token

    def _forget_token(self) -> None:
        self.acks.execute("DELETE FROM token WHERE url=? AND kiosk=? AND table_no=?", (self.base, self.kiosk, self.table))

    def _heartbeat(self, token: str) -> bool:
        answer = self._send("/api/heartbeat", b"{}", {"X-Kiosk-Token": token})
        if answer is None:
            return False
        status, reply = answer
        if status == 401:  # the organiser released this table: join again next round
            self._forget_token()
        if status != 200:
            self._offline(f"board answered {status}: {_reason(reply)}")
            return False
        self._last_contact = self.clock()
        return True

    def push_once(self) -> bool:
        """Send what is pending (or, after :data:`HEARTBEAT` seconds of quiet, a
        heartbeat); True when the board has everything."""
        try:
            with Journal(self.journal_path) as journal:
                work = self.pending(journal)
        except JournalError as e:
            self.status = f"cannot read the journal for the board: {e}"
            return False
        token = self._token()
        if token is None:
            return False
        if not work and (self._last_contact is None or self.clock() - self._last_contact >= HEARTBEAT):
            if not self._heartbeat(token):
                return False
        for game, names, events in work:
            for i in range(0, len(events), BATCH):
                batch = events[i: i + BATCH]
                body = json.dumps({"kiosk": self.kiosk, "table": self.table, "game": game, "names": names,
                                   "events": batch}).encode()
                answer = self._send("/api/push", body, {"X-Kiosk-Token": token})
                if answer is None:
                    return False
                status, reply = answer
                if status == 401:  # the organiser released this table: join again next round
                    self._forget_token()
                    self._offline(f"board answered 401: {_reason(reply)}")
                    return False
                if status != 200:
                    why = _reason(reply)
                    if status in (403, 409, 413, 422):
                        self.refused = f"the board refused game {game}: {why}"
                    self._offline(f"board answered {status}: {why}")
                    return False
                try:
                    through = int(json.loads(reply)["acked_through"])
                except (ValueError, TypeError, KeyError, IndexError):  # not the board's answer
                    self._offline(f"{self.url} answered, but not as a TAKI board does: is --board the "
                                  f"board's address?")
                    return False
                self._mark(game, through)
                self._last_contact = self.clock()
                if through < batch[-1]["seq"]:  # a gap on the board: resend from there next round
                    self._offline(f"board is missing events after {through} of game {game}")
                    return False
        self.offline_since, self.status = None, "board up to date"
        return True

    def _offline(self, why: str) -> None:
        if self.offline_since is None:
            self.offline_since = self.clock()
        self.status = why

    def start(self) -> Outbox:
        self._thread = threading.Thread(target=self._run, name="taki-outbox", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            ok = self.push_once()
            backoff = 1.0 if ok else min(30.0, backoff * 2)
            self._stop.wait(1.0 if ok else backoff)


def _reason(reply: bytes) -> str:
    try:
        return str(json.loads(reply).get("error", reply[:100]))
    except ValueError:
        return reply[:100].decode(errors="replace")
