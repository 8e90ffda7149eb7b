"""Benchmark: how right the card finder's corners are on blurred photos, by crispness.

Where to put the finder's two blur bounds (``MIN_CRISPNESS``: refused; ``CRISP``:
soft) is a trade: a lower bound takes more photos but cuts more of them wrong. This
runs the finder with no bound on single-card photos of the held-out style (as
``benchmarks/card_finder.py`` makes them), each as taken and blurred four ways (a 5
and a 9 px motion blur in a random direction, a Gaussian of 1.2 and 2 px), and
prints the share of wrong corners (over 4% of the card's height) by the crispness
measured at the corners found. Use tuning seeds (4242, 6161, 7373), never 31337.

Run: python benchmarks/blur_bounds.py [--seed 4242] [--photos 200] [--start 0]
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.cardfinder import CRISP, MIN_CRISPNESS, CardFinder, CardNotFound, card_crispness
from companion.vision.cardmask import shipped_masker
from companion.vision.detector import YoloDetector

BANDS = (0.0, 0.06, 0.07, 0.08, 0.09, 0.105, 9.0)
from report import Report, add_json_argument


def motion_blur(image: np.ndarray, n: int, angle: float) -> np.ndarray:
    kernel = np.zeros((n, n), np.float32)
    kernel[n // 2, :] = 1
    kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), angle, 1.0), (n, n))
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--photos", type=int, default=200)
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('blur_bounds', f"The finder's blur bounds on photos {args.start}-{args.start + args.photos - 1} of seed {args.seed}")
    cfg = replace(SceneConfig.varied(480, "held-out"), under_cards=(0, 0), hand_p=0.0, card_height=(0.4, 0.75))
    comp = Compositor(config=cfg)
    finder = CardFinder(YoloDetector(None, conf=0.2), masker=shipped_masker(), min_crispness=0.0)
    cuts: dict[str, Counter[int]] = {}
    wrong: dict[str, Counter[int]] = {}
    refused: Counter[str] = Counter()
    for i in range(args.start, args.start + args.photos):
        scene = comp.scene(np.random.default_rng([args.seed, i]))
        angle = float(np.random.default_rng([args.seed, i, 99]).uniform(0, 180))
        truth = scene.top.corners
        height = float(np.linalg.norm(truth[3] - truth[0]))
        for name, image in (("as taken", scene.image), ("motion 5 px", motion_blur(scene.image, 5, angle)),
                            ("motion 9 px", motion_blur(scene.image, 9, angle)),
                            ("Gaussian 1.2 px", cv2.GaussianBlur(scene.image, (0, 0), 1.2)),
                            ("Gaussian 2 px", cv2.GaussianBlur(scene.image, (0, 0), 2))):
            try:
                corners = finder.find(image).corners
            except CardNotFound as e:
                refused[f"{name}: {str(e).split(':')[0]}"] += 1
                continue
            band = int(np.searchsorted(BANDS, card_crispness(image, corners), side="right")) - 1
            err = min(float(np.abs(corners - np.roll(truth, k, 0)).max()) for k in (0, 2)) / height
            cuts.setdefault(name, Counter())[band] += 1
            wrong.setdefault(name, Counter())[band] += err >= 0.04
    print(f"seed {args.seed}, photos {args.start}-{args.start + args.photos - 1}; "
          f"bounds now: refused under {MIN_CRISPNESS}, soft under {CRISP}")
    print("crispness found  " + "  ".join(f"{n:>15s}" for n in cuts))
    for b, (lo, hi) in enumerate(zip(BANDS, BANDS[1:])):
        cells = [f"{wrong[n][b]:>5d} of {cuts[n][b]:<6d}" for n in cuts]
        print(f"{lo:5.3f}-{hi:5.3f}     " + "  ".join(cells) + "   (wrong of cut)")
    for why, n in refused.most_common():
        print(f"  refused, {why}: {n}")
        rep.add(f"refused, {why}", n)
    for b, (lo, hi) in enumerate(zip(BANDS, BANDS[1:])):
        for n in cuts:
            rep.add(f"crispness {lo:.3f}-{hi:.3f}, {n}: wrong of cut", f"{wrong[n][b]} of {cuts[n][b]}")
    rep.write(args.json)


if __name__ == "__main__":
    main()
