"""Benchmark: an open TAKI continued by the next player, refereed from the camera alone.

Issue 14's game, on synthetic videos with arms reaching in from each seat (4
players, seats spread evenly, the first at the bottom of the picture): a card is
turned up, P0 plays a TAKI and a card of its colour and says nothing, P1 goes on
with a card of that colour and a +2 of it, and says "closed TAKI" (the one tap, the
call the rules ask of P1). Each card reaches the referee as the app sends it: the
tracker's event, its arm's seat when the seat map is sure of it (the session's
``seat_of``). A run is right when every player's count is right (P0 and P1 six
cards, the others eight) and the closing +2 is P2's to answer. Colours, numbers,
tables and arms are drawn per video; the reader is the ground truth ("oracle", as
``track-eval --model oracle``), so what is measured is the seat and the tracker.

Run: python benchmarks/open_taki.py [--videos 50] [--seed 90000]
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from companion.referee import Referee
from companion.referee.session import TableSession
from companion.rules import Card, CloseTaki, new_game
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.video import synth_video
from companion.training.track_eval import OracleDetector
from companion.vision.seats import SeatMap
from companion.vision.tracker import LeadingCardTracker, TrackKind

NAMES = ["P0", "P1", "P2", "P3"]


def run(seed: int, comp: Compositor) -> tuple[bool, str]:
    rng = np.random.default_rng(seed)
    colour = "RYGB"[int(rng.integers(4))]
    n1, n2, start = (str(int(x)) for x in rng.choice([1, 3, 4, 5, 6, 7, 8, 9], 3, replace=False))
    cards = [Card.from_code(c) for c in (colour + start, colour + "TAKI", colour + n1, colour + n2, colour + "+2")]
    turns = [int(rng.integers(4)), 0, 0, 1, 1]  # anyone turns up the first card
    video = synth_video(seed, plays=len(cards), size=320, compositor=comp, seats=4, turns=turns, first=cards,
                        same_p=0.0, hover_p=0.0)
    session = TableSession(Referee(new_game(NAMES)), seat_map=SeatMap.evenly(4))
    tracker, reader = LeadingCardTracker(), OracleDetector(video, seed=seed)
    seen: list[str] = []
    for i, image in enumerate(video.frames):
        for ev in tracker.update(image, i / video.fps, reader.detect(image)):
            if ev.kind is TrackKind.PLAYED and ev.card is not None:
                seat = session.seat_of(ev)
                seen.append(f"{ev.card.code}@{'-' if seat is None else seat}")
                session.card_seen(ev.card, i / video.fps, seat)
    session.referee.submit(CloseTaki())
    state = session.referee.state
    ok = state.counts == (6, 6, 8, 8) and state.to_move == 2 and state.stack == 1
    return ok, f"{' '.join(seen)} -> counts {state.counts}, to move P{state.to_move}, stack {state.stack}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--videos", type=int, default=50)
    ap.add_argument("--seed", type=int, default=90000, help="first video seed (never used for tuning)")
    args = ap.parse_args()
    comp = Compositor(config=SceneConfig(size=320, photometric=False))
    right, wrong = 0, Counter()
    for k in range(args.videos):
        ok, what = run(args.seed + k, comp)
        right += ok
        if not ok:
            print(f"  video {args.seed + k}: {what}")
            wrong["wrong"] += 1
    print(f"open TAKI continued by the next player, refereed right: {right}/{args.videos} "
          f"= {100 * right / args.videos:.1f}% (target 98%)")


if __name__ == "__main__":
    main()
