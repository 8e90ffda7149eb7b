"""Benchmark: the shipped card reader's top-card accuracy on faces it never saw drawn.

The test set is the held-out glyph family's (``datasets/README.md``: the published
block style drawn in URW Gothic, which no training picture used, under room light as
a camera records it): ``taki-companion dataset --test 600 --seed 778 --styles
held-out``, made here in a temp folder unless ``--data`` names one already made. It
is read by the kiosk's torch-free reader on ONNX Runtime and on NCNN, as
``taki-companion eval --runtime`` reads it.

Run: python benchmarks/reader_accuracy.py [--scenes 600] [--data D/data.yaml]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from companion.vision.detector import MODELS_DIR
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=600)
    ap.add_argument("--seed", type=int, default=778)
    ap.add_argument("--data", default=None, help="a data.yaml already made (default: make the held-out set)")
    add_json_argument(ap)
    args = ap.parse_args()
    from companion.training.evaluate import evaluate

    data = Path(args.data) if args.data else None
    if data is None:
        from companion.synth.dataset import DatasetSpec, make_dataset

        out = Path(tempfile.mkdtemp(prefix="taki-reader-acc-"))
        data = make_dataset(DatasetSpec(out, {"test": args.scenes}, args.seed, styles="held-out"))
    rep = Report("reader_accuracy", "Card reader: top card on a glyph family no training picture used")
    for backend, finder in (("ONNX Runtime", "taki-yolov8n.onnx"), ("NCNN", "taki-yolov8n_ncnn_model")):
        res = evaluate(MODELS_DIR / finder, data, runtime=True)
        print(f"{backend:12s} top card {100 * res.top_card_accuracy:.1f}% of {res.images} piles; "
              f"confused: {res.confusions[:5]}")
        rep.add(f"top card, runtime reader on {backend}", round(100 * res.top_card_accuracy, 1),
                f"% of {res.images} piles", ">= 95%")
        worst = min(res.per_face_accuracy.items(), key=lambda kv: kv[1]) if res.per_face_accuracy else None
        if worst:
            rep.add(f"the least-read face on {backend}", f"{worst[0]}: {100 * worst[1]:.0f}%")
    rep.note("Test set: taki-companion dataset --test N --seed 778 --styles held-out (datasets/README.md).")
    rep.write(args.json)


if __name__ == "__main__":
    main()
