"""Benchmark: the card finder on single-card photos of a style no training used.

Photos: one held-out-glyph-family card (published block style) on varied tables
(wood, checked cloth, laminate, tiles, photos), the camera tilted up to 35
degrees, hard shadows, warm light; seeds never used for tuning. A card counts as
cut out when every corner is within 4% of the card's height of the truth
(upright or turned half round). Prints the rate, the reasons given, and ms/photo.
Then the same photos cut by the picture's edge (10-45% of the card gone, one side
drawn per photo): how many are refused as "only part of the card", as they should be.

Run: python benchmarks/card_finder.py [--photos 200] [--model models/taki-yolov8n.pt] [--outliner O.pt]
     [--masker shipped|none|M.onnx] [--seed 31337] [--cut 100]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.cardfinder import PART, CardFinder, CardNotFound
from companion.vision.cardmask import OnnxMasker, shipped_masker
from companion.vision.detector import YoloDetector
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--model", default=None)
    ap.add_argument("--size", type=int, default=480)
    ap.add_argument("--outliner", default=None, help="a card outliner (train --segment) to take corners from")
    ap.add_argument("--masker", default="shipped", help="the learnt card masker (.onnx), 'shipped' or 'none'")
    ap.add_argument("--seed", type=int, default=31337, help="the photos' seed (31337: never used for tuning)")
    ap.add_argument("--cut", type=int, default=100, help="photos cut by the picture's edge (0: none)")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('card_finder', f"Enrolment's card finder: single-card photos cut out, seed {args.seed}")
    outliner = None
    if args.outliner:
        from companion.vision.outliner import YoloOutliner

        outliner = YoloOutliner(args.outliner)
    masker = None
    if args.masker == "shipped":
        masker = shipped_masker()
    elif args.masker != "none":
        masker = OnnxMasker(args.masker)
    print(f"card masker: {masker.path if masker else 'none (edges only)'}")
    finder = CardFinder(YoloDetector(args.model, conf=0.2), outliner=outliner, masker=masker)
    cfg = replace(SceneConfig.varied(args.size, "held-out"), under_cards=(0, 0), hand_p=0.0, card_height=(0.4, 0.75))
    comp = Compositor(config=cfg)
    good, why, times = 0, Counter(), []
    for i in range(args.photos):
        scene = comp.scene(np.random.default_rng([args.seed, i]))
        t = time.perf_counter()
        try:
            corners = finder.find(scene.image).corners
        except CardNotFound as e:
            why[str(e).split(":")[0]] += 1
            continue
        finally:
            times.append((time.perf_counter() - t) * 1000)
        truth = scene.top.corners
        height = float(np.linalg.norm(truth[3] - truth[0]))
        err = min(float(np.abs(corners - np.roll(truth, k, 0)).max()) for k in (0, 2)) / height
        if err < 0.04:
            good += 1
        else:
            why["wrong corners"] += 1
    if args.photos:
        print(f"cut out correctly: {good}/{args.photos} = {100 * good / args.photos:.1f}%  "
              f"median {np.median(times):.0f} ms/photo")
        rep.add("cut out within 4% of the card", round(100 * good / args.photos, 1), f"% of {args.photos} photos",
                ">= 98%")
        rep.add("time a photo, median", round(float(np.median(times))), "ms")
        for reason, n in why.most_common():
            print(f"  {reason}: {n}")
    if args.cut:
        said: Counter[str] = Counter()
        for i in range(args.cut):
            scene = comp.scene(np.random.default_rng([args.seed, i]))
            try:
                finder.find(cut_off(scene.image, scene.top.corners, np.random.default_rng([args.seed, i, 7])))
                said["taken (wrong: part of a card)"] += 1
            except CardNotFound as e:
                said[str(e).split(":")[0]] += 1
        print(f"cards cut by the picture's edge, refused as only part of a card: "
              f"{said[PART.split(':')[0]]}/{args.cut}")
        rep.add("cards cut by the picture's edge, refused as only part of a card", said[PART.split(':')[0]],
                f"of {args.cut}")
        for reason, n in said.most_common():
            print(f"  {reason}: {n}")
    rep.write(args.json)


def cut_off(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The picture cut so that 10-45% of the card (along x or y) falls outside it."""
    lo, hi = corners.min(0), corners.max(0)
    side, share = int(rng.integers(4)), float(rng.uniform(0.1, 0.45))
    axis = side // 2  # 0: cut across x, 1: across y
    at = int(lo[axis] + share * (hi[axis] - lo[axis])) if side % 2 == 0 else \
        int(hi[axis] - share * (hi[axis] - lo[axis]))
    kept = image[:, at:] if side == 0 else image[:, :at] if side == 1 else image[at:] if side == 2 else image[:at]
    return np.ascontiguousarray(kept)


if __name__ == "__main__":
    main()
