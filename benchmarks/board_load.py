"""Benchmark: the event board under an event's load (loopback only).

``--kiosks`` simulated kiosks each push ``--events`` journalled events of real
self-play games (the engine's states and rulings) to a ``taki-companion board``
process, at table pace (a card every 1.5-4 s, compressed ``--speedup`` times), as
the kiosk's outbox does: everything pending in one push, retried with back-off.
Half-way, every kiosk also sends a burst (``--burst`` events at once: a kiosk back
from ten minutes offline). A page listens to the board's live stream throughout.

Printed: events lost and doubled (the board's rows against what the kiosks made),
and how long after an event was made the page first showed its table at or past it
(median, p95, worst), plus pushes per second. SQLite by default; ``--db
postgresql://...`` for PostgreSQL.

Run: python benchmarks/board_load.py [--kiosks 40] [--events 3000] [--speedup 20]
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from companion.board.store import BoardStore
from boardproc import rss_mb, start_board
from report import Report, add_json_argument
from companion.rules import apply, deal, legal_moves
from companion.rules.notation import to_text

KEY = "load-test-event-key"
NAMES = ("Dana", "Omer", "Noa", "Eli")


def kiosk_events(k: int, n: int) -> list[tuple[int, int, str, list[str]]]:
    """``n`` events (game, seq, state, rulings) of one kiosk's self-play games."""
    rng = random.Random(k)
    out: list[tuple[int, int, str, list[str]]] = []
    game = 0
    while len(out) < n:
        game += 1
        names = NAMES[: 2 + (k + game) % 3]
        state = deal(names, seed=k * 1000 + game)
        seq = 0
        while not state.is_over and len(out) < n and seq < 400:
            moves = legal_moves(state)
            if not moves:
                break
            step = apply(state, rng.choice(moves))
            if not step.legal:
                continue
            state = step.state
            out.append((game, seq, to_text(state), [r.text[:300] for r in step.rulings][:50]))
            seq += 1
    return out


def post(port: int, body: bytes, token: str, path: str = "/api/push") -> dict:  # type: ignore[type-arg]
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "X-Kiosk-Token": token})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def enrol(port: int, kiosk: str, table: int) -> str:
    """The kiosk's first contact: the event key buys its token."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/enrol", method="POST",
                                 data=json.dumps({"kiosk": kiosk, "table": table}).encode(),
                                 headers={"Content-Type": "application/json", "X-Event-Key": KEY})
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(json.loads(r.read())["token"])


def postgres_cpu_s() -> float:
    """CPU seconds used so far by every process named postgres (the database's load)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if "(postgres)" in text:
            fields = text.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total




class Kiosk(threading.Thread):
    def __init__(self, k: int, events: list[tuple[int, int, str, list[str]]], port: int, speedup: float,
                 burst: int, start_at: float) -> None:
        super().__init__(daemon=True)
        self.k, self.events, self.port, self.speedup, self.burst = k, events, port, speedup, burst
        self.start_at = start_at
        self.made: dict[tuple[int, int], float] = {}  # (game, seq) -> when the kiosk journalled it
        self.acked: dict[int, int] = {}  # game -> acked through
        self.pushes = self.failures = 0
        self.names: dict[int, list[str]] = {}

    def run(self) -> None:
        self.token = enrol(self.port, f"kiosk-{self.k}", self.k + 1)
        rng = random.Random(self.k + 7)
        t = self.start_at
        i = 0
        half = len(self.events) // 2
        while i < len(self.events):
            take = self.burst if i == half and self.burst else 1  # the burst: many at once
            t += rng.uniform(1.5, 4.0) / self.speedup
            time.sleep(max(0.0, t - time.time()))
            for game, seq, _, _ in self.events[i: i + take]:
                self.made[(game, seq)] = time.time()
            i += take
            self.flush(i)
        for _ in range(100):
            if self.flush(len(self.events)):
                break
            time.sleep(0.2)

    def flush(self, upto: int) -> bool:
        """Push what is made and not acknowledged, per game, in batches of 500."""
        ok = True
        by_game: dict[int, list[dict]] = {}  # type: ignore[type-arg]
        for game, seq, state, rulings in self.events[:upto]:
            if seq > self.acked.get(game, -1):
                by_game.setdefault(game, []).append({"seq": seq, "t": self.made[(game, seq)], "state": state,
                                                     "rulings": rulings})
        for game, evs in by_game.items():
            names = json.loads(json.dumps(list(NAMES[: 2 + (self.k + game) % 3])))
            for j in range(0, len(evs), 500):
                body = json.dumps({"kiosk": f"kiosk-{self.k}", "table": self.k + 1, "game": game, "names": names,
                                   "events": evs[j: j + 500]}).encode()
                self.pushes += 1
                try:
                    reply = post(self.port, body, self.token)
                    self.acked[game] = max(self.acked.get(game, -1), int(reply["acked_through"]))
                except OSError:
                    self.failures += 1
                    ok = False
                    break
        return ok


class Page(threading.Thread):
    """The board's live stream, as a browser reads it: when each table was first
    shown at or past each (game, seq)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.shown: dict[int, list[tuple[float, int, int]]] = {}  # table -> [(time, game, seq)]
        self.updates = 0

    def run(self) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stream", timeout=600) as r:
            for line in r:
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                self.updates += 1
                for t in json.loads(line[6:])["tables"]:
                    if "seq" in t:
                        self.shown.setdefault(t["table"], []).append((now, t["game"], t["seq"]))

    def first_shown(self, table: int, game: int, seq: int) -> float | None:
        for when, g, s in self.shown.get(table, []):
            if (g, s) >= (game, seq):
                return when
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiosks", type=int, default=40)
    ap.add_argument("--events", type=int, default=3000)
    ap.add_argument("--speedup", type=float, default=20.0)
    ap.add_argument("--burst", type=int, default=200)
    ap.add_argument("--db", default=None, help="postgresql://... (default: a SQLite file in a temp dir)")
    add_json_argument(ap)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="taki-board-load-")
    db = args.db or str(Path(tmp) / "board.db")
    t0 = time.time()
    made = [kiosk_events(k, args.events) for k in range(args.kiosks)]
    print(f"{args.kiosks} kiosks x {args.events} events of self-play made in {time.time() - t0:.0f} s; "
          f"board on {'PostgreSQL' if db.startswith('postgres') else 'SQLite'}, {args.speedup:g}x table pace")
    board, port = start_board(db, KEY)
    try:
        page = Page(port)
        page.start()
        start = time.time() + 1.0
        kiosks = [Kiosk(k, made[k], port, args.speedup, args.burst, start) for k in range(args.kiosks)]
        pg0 = postgres_cpu_s()
        for k in kiosks:
            k.start()
        peak = rss_mb(board.pid)
        while any(k.is_alive() for k in kiosks):
            time.sleep(1.0)
            peak = max(peak, rss_mb(board.pid))
        took = time.time() - start
        pg_cpu = postgres_cpu_s() - pg0
        time.sleep(2.0)  # the page's last update
        store = BoardStore(db)
        lost = doubled = 0
        delays: list[float] = []
        for k in kiosks:
            want: dict[int, list[tuple[int, str]]] = {}
            for game, seq, state, _ in k.events:
                want.setdefault(game, []).append((seq, state))
            for game, rows in want.items():
                have = store.history(f"kiosk-{k.k}", game)
                lost += len(set(rows) - set(have))
                doubled += len(have) - len(set(have))
            for (game, seq), when in k.made.items():
                shown = page.first_shown(k.k + 1, game, seq)
                if shown is not None:
                    delays.append(max(0.0, shown - when))
        total = store.count()
        store.close()
        pushes = sum(k.pushes for k in kiosks)
        delays.sort()
        print(f"events made {sum(len(k.events) for k in kiosks)}, on the board {total}: lost {lost}, doubled {doubled}")
        print(f"pushes {pushes} in {took:.0f} s ({pushes / took:.0f}/s), refused or failed "
              f"{sum(k.failures for k in kiosks)}; page updates {page.updates}; board memory peak {peak:.0f} MB")
        kind = "PostgreSQL" if db.startswith("postgres") else "SQLite"
        rep = Report("board_load", f"Event board under load: {args.kiosks} kiosks x {args.events} events, {kind}")
        rep.add("events lost", lost, "", "0")
        rep.add("events doubled", doubled, "", "0")
        rep.add("pushes a second", round(pushes / took), "/s")
        rep.add("board memory, peak", round(peak), "MB", "< 100 MB")
        if db.startswith("postgres"):
            print(f"PostgreSQL load: {pg_cpu:.0f} CPU s in {took:.0f} s ({100 * pg_cpu / took:.0f}% of one core)")
            rep.add("PostgreSQL CPU", round(100 * pg_cpu / took), "% of one core")
        if delays:
            med, p95 = statistics.median(delays), delays[int(0.95 * (len(delays) - 1))]
            print(f"made -> shown on the page: median {med:.2f} s  "
                  f"p95 {p95:.2f} s  worst {delays[-1]:.2f} s "
                  f"({len(delays)} events timed)")
            rep.add("made -> shown on the page, median", round(med, 2), "s", "<= 0.5 s")
            rep.add("made -> shown on the page, p95", round(p95, 2), "s")
        rep.note(f"{args.speedup:g} times table pace, a {args.burst}-event burst per kiosk half-way; loopback.")
        rep.write(args.json)
    finally:
        board.kill()
        board.wait(10)


if __name__ == "__main__":
    main()
