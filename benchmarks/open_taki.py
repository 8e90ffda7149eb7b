"""Benchmark: an open TAKI continued by the next player, refereed from the camera alone.

Issue 14's game on synthetic videos with arms reaching in from each seat
(:func:`companion.training.track_eval.open_taki_run`): 4 players, a card turned up,
P0 plays a TAKI and a card of its colour and says nothing, P1 goes on with a card of
that colour and a +2 of it and calls "closed TAKI". Each card reaches the real
session as the app sends it: the tracker's event, and its arm's seat when the seat
map is sure of it. A run is right when every player's count is right and the
closing +2 is P2's to answer. Colours, numbers, tables and arms are drawn per video;
the reader is the ground truth, so what is measured is the seats and the tracker.

Run: python benchmarks/open_taki.py [--videos 100] [--seed 90000] [--no-seats]
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse

from companion.synth.scene import Compositor, SceneConfig
from companion.training.track_eval import open_taki_run
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--videos", type=int, default=100)
    ap.add_argument("--seed", type=int, default=90000, help="first video seed (never used for tuning)")
    ap.add_argument("--no-seats", action="store_true", help="no seats known: the turn order alone")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('open_taki', "An open TAKI refereed from the camera alone")
    comp = Compositor(config=SceneConfig(size=320, photometric=False))
    right = 0
    for k in range(args.videos):
        run = open_taki_run(args.seed + k, comp, seats=not args.no_seats)
        right += run.right
        if not run.right:
            print(f"  video {args.seed + k}: {run.describe()}")
    print(f"open TAKI continued by the next player, refereed right: {right}/{args.videos} "
          f"= {100 * right / args.videos:.1f}% (target 98%)")
    rep.add("open TAKI continued by the next player, refereed right", round(100 * right / args.videos, 1),
            f"% of {args.videos} videos", ">= 98%")
    rep.write(args.json)


if __name__ == "__main__":
    main()
