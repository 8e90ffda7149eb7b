"""Benchmark: kiosk launch -> window -> first camera frame, and resident memory, by reader path.

Side by side in one run: the runtime reader (the default: the shipped ONNX pair on
ONNX Runtime, no torch) and the ultralytics path (``--model taki-yolov8n.pt``), each
started cold N times in demo mode under Xvfb. Memory is the kiosk's VmRSS after
``--hold`` seconds of the demo.

Run: python benchmarks/kiosk_start.py [--starts 5] [--hold 30] [--ncnn] [--deck DECK]
Needs xvfb-run. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from report import Report, add_json_argument


def one_start(extra: list[str], hold: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "start.json"
        env = {**os.environ, "KIVY_HOME": str(Path(tmp) / "kivy"), "PYTHONPATH": str(ROOT)}
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m", "companion.cli",
               "--demo", "--windowed", "--mute", "--journal", str(Path(tmp) / "j.db"),
               "--exit-after", str(hold), "--startup-log", str(log), *extra]
        t0 = time.time()
        subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=hold + 120)
        marks = json.loads(log.read_text())
        return {"window": marks["window"] - t0, "first_frame": marks.get("first_frame", float("nan")) - t0,
                "rss_mib": marks["rss_mib"], "torch": float(marks["torch_loaded"])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--hold", type=float, default=30.0)
    ap.add_argument("--ncnn", action="store_true", help="also the runtime reader on the NCNN pair")
    ap.add_argument("--deck", default=None, help="also the runtime reader with this deck profile (--deck)")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report("kiosk_start", "Kiosk start-up and memory (the demo under Xvfb)")
    paths = [("runtime (onnx, no torch)", []), ("ultralytics (pytorch)", ["--model", "taki-yolov8n.pt"])]
    if args.ncnn:
        paths.insert(1, ("runtime (ncnn, no torch)", ["--model", "taki-yolov8n_ncnn_model"]))
    if args.deck:
        paths.insert(1, ("runtime + deck profile", ["--deck", str(Path(args.deck).resolve())]))
    rows = {}
    for name, extra in paths:
        runs = [one_start(extra, 6.0) for _ in range(args.starts)]
        mem = one_start(extra, args.hold)
        rows[name] = (statistics.median(r["window"] for r in runs),
                      statistics.median(r["first_frame"] for r in runs), mem["rss_mib"], mem["torch"])
    for name, (window, frame, rss, torch) in rows.items():
        print(f"{name:26s} window {window:5.2f} s  first frame {frame:5.2f} s (median of {args.starts})  "
              f"RSS after {args.hold:.0f} s {rss:6.0f} MiB  torch loaded: {bool(torch)}")
        rep.add(f"{name}: window", round(window, 2), "s")
        rep.add(f"{name}: first camera frame", round(frame, 2), "s")
        rep.add(f"{name}: memory after {args.hold:.0f} s", round(rss), "MiB", "<= 300 MiB" if "runtime" in name else "")
    a, b = rows["runtime (onnx, no torch)"], rows["ultralytics (pytorch)"]
    print(f"first frame: runtime path {b[1] / a[1]:.1f}x faster than the ultralytics path")
    rep.note(f"Median of {args.starts} cold starts; memory is the resident set after {args.hold:.0f} s of the demo.")
    rep.write(args.json)


if __name__ == "__main__":
    main()
