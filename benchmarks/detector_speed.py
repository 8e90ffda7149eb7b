"""Benchmark: reader ms/frame for each shipped backend (whole predict calls).

For each backend through ultralytics: the detector alone, and the reader (the
detector with the face classifier of the same backend behind it). Then the
runtime reader (companion/vision/runtime.py: ONNX Runtime or NCNN with numpy
around it, no torch) for the ONNX and NCNN exports, with the threads it used and
the share of one core it takes at the demo's 10 frames a second (also printed for
PyTorch and OpenVINO through ultralytics, the way the kiosk runs a .pt or OpenVINO
model; it never runs ONNX or NCNN exports through ultralytics).

Run: python benchmarks/detector_speed.py [--frames 60] [--imgsz 192] [--threads 1 2]
Prints numbers; asserts nothing. The runtime reader at each --threads count side by
side (the kiosk's default is 1); ultralytics with torch at 2 threads.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from companion.vision.classifier import load_reader
from companion.vision.detector import MODELS_DIR, ModelError, YoloDetector
from companion.synth.scene import Compositor, SceneConfig
from report import Report, add_json_argument

REPORT = Report("detector_speed", "Card reader speed: both stages, per backend")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--imgsz", type=int, default=192)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                    help="the runtime reader's thread counts, side by side (the kiosk's default is 1)")
    ap.add_argument("--skip-ultralytics", action="store_true")
    ap.add_argument("--deck", default=None, help="a deck profile: the runtime reader with its prototypes too")
    add_json_argument(ap)
    args = ap.parse_args()
    measure(args)
    REPORT.note(f"Synthetic table scenes at {args.imgsz} px, {args.frames} frames, median time a frame.")
    REPORT.write(args.json)


def measure(args: argparse.Namespace) -> None:
    runtime_rows(args)
    if args.deck:
        deck_rows(args)
    if args.skip_ultralytics:
        return
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
            times = _timed(det, frames)
            share = ""
            if what != "detector" and backend in ("pytorch", "openvino"):  # the kiosk reads these through ultralytics
                share = f"  at 10 fps {100 * _core_share_at(det, frames[:30]):4.0f}% of a core"
            print(f"{backend:9s} {what:13s} median {statistics.median(times):6.1f} ms/frame  "
                  f"p90 {np.percentile(times, 90):6.1f}  at {args.imgsz} px{share}")
            REPORT.add(f"ultralytics {backend}, {'finder alone' if what == 'detector' else 'both stages'}",
                       round(statistics.median(times), 1), "ms a frame")


def _timed(det, frames):  # type: ignore[no-untyped-def]
    for f in frames[:5]:
        det.detect(f)  # warm up
    times = []
    for f in frames:
        t = time.perf_counter()
        det.detect(f)
        times.append((time.perf_counter() - t) * 1000)
    return times


def _core_share_at(det, frames, fps: float = 10.0) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds per wall second while reading ``fps`` frames a second (1.0: one core)."""
    c0, t0 = time.process_time(), time.perf_counter()
    for i, f in enumerate(frames):
        det.detect(f)
        wait = t0 + (i + 1) / fps - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    return (time.process_time() - c0) / (time.perf_counter() - t0)


def runtime_rows(args: argparse.Namespace) -> None:
    from companion.vision.runtime import load_runtime_reader

    comp = Compositor(config=SceneConfig.varied(320))
    frames = [comp.scene(90_000 + i).image for i in range(args.frames)]
    for backend, name in (("onnx", "taki-yolov8n.onnx"), ("ncnn", "taki-yolov8n_ncnn_model")):
        for threads in args.threads:
            reader = load_runtime_reader(MODELS_DIR / name, threads=threads)
            times = _timed(reader, frames)
            share = _core_share_at(reader, frames[:30])
            print(f"runtime {backend:5s} + classifier  median {statistics.median(times):6.1f} ms/frame  "
                  f"p90 {np.percentile(times, 90):6.1f}  threads {reader.detector.engine.threads}  "
                  f"at 10 fps {100 * share:4.0f}% of a core")
            n = reader.detector.engine.threads
            REPORT.add(f"runtime reader ({backend}), both stages, {n} thread{'s' if n > 1 else ''}",
                       round(statistics.median(times), 1), "ms a frame", "<= 15 ms" if n == 1 else "")
            REPORT.add(f"runtime reader ({backend}) at 10 frames a second, {n} thread{'s' if n > 1 else ''}",
                       round(100 * share), "% of a core")

def deck_rows(args: argparse.Namespace) -> None:
    """The runtime reader with a deck profile: every frame a new card (its geometric look
    taken every frame, the worst case), and as at the table, each card lying still for
    ten frames (camera noise between them) before the next."""
    from companion.vision.runtime import load_runtime_reader, table_reader

    comp = Compositor(config=SceneConfig.varied(320))
    frames = [comp.scene(90_000 + i).image for i in range(args.frames)]
    rng = np.random.default_rng(0)
    still = [np.clip(f.astype(np.int16) + rng.integers(-3, 4, f.shape), 0, 255).astype(np.uint8)
             for f in frames[: max(1, args.frames // 10)] for _ in range(10)]
    for threads in args.threads:
        rows = {"shipped pair": load_runtime_reader(threads=threads),
                "with the deck": table_reader(deck=args.deck, threads=threads)}
        for name, reader in rows.items():
            new, lying = _timed(reader, frames), _timed(reader, still)
            print(f"runtime onnx  {name:14s} threads {threads}: a new card every frame median "
                  f"{statistics.median(new):6.1f} ms/frame (p90 {np.percentile(new, 90):6.1f}); each card "
                  f"lying 10 frames median {statistics.median(lying):6.1f} (mean {statistics.mean(lying):6.1f})")
            REPORT.add(f"runtime reader, {name}, {threads} thread(s): a new card every frame",
                       round(statistics.median(new), 1), "ms a frame")
            REPORT.add(f"runtime reader, {name}, {threads} thread(s): each card lying 10 frames",
                       round(statistics.median(lying), 1), "ms a frame", "<= 15 ms" if threads == 1 else "")


if __name__ == "__main__":
    main()
