"""Benchmark: where the card finder's blur bound sits between steady and shaken photos.

Photos: one held-out-style card on varied tables (as ``card_finder.py`` makes them),
cut flat at their true corners; each measured as taken, with a 9 px motion blur and
with a 2 px Gaussian blur, by :func:`~companion.vision.cardfinder.card_crispness`
(the card at its own size) and by the old measure (the card scaled to 280 px).
Prints how many of each a bound refuses, and how much each measure follows the
card's size in the photo (a blur test should not).

Run: python benchmarks/blur_bound.py [--photos 200] [--seed 4242]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import cv2
import numpy as np

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.cardfinder import MIN_CRISPNESS, card_crispness, crispness, order_corners, warp_card
from report import Report, add_json_argument


def _scaled(image: np.ndarray, corners: np.ndarray) -> float:
    return crispness(warp_card(image, corners, 200, 280)[14:-14, 10:-10])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--seed", type=int, default=4242, help="4242: the seeds the bound was chosen on")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('blur_bound', "Where the card finder's blur bound sits")
    cfg = replace(SceneConfig.varied(480, "held-out"), under_cards=(0, 0), hand_p=0.0, card_height=(0.4, 0.75))
    comp = Compositor(config=cfg)
    motion = np.zeros((9, 9), np.float32)
    motion[4, :] = 1 / 9
    rows = []
    for i in range(args.photos):
        scene = comp.scene(np.random.default_rng([args.seed, i]))
        c = order_corners(scene.top.corners)
        shots = (scene.image, cv2.filter2D(scene.image, -1, motion), cv2.GaussianBlur(scene.image, (0, 0), 2))
        rows.append([float(np.linalg.norm(c[3] - c[0]))] + [f(s, c) for f in (_scaled, card_crispness)
                                                             for s in shots])
    a = np.array(rows)
    for j, (name, bound) in enumerate((("card scaled to 280 px (old)", 0.085), ("card at its own size", MIN_CRISPNESS))):
        steady, shaken, soft = a[:, 1 + 3 * j], a[:, 2 + 3 * j], a[:, 3 + 3 * j]
        print(f"{name}: follows the card's height r={np.corrcoef(a[:, 0], steady)[0, 1]:.2f}; steady photos "
              f"{steady.min():.3f} at least")
        for th in sorted({bound, *np.round(np.arange(0.07, 0.125, 0.01), 3)}):
            mark = "  <- bound" if th == bound else ""
            print(f"  bound {th:.3f}: refuses steady {(steady < th).sum()}/{len(a)}, 9 px motion blur "
                  f"{(shaken < th).sum()}/{len(a)}, 2 px Gaussian {(soft < th).sum()}/{len(a)}{mark}")
            if th == bound:
                rep.add(f"{name}, bound {th:.3f}: steady photos refused", int((steady < th).sum()), f"of {len(a)}")
                rep.add(f"{name}, bound {th:.3f}: 9 px motion blur refused", int((shaken < th).sum()), f"of {len(a)}")
                rep.add(f"{name}, bound {th:.3f}: 2 px Gaussian blur refused", int((soft < th).sum()), f"of {len(a)}")
    rep.write(args.json)


if __name__ == "__main__":
    main()
