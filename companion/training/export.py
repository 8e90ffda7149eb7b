"""Exports the trained detector to every backend that exports offline.

ONNX (onnx + onnxslim), OpenVINO (openvino) and NCNN (pnnx from PyPI) are all
pip packages here, so no export downloads a binary.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..vision.yolo_env import YOLO

FORMATS = ("onnx", "openvino", "ncnn")


def export_all(weights: Path, out_dir: Path, imgsz: int = 192, name: str = "taki-yolov8n",
               formats: tuple[str, ...] = FORMATS) -> dict[str, Path]:
    """Copy the weights to ``out_dir/<name>.pt`` and export each format beside them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pt = out_dir / f"{name}.pt"
    if weights.resolve() != pt.resolve():
        shutil.copyfile(weights, pt)
    made: dict[str, Path] = {"pytorch": pt}
    for fmt in formats:
        result = YOLO(pt).export(format=fmt, imgsz=imgsz, simplify=True, dynamic=False, half=False,
                                 device="cpu", verbose=False)
        made[fmt] = Path(result)
        if fmt == "onnx":
            from .embedding import add_embedding_output, is_classifier

            if is_classifier(made[fmt]):
                add_embedding_output(made[fmt])  # deck prototypes read the classifier's embedding
    return made
