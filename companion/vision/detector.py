"""The leading-card detector over the shipped model, on any backend ultralytics runs.

The backend follows the model's file type: ``.pt`` (PyTorch), ``.onnx`` (ONNX
Runtime), ``*_openvino_model/`` (OpenVINO), ``*_ncnn_model/`` (NCNN). A missing
or corrupt model is a :class:`ModelError` with a sentence a person can act on.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ..rules.cards import FACES, Card

_REPO_MODELS = Path(__file__).resolve().parent.parent.parent / "models"  # a checkout, editable install
_INSTALLED_MODELS = Path(sys.prefix) / "share" / "taki-companion" / "models"  # a wheel (runtime install)
MODELS_DIR = _REPO_MODELS if _REPO_MODELS.is_dir() else _INSTALLED_MODELS
DEFAULT_MODEL = "taki-yolov8n.pt"
DEFAULT_IMGSZ = 192  # the shipped model's training size (see models/README.md)
#: The face a card finder's boxes carry until the classifier names them; a
#: reader never reports it (load_reader refuses a finder without a classifier).
UNNAMED = FACES[0]


@dataclass(frozen=True, slots=True)
class Detection:
    card: Card
    confidence: float
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in image pixels

    @property
    def area(self) -> float:
        x1, y1, x2, y2 = self.box
        return max(0.0, x2 - x1) * max(0.0, y2 - y1)


class Detector(Protocol):
    def detect(self, image: np.ndarray) -> list[Detection]: ...


class ModelError(RuntimeError):
    """The detector model cannot be loaded."""


def backend_of(path: Path) -> str:
    name = path.name
    if name.endswith("_openvino_model"):
        return "openvino"
    if name.endswith("_ncnn_model"):
        return "ncnn"
    if path.suffix == ".onnx":
        return "onnx"
    if path.suffix == ".pt":
        return "pytorch"
    raise ModelError(f"{path}: unknown model type (use .pt, .onnx, *_openvino_model or *_ncnn_model)")


def find_model(name: str | Path | None = None, what: str = "detector model",
               default: str = DEFAULT_MODEL, train: str = "train") -> Path:
    """A model path as given, or under models/; the default is the shipped one."""
    p = Path(name or default)
    if p.exists():
        return p
    if (MODELS_DIR / p).exists():
        return MODELS_DIR / p
    raise ModelError(f"no {what} at {p} (nor in {MODELS_DIR}); train one with "
                     f"`taki-companion {train}` or reinstall the package")


class YoloDetector:
    def __init__(self, model: str | Path | None = None, imgsz: int = DEFAULT_IMGSZ, conf: float = 0.25,
                 max_det: int = 5) -> None:
        from .yolo_env import YOLO

        self.path = find_model(model)
        self.backend = backend_of(self.path)
        self.imgsz, self.conf, self.max_det = imgsz, conf, max_det
        try:
            self.model = YOLO(self.path)
            names = self.model.names
        except Exception as e:
            raise ModelError(f"{self.path} could not be loaded as a {self.backend} detector: "
                             f"{type(e).__name__}: {e}") from None
        codes = [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)
        #: A card finder (one class, whatever the face) leaves naming to the face
        #: classifier; a 57-class detector names faces itself.
        self.names_faces = codes == [c.code for c in FACES]
        if not self.names_faces and len(codes) != 1:
            raise ModelError(f"{self.path} neither finds cards nor detects the 57 TAKI faces "
                             f"(its classes: {codes[:5]}...)")

    def detect(self, image: np.ndarray) -> list[Detection]:
        res = self.model.predict(image, imgsz=self.imgsz, conf=self.conf, max_det=self.max_det,
                                 verbose=False, device="cpu")[0]
        boxes = res.boxes
        if boxes is None or len(boxes) == 0:
            return []
        xyxy = boxes.xyxy.cpu().numpy()
        conf = boxes.conf.cpu().numpy()
        cls = boxes.cls.cpu().numpy().astype(int)
        if not self.names_faces:  # a card finder: the face is the classifier's to name
            cls[:] = UNNAMED.index
        out = [Detection(FACES[c], float(p), tuple(float(v) for v in b))  # type: ignore[arg-type]
               for b, p, c in zip(xyxy, conf, cls) if 0 <= c < len(FACES)]
        return sorted(out, key=lambda d: -d.confidence)


class RoiDetector:
    """Looks only at the pile: once the tracker has a region of interest, the
    detector runs on that crop, so the card fills the picture as in training, and
    the boxes are mapped back to the frame."""

    def __init__(self, detector: Detector, tracker: object) -> None:
        self.detector, self.tracker = detector, tracker

    def detect(self, image: np.ndarray) -> list[Detection]:
        roi = getattr(self.tracker, "roi", None)
        if roi is None:
            return self.detector.detect(image)
        h, w = image.shape[:2]
        x1, y1 = max(0, int(roi[0])), max(0, int(roi[1]))
        x2, y2 = min(w, int(roi[2])), min(h, int(roi[3]))
        if x2 - x1 < 16 or y2 - y1 < 16:
            return self.detector.detect(image)
        return detect_in(self.detector, image, (x1, y1, x2, y2))


def detect_in(detector: Detector, image: np.ndarray, region: tuple[int, int, int, int]) -> list[Detection]:
    """The detector's boxes for ``region`` (x1, y1, x2, y2) of ``image``, given in the
    image's own coordinates: the card fills more of what the detector reads there."""
    x1, y1, x2, y2 = region
    return [Detection(d.card, d.confidence, (d.box[0] + x1, d.box[1] + y1, d.box[2] + x1, d.box[3] + y1))
            for d in detector.detect(image[y1:y2, x1:x2])]
