"""Benchmark: reader ms/frame for each shipped backend (whole predict calls).

For each backend: the detector alone, and the reader the app uses (the detector
with the face classifier of the same backend behind it).

Run: python benchmarks/detector_speed.py [--frames 60] [--imgsz 192]
Prints numbers; asserts nothing. Uses 2 threads, like the target machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from companion.vision.classifier import load_reader
from companion.vision.detector import MODELS_DIR, ModelError, YoloDetector
from companion.synth.scene import Compositor, SceneConfig


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--imgsz", type=int, default=192)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    comp = Compositor(config=SceneConfig.varied(320))
    frames = [comp.scene(90_000 + i).image for i in range(args.frames)]
    candidates = [("pytorch", "taki-yolov8n.pt"), ("onnx", "taki-yolov8n.onnx"),
                  ("openvino", "taki-yolov8n_openvino_model"), ("ncnn", "taki-yolov8n_ncnn_model")]
    for backend, name in candidates:
        path = MODELS_DIR / name
        if not path.exists():
            print(f"{backend:9s} not shipped")
            continue
        try:
            readers = [("detector", YoloDetector(path, imgsz=args.imgsz)),
                       ("+ classifier", load_reader(path, "auto", imgsz=args.imgsz))]
        except ModelError as e:
            print(f"{backend:9s} failed to load: {e}")
            continue
        for what, det in readers:
            for f in frames[:5]:
                det.detect(f)  # warm up
            times = []
            for f in frames:
                t = time.perf_counter()
                det.detect(f)
                times.append((time.perf_counter() - t) * 1000)
            print(f"{backend:9s} {what:13s} median {statistics.median(times):6.1f} ms/frame  "
                  f"p90 {np.percentile(times, 90):6.1f}  at {args.imgsz} px")


if __name__ == "__main__":
    main()
