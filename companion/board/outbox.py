"""The kiosk's side of event mode: its own journal is the outbox.

Why: the kiosk must keep refereeing with the board or the network gone, and the
board must end up with exactly what the journal holds. So nothing is queued in
memory: a thread reads journal entries past the last one the board acknowledged,
pushes them in order, and records the acknowledgement in a small file beside the
journal (``<journal>.board``); failures are retried with back-off (1 s doubling to
30 s). The board stores by (kiosk, game, seq), so a batch sent twice is harmless.
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
        self.url = board_url.rstrip("/") + "/api/push"
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
        except sqlite3.Error as e:
            raise OutboxError(f"{acks} cannot hold what the board acknowledged ({e})") from None
        self.status = "not yet in touch with the board"
        self.offline_since: float | None = None
        self.refused: str | None = None  # the board said no for a reason retrying cannot fix
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

    def push_once(self) -> bool:
        """Send what is pending; True when the board has everything."""
        try:
            with Journal(self.journal_path) as journal:
                work = self.pending(journal)
        except JournalError as e:
            self.status = f"cannot read the journal for the board: {e}"
            return False
        for game, names, events in work:
            for i in range(0, len(events), BATCH):
                batch = events[i: i + BATCH]
                body = json.dumps({"kiosk": self.kiosk, "table": self.table, "game": game, "names": names,
                                   "events": batch}).encode()
                try:
                    status, reply = self.transport(self.url, body, {"Content-Type": "application/json",
                                                                    "X-Event-Key": self.key})
                except (OSError, ValueError) as e:  # no network, board down
                    self._offline(f"board unreachable ({e})")
                    return False
                if status != 200:
                    why = _reason(reply)
                    if status in (401, 409, 413, 422):
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
