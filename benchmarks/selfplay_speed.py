"""Benchmark: full random self-play games and engine events per second (4 players).

Run: python benchmarks/selfplay_speed.py [--games N] [--players N] [--compiled]
Prints numbers; asserts nothing (targets live in the issue, not in a timed test).
``--compiled`` first builds the mypyc core that wheels ship (companion/buildcore.py)
in a scratch folder and times that; without it, whatever ``companion.rules`` imports.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from companion.rules import apply, deal, legal_moves
from companion.rules.selfplay import RandomPolicy, play_game
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--compiled", action="store_true", help="build and time the mypyc-compiled core")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report("selfplay_speed", "Rules core speed (self-play, one core)")
    if os.environ.get("TAKI_BENCH_COMPILED"):  # the compiled copy, started by --compiled below
        rep.argv = sys.argv[1:] + ["--compiled"]
    if args.compiled:
        import subprocess
        import tempfile
        from pathlib import Path

        from companion.buildcore import build_copy

        with tempfile.TemporaryDirectory() as tmp:
            build_copy(Path(tmp))
            argv = [a for a in sys.argv[1:] if a != "--compiled"]
            env = {**os.environ, "PYTHONPATH": tmp, "TAKI_BENCH_COMPILED": "1"}
            raise SystemExit(subprocess.call([sys.executable, __file__, *argv], env=env))

    from companion.rules import engine

    build = "pure Python" if engine.__file__.endswith(".py") else "compiled (mypyc)"
    print(f"rules core: {build}, one process (one core)")

    t0 = time.perf_counter()
    events = 0
    for seed in range(args.games):
        events += play_game(args.players, seed, [RandomPolicy() for _ in range(args.players)]).events
    dt = time.perf_counter() - t0
    print(f"self-play: {args.games / dt:8.0f} games/s  {events / dt:9.0f} events/s  "
          f"({events / args.games:.0f} events/game, random policy, {args.players} players)")
    rep.title = f"Rules core speed ({build}, one core)"
    rep.add(f"self-play, {args.players} players, random policy", round(args.games / dt), "games/s")

    # The engine alone: replay recorded moves, no policy or bookkeeping.
    import random

    recorded = []
    for seed in range(200):
        s = deal([f"P{i}" for i in range(args.players)], seed=seed)
        rng = random.Random(seed)
        trace = []
        while not s.is_over and len(trace) < 5000:
            moves = legal_moves(s)
            m = moves[rng.randrange(len(moves))] if s.plus3_by is None else None
            if m is None:
                from companion.rules import WindowClosed
                m = WindowClosed()
            trace.append(m)
            s = apply(s, m).state
        recorded.append((deal([f"P{i}" for i in range(args.players)], seed=seed), trace))
    n = sum(len(t) for _, t in recorded)
    t0 = time.perf_counter()
    for s, trace in recorded:
        for m in trace:
            s = apply(s, m).state
    dt = time.perf_counter() - t0
    print(f"apply():   {n / dt:9.0f} events/s  ({dt / n * 1e6:.1f} us/event)")
    t0 = time.perf_counter()
    for s, trace in recorded:
        for m in trace:
            legal_moves(s)
            s = apply(s, m).state
    dt2 = time.perf_counter() - t0
    print(f"legal_moves(): {(dt2 - dt) / n * 1e6:.1f} us/call")
    rep.add("apply()", round(dt / n * 1e6, 1), "us an event")
    rep.add("legal_moves()", round((dt2 - dt) / n * 1e6, 1), "us a call")
    rep.write(args.json)


if __name__ == "__main__":
    main()
