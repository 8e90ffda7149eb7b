"""Benchmark: forged and malformed requests against a running board (loopback only).

A ``taki-companion board`` process gets one honest kiosk (enrolled, one game pushed)
and then ``--requests`` bad requests, cycling through every kind below: wrong, missing
and other kiosks' tokens, the event key used as a token, bodies that are no JSON or
nested 100,000 deep, oversized bodies, seq and game past the database's INTEGER, a seq
of 2^31-1 (legal: it must cost nothing), lone surrogates, NaN and Infinity times, a
kiosk id with a trailing newline, duplicate, blank and bidi-control names, rewritten
events, another table's number, enrolments of a kiosk or table already taken, and
releases without the event key. The board's memory is read from /proc after every
request.

Printed: answers by status, how many were 5xx, rows on the board that should not be
(anything beyond the honest game and the one legal far seq), and the board's peak
memory. SQLite by default; ``--db postgresql://...`` for PostgreSQL.

Run: python benchmarks/board_abuse.py [--requests 300]
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from companion.board.store import MAX_NUMBER, BoardStore
from companion.rules import RuleSet, new_game
from companion.rules.notation import to_text
from boardproc import rss_mb, start_board
from report import Report, add_json_argument

KEY = "abuse-test-event-key"




def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--db", default=None, help="postgresql://... (default: a SQLite file in a temp dir)")
    add_json_argument(ap)
    args = ap.parse_args()
    db = args.db or str(Path(tempfile.mkdtemp(prefix="taki-board-abuse-")) / "board.db")
    board, port = start_board(db, KEY)

    def send(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method="POST",
                                     headers={"Content-Type": "application/json", **headers})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    try:
        names = ["Dana", "Omer"]
        state = to_text(new_game(names, 0, RuleSet()))
        ev = {"seq": 0, "t": 1.0, "state": state, "rulings": []}
        good = {"kiosk": "k1", "table": 1, "game": 1, "names": names, "events": [ev]}
        tokens = {}
        for k, t in (("k1", 1), ("k2", 2)):
            _, reply = send("/api/enrol", json.dumps({"kiosk": k, "table": t}).encode(), {"X-Event-Key": KEY})
            tokens[k] = json.loads(reply)["token"]
        mine = {"X-Kiosk-Token": tokens["k1"]}
        assert send("/api/push", json.dumps(good).encode(), mine)[0] == 200

        def push(body: object, headers: dict[str, str] | None = None) -> tuple[str, bytes, dict[str, str]]:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            return "/api/push", raw, mine if headers is None else headers

        def with_event(**change: object) -> dict[str, object]:
            return {**good, "events": [{**ev, **change}]}

        kinds = [
            push(good, {"X-Kiosk-Token": tokens["k1"][:-1] + "x"}),
            push(good, {}),
            push(good, {"X-Event-Key": KEY}),
            push(good, {"X-Kiosk-Token": tokens["k2"]}),  # k2's token pushing as k1
            push(b"{not json"),
            push(b"[" * 100_000),
            push(b"[" + b"1," * 600_000 + b"1]"),  # over the size limit
            push(with_event(seq=MAX_NUMBER + 1)),
            push({**good, "game": MAX_NUMBER + 1}),
            push({**good, "game": 2}),  # a legal far seq in a game of its own: stored, costs nothing
            push(with_event(state="\ud800")),
            push({**good, "names": ["Dana", "\ud800"]}),
            push(b'{"kiosk": "k1", "table": 1, "game": 1, "names": ["Dana", "Omer"], "events": '
                 b'[{"seq": 1, "t": Infinity, "state": "x", "rulings": []}]}'),
            push(b'{"kiosk": "k1", "table": 1, "game": 1, "names": ["Dana", "Omer"], "events": '
                 b'[{"seq": 1, "t": NaN, "state": "x", "rulings": []}]}'),
            push({**good, "kiosk": "k1\n"}),
            push({**good, "names": ["Dana", "dana"]}),
            push({**good, "names": ["Dana", "   "]}),
            push({**good, "names": ["Dana", "\u202eanaD"]}),
            push(with_event(state=to_text(new_game(["Dana", "Omer"], 1, RuleSet())))),  # rewriting seq 0
            push({**good, "table": 2}),
            push({**good, "table": "1; DROP TABLE events"}),
            push(with_event(seq=-1)),
            push({**good, "events": [ev] * 501}),
            push(with_event(rulings=["x" * 301])),
            ("/api/enrol", json.dumps({"kiosk": "k1", "table": 1}).encode(), {"X-Event-Key": KEY}),
            ("/api/enrol", json.dumps({"kiosk": "k9", "table": 1}).encode(), {"X-Event-Key": KEY}),
            ("/api/enrol", json.dumps({"kiosk": "k9", "table": 9}).encode(), {"X-Event-Key": "not-the-key"}),
            ("/api/enrol", b"[" * 50_000, {"X-Event-Key": KEY}),
            ("/api/release", json.dumps({"table": 1}).encode(), {"X-Event-Key": "not-the-key"}),
            ("/api/heartbeat", b"{}", {"X-Kiosk-Token": "forged"}),
        ]
        far = {**good, "game": 2, "events": [{**ev, "seq": MAX_NUMBER}]}
        kinds[9] = push(far)
        statuses: Counter[int] = Counter()
        peak = rss_mb(board.pid)
        t0 = time.time()
        for i in range(args.requests):
            path, raw, headers = kinds[i % len(kinds)]
            status, _ = send(path, raw, headers)
            statuses[status] += 1
            peak = max(peak, rss_mb(board.pid))
        took = time.time() - t0
        # k2 pushes once and falls silent; nothing else happens. When does the page's feed say offline?
        k2 = {"X-Kiosk-Token": tokens["k2"]}
        send("/api/push", json.dumps({**good, "kiosk": "k2", "table": 2}).encode(), k2)
        silent, offline_after = time.time(), float("nan")
        while time.time() - silent < 30:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/stream?once=1", timeout=10) as r:
                feed = json.loads(r.read().decode().split("data: ", 1)[1])
            if not next(t for t in feed["tables"] if t["table"] == 2)["online"]:
                offline_after = time.time() - silent
                break
            time.sleep(0.25)
        print(f"a silent table shown offline {offline_after:.1f} s after its last push")
        store = BoardStore(db)
        rows = store.count()
        history = store.history("k1", 1) + store.history("k1", 2) + store.history("k2", 1)
        store.close()
        # the honest rows: k1's seq 0, k1's legal far seq, k2's one push
        wrong = rows - 3 + sum(1 for seq, st in history if (seq, st) not in ((0, state), (MAX_NUMBER, state)))
        print(f"{args.requests} bad requests of {len(kinds)} kinds in {took:.1f} s on "
              f"{'PostgreSQL' if db.startswith('postgres') else 'SQLite'}")
        print(f"answers: {dict(sorted(statuses.items()))}; 5xx: {sum(v for k, v in statuses.items() if k >= 500)}")
        print(f"stored wrongly: {wrong}; board memory peak {peak:.0f} MB")
        kind = "PostgreSQL" if db.startswith("postgres") else "SQLite"
        rep = Report("board_abuse", f"Event board: forged and malformed requests, {kind}")
        rep.add("bad requests", args.requests, f"of {len(kinds)} kinds")
        rep.add("answered 5xx", sum(v for k, v in statuses.items() if k >= 500), "", "0")
        rep.add("stored wrongly", wrong, "", "0")
        rep.add("board memory, peak", round(peak), "MB", "< 100 MB")
        rep.add("a silent table shown offline after", round(offline_after, 1), "s", "<= 10 s")
        rep.note("Answers by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())) + ".")
        rep.write(args.json)
    finally:
        board.kill()
        board.wait(10)


if __name__ == "__main__":
    main()
