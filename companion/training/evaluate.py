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
from . import yolo_data


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
    predictions: list[str] = field(default_factory=list)  # the top card read per scored image ("" for none)
    split: str = "test"
    notes: list[str] = field(default_factory=list)  # what was read differently from our own sets, said

    def report(self) -> str:
        lines = [f"images {self.images} ({self.split})",
                 f"mAP50-95 {self.map50_95:.4f}  mAP50 {self.map50:.4f}"
                 + ("  (finding the card, whatever its face)" if not self.per_class_map else ""),
                 f"top card correct {self.top_card_accuracy:.4f} ({self.missed} images with no detection)"
                 + (f" with classifier {self.classifier}" if self.classifier else "")]
        if self.detector_top_card_accuracy is not None:
            lines.append(f"top card correct, detector alone {self.detector_top_card_accuracy:.4f}")
        if self.confusions:
            lines.append("most confused: " + ", ".join(f"{t}->{p} x{n}" for t, p, n in self.confusions[:8]))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def split_images(data: Path, split: str) -> list[Path]:
    return yolo_data.images(yolo_data.load(data), split)


def _top_card(reader: Detector, images: list[Path], names: yolo_data.ClassNames,
              per_face: dict[str, list[int]] | None = None,
              predictions: list[str] | None = None) -> tuple[int, int, Counter[tuple[str, str]]]:
    """Images whose label names no face (none, empty, or a class id the names lack)
    are not scored: the caller counts them out."""
    right = missed = 0
    confused: Counter[tuple[str, str]] = Counter()
    for p in images:
        label = yolo_data.top_label(p)
        truth = None if label is None else names.face(label)
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


def pick_split(ds: yolo_data.Dataset, split: str | None) -> str:
    """The split asked for; with none asked, ``test``, else ``val`` (a labelling
    tool's export often has no test split)."""
    if split:
        return split
    for s in ("test", "val"):
        if ds.cfg.get(s):
            return s
    raise ValueError(f"{ds.yaml_path} has neither a 'test' nor a 'val' split")


def _finder_map(det: YoloDetector, ds: yolo_data.Dataset, images: list[Path], imgsz: int,
                work: Path) -> tuple[float, float, dict[str, float], str]:
    """The finder's mAP by ultralytics' validator, on a data.yaml written with the
    split's images listed one by one (so the paths ultralytics finds are the ones
    read here). A failure there is said and costs only the mAP."""
    listing = work / "images.txt"
    listing.write_text("".join(f"{p.resolve()}\n" for p in images))
    names = yolo_data.names_by_id(ds.cfg) or {c.index: c.code for c in FACES}
    cfg = {"path": str(work), "train": str(listing), "val": str(listing), "test": str(listing),
           "nc": max(names) + 1, "names": names}
    data = work / "data.yaml"
    data.write_text(yaml.safe_dump(cfg))
    try:
        metrics = det.model.val(data=str(data), split="test", imgsz=imgsz, batch=16, plots=False, verbose=False,
                                device="cpu", conf=0.001, single_cls=not det.names_faces,
                                project=str(work), name="val")
    except Exception as e:  # noqa: BLE001 - any failure of the validator leaves top-card accuracy to report
        return float("nan"), float("nan"), {}, f"{type(e).__name__}: {e}"
    box = metrics.box
    per_class = {FACES[int(c)].code: float(m) for c, m in zip(box.ap_class_index, box.maps[box.ap_class_index])} \
        if hasattr(box, "ap_class_index") and det.names_faces and ds.names.ours else {}
    return float(box.map), float(box.map50), per_class, ""


def evaluate(model: str | Path | None, data: Path, split: str | None = None, imgsz: int = 192,
             conf: float = 0.25, classifier: str | Path | None = "auto", deck: str | Path | None = None,
             runtime: bool = False) -> EvalResult:
    """``runtime``: read with the kiosk's torch-free reader (an .onnx or *_ncnn_model
    finder); the finder's mAP still comes from ultralytics' val. ``split`` None:
    ``test``, else ``val``."""
    import tempfile

    from ..vision.classifier import TwoStageDetector, load_reader
    from ..vision.runtime import table_reader

    ds = yolo_data.load(data)  # a missing or broken dataset is said before any model loads
    split = pick_split(ds, split)
    images = yolo_data.images(ds, split)
    notes = []
    if ds.names.unknown:
        shown = ", ".join(repr(n) for n in ds.names.unknown[:5]) + (" ..." if len(ds.names.unknown) > 5 else "")
        notes.append(f"class names not read as faces ({shown}): class ids taken in our order (R1 is 0)")
    elif not ds.names.ours:
        notes.append(f"class names read as faces: {len(ds.names.faces)} names, their ids translated to ours")
    det = YoloDetector(model, imgsz=imgsz, conf=conf)
    with tempfile.TemporaryDirectory(prefix="taki-eval-") as work:
        map_, map50, per_class, failed = _finder_map(det, ds, images, imgsz, Path(work))
    if failed:
        notes.append(f"mAP not measured (ultralytics' validator stopped: {failed})")
    reader = table_reader(model, classifier, deck=deck) if runtime else \
        load_reader(model, classifier, imgsz=imgsz, deck=deck)
    per_face: dict[str, list[int]] = {}
    predictions: list[str] = []
    right, missed, confused = _top_card(reader, images, ds.names, per_face, predictions)
    n = len(predictions)  # the images with a face to score
    if n < len(images):
        notes.append(f"{len(images) - n} of {len(images)} images not scored: no label, or a class id with no name")
    alone = None
    if isinstance(reader, TwoStageDetector) and det.names_faces:
        alone = _top_card(det, images, ds.names)[0] / n if n else 0.0
    return EvalResult(n, map_, map50, right / n if n else 0.0, per_class,
                      [(t, p, c) for (t, p), c in confused.most_common()], missed, alone,
                      str(reader.classifier.path) if isinstance(reader, TwoStageDetector) else None,
                      {code: r / t for code, (r, t) in sorted(per_face.items())},
                      "runtime" if runtime else "ultralytics", predictions, split, notes)
