"""Scores a detector on a YOLO-format folder: mAP (ultralytics' validator) and
top-card accuracy (is the most confident detection the labelled top card?).

mAP is the detector's own. Top-card accuracy is the reader's: the detector with
the face classifier behind it (see classifier.py), as the app reads cards; the
detector alone is reported beside it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import yaml

from ..rules.cards import FACES
from ..vision.detector import Detector, YoloDetector


@dataclass
class EvalResult:
    images: int
    map50_95: float
    map50: float
    top_card_accuracy: float  # the reader (detector + classifier, when one is used)
    per_class_map: dict[str, float] = field(default_factory=dict)
    confusions: list[tuple[str, str, int]] = field(default_factory=list)  # true, predicted, count
    missed: int = 0
    detector_top_card_accuracy: float | None = None  # the detector alone, when a classifier is used
    classifier: str | None = None
    per_face_accuracy: dict[str, float] = field(default_factory=dict)  # true face -> share read right
    reader: str = "ultralytics"  # or "runtime" (ONNX Runtime / NCNN without torch)
    predictions: list[str] = field(default_factory=list)  # the top card read per image ("" for none)

    def report(self) -> str:
        lines = [f"images {self.images}",
                 f"mAP50-95 {self.map50_95:.4f}  mAP50 {self.map50:.4f}"
                 + ("  (finding the card, whatever its face)" if not self.per_class_map else ""),
                 f"top card correct {self.top_card_accuracy:.4f} ({self.missed} images with no detection)"
                 + (f" with classifier {self.classifier}" if self.classifier else "")]
        if self.detector_top_card_accuracy is not None:
            lines.append(f"top card correct, detector alone {self.detector_top_card_accuracy:.4f}")
        if self.confusions:
            lines.append("most confused: " + ", ".join(f"{t}->{p} x{n}" for t, p, n in self.confusions[:8]))
        return "\n".join(lines)


def split_images(data: Path, split: str) -> list[Path]:
    try:
        cfg = yaml.safe_load(data.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no dataset file {data}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ValueError(f"{data} is not a readable data.yaml ({type(e).__name__})") from None
    if not isinstance(cfg, dict) or split not in cfg:
        raise ValueError(f"{data} has no {split!r} split")
    root = Path(cfg.get("path", data.parent))
    folder = root / cfg[split]
    if not folder.is_dir():
        raise FileNotFoundError(f"{data}: its {split} images folder {folder} does not exist")
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in {".jpg", ".png", ".jpeg"})


def _label(img: Path) -> int | None:
    lab = Path(str(img).replace("/images/", "/labels/")).with_suffix(".txt")
    if not lab.exists():
        return None
    first = lab.read_text().split()
    return int(first[0]) if first else None


def _top_card(reader: Detector, images: list[Path], per_face: dict[str, list[int]] | None = None,
              predictions: list[str] | None = None) -> tuple[int, int, Counter[tuple[str, str]]]:
    right = missed = 0
    confused: Counter[tuple[str, str]] = Counter()
    for p in images:
        truth = _label(p)
        if truth is None:
            continue
        image = cv2.imread(str(p))
        dets = reader.detect(image) if image is not None else []
        if predictions is not None:
            predictions.append(dets[0].card.code if dets else "")
        ok = bool(dets) and dets[0].card.index == truth
        if per_face is not None:
            tally = per_face.setdefault(FACES[truth].code, [0, 0])
            tally[0] += ok
            tally[1] += 1
        if not dets:
            missed += 1
            continue
        if ok:
            right += 1
        else:
            confused[(FACES[truth].code, dets[0].card.code)] += 1
    return right, missed, confused


def evaluate(model: str | Path | None, data: Path, split: str = "test", imgsz: int = 192,
             conf: float = 0.25, classifier: str | Path | None = "auto", deck: str | Path | None = None,
             runtime: bool = False) -> EvalResult:
    """``runtime``: read with the kiosk's torch-free reader (an .onnx or *_ncnn_model
    finder); the finder's mAP still comes from ultralytics' val."""
    from ..vision.classifier import TwoStageDetector, load_reader
    from ..vision.runtime import table_reader

    images = split_images(data, split)  # a missing or broken dataset is said before any model loads
    det = YoloDetector(model, imgsz=imgsz, conf=conf)
    # A card finder is scored on finding the card (every label is one class to it).
    metrics = det.model.val(data=str(data), split=split, imgsz=imgsz, batch=16, plots=False,
                            verbose=False, device="cpu", conf=0.001, single_cls=not det.names_faces)
    box = metrics.box
    per_class = {FACES[int(c)].code: float(m) for c, m in zip(box.ap_class_index, box.maps[box.ap_class_index])} \
        if hasattr(box, "ap_class_index") and det.names_faces else {}
    n = len(images)
    reader = table_reader(model, classifier, deck=deck) if runtime else \
        load_reader(model, classifier, imgsz=imgsz, deck=deck)
    per_face: dict[str, list[int]] = {}
    predictions: list[str] = []
    right, missed, confused = _top_card(reader, images, per_face, predictions)
    alone = None
    if isinstance(reader, TwoStageDetector) and det.names_faces:
        alone = _top_card(det, images)[0] / n if n else 0.0
    return EvalResult(n, float(box.map), float(box.map50), right / n if n else 0.0, per_class,
                      [(t, p, c) for (t, p), c in confused.most_common()], missed, alone,
                      str(reader.classifier.path) if isinstance(reader, TwoStageDetector) else None,
                      {code: r / t for code, (r, t) in sorted(per_face.items())},
                      "runtime" if runtime else "ultralytics", predictions)
