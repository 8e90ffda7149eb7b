"""Benchmark: the card finder on a kind of card no training scene had (full-bleed art).

``--styles foreign-held-out`` scenes (``companion/synth/foreign.py``: art covering the
whole card, a small corner index, on every kind of table, 0-2 cards under it): how
often the finder's most confident box is the top card (IoU >= 0.7).

Run: python benchmarks/finder_held_out_kind.py [--scenes 200] [--model M.onnx]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from companion.synth.scene import Compositor, SceneConfig
from companion.vision.runtime import RuntimeFinder
from companion.vision.tracker import iou
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--model", nargs="+", default=[None], help="finders side by side (default: the shipped one)")
    ap.add_argument("--seed", type=int, default=777)
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report('finder_held_out_kind', "Card finder on a kind of card held out of its training (full-bleed art)")
    comp = Compositor(config=replace(SceneConfig.varied(416, "foreign-held-out", card_height=(0.2, 0.7)),
                                     under_cards=(0, 2)))
    scenes = [comp.scene(np.random.default_rng([args.seed, i])) for i in range(args.scenes)]
    for model in args.model:
        finder = RuntimeFinder(model, conf=0.25)
        boxed = sum(bool(d) and iou(d[0].box, s.box) >= 0.7 for s in scenes for d in [finder.detect(s.image)])
        print(f"{model or 'shipped finder'}: the top card boxed first in {boxed}/{len(scenes)} "
              f"({100 * boxed / len(scenes):.1f}%) full-bleed art scenes")
        rep.add(f"{model or 'shipped finder'}: top card boxed first", round(100 * boxed / len(scenes), 1),
                f"% of {len(scenes)} scenes")
    rep.write(args.json)


if __name__ == "__main__":
    main()
