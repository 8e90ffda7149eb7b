"""The face classifier: the second look that tells look-alike faces apart.

:class:`TwoStageDetector` keeps the detector's boxes and replaces each box's
face with what the classifier reads on a full-resolution crop of it (see
``crops.py``). Same backends as the detector, chosen by file type.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..rules.cards import FACES, Card, file_stem
from .closer import closer_look, contested_region
from .crops import card_crop, crop_side
from .second_look import TURN_BELOW, read_faces
from .detector import MODELS_DIR, Detection, Detector, ModelError, backend_of, detect_in, find_model
from .tracker import iou

DEFAULT_CLASSIFIER = "taki-cls-yolov8n.pt"
CLS_IMGSZ = 64  # used when a classifier does not say the size it was trained at
_BY_STEM = {file_stem(c): c for c in FACES}


def classifier_for(detector_path: Path) -> Path | None:
    """The shipped classifier on the same backend as ``detector_path``, if present."""
    suffix = {"pytorch": ".pt", "onnx": ".onnx", "openvino": "_openvino_model", "ncnn": "_ncnn_model"}
    p = MODELS_DIR / (Path(DEFAULT_CLASSIFIER).stem + suffix[backend_of(detector_path)])
    return p if p.exists() else None


class FaceClassifier:
    def __init__(self, model: str | Path, imgsz: int | None = None, turn_below: float = TURN_BELOW) -> None:
        from .yolo_env import YOLO

        self.turn_below = turn_below
        self.path = find_model(model, "face classifier", DEFAULT_CLASSIFIER, "train-classifier")
        self.backend = backend_of(self.path)
        try:
            self.model = YOLO(self.path, task="classify")
            names = self.model.names
        except Exception as e:
            raise ModelError(f"{self.path} could not be loaded as a {self.backend} classifier: "
                             f"{type(e).__name__}: {e}") from None
        stems = [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)
        if sorted(stems) != sorted(_BY_STEM):
            raise ModelError(f"{self.path} does not classify the 57 TAKI faces (its classes: {stems[:5]}...)")
        self._cards = [_BY_STEM[s] for s in stems]
        self.imgsz = imgsz or self._trained_size()

    def _trained_size(self) -> int:
        """The side this classifier was trained at, which sets the crop's side too.

        A .pt says it in its training arguments. An export says it in metadata that
        ultralytics reads only when it first predicts, so an export is read once
        here. (Reading exports at 64 px, and so cutting their crops at 96 and
        blowing them up to the 128 they are fed, cost ONNX, OpenVINO and NCNN 0.3
        points of the held-out set against PyTorch.)"""
        args = getattr(getattr(self.model, "model", None), "args", None)
        if isinstance(args, dict) and "imgsz" in args:
            return int(args["imgsz"])
        try:
            self.model.predict(np.zeros((CLS_IMGSZ, CLS_IMGSZ, 3), np.uint8), verbose=False, device="cpu")
            size = self.model.predictor.imgsz
        except Exception as e:
            raise ModelError(f"{self.path} could not read a picture as a {self.backend} classifier: "
                             f"{type(e).__name__}: {e}") from None
        return int(size[0] if isinstance(size, (list, tuple)) else size)

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(crops, 57) face probabilities in this model's class order."""
        res = self.model.predict(crops, imgsz=self.imgsz, verbose=False, device="cpu")
        return np.stack([r.probs.data.cpu().numpy() for r in res])

    def classify(self, crops: list[np.ndarray]) -> list[tuple[Card, float]]:
        """The most likely face and its probability for each square crop (BGR);
        an unsure crop gets a second look at quarter turns (second_look.py)."""
        return read_faces(self.probabilities, crops, self._cards, self.turn_below)


@dataclass
class TwoStageDetector:
    """Detector boxes, classifier faces. The detector may report one card twice
    under two look-alike faces; those boxes are merged (their confidences add up
    as evidence that a card is there) before the classifier reads the card."""

    detector: Detector
    classifier: FaceClassifier
    top_k: int = 3
    same_box_iou: float = 0.7

    def detect(self, image: np.ndarray) -> list[Detection]:
        reads = self._read(image, closer_look(self.detector, image))  # a small card is looked at again, closer
        region = contested_region(reads, image.shape)
        if region is not None:  # two overlapping cards read close: which is on top, seen bigger
            again = self._read(image, detect_in(self.detector, image, region))
            if again:
                return again
        return reads

    def _read(self, image: np.ndarray, found: list[Detection]) -> list[Detection]:
        """The finder's boxes merged, the best ``top_k`` read by the classifier, best first."""
        merged: list[tuple[Detection, float]] = []
        for d in found:
            for i, (k, conf) in enumerate(merged):
                if iou(d.box, k.box) >= self.same_box_iou:
                    merged[i] = (k, conf + d.confidence)
                    break
            else:
                merged.append((d, d.confidence))
        merged = merged[:self.top_k]
        size = crop_side(self.classifier.imgsz)
        faces = self.classifier.classify([card_crop(image, d.box, size=size) for d, _ in merged])
        out = [Detection(card, card_confidence(conf, p), d.box)
               for (d, conf), (card, p) in zip(merged, faces)]
        return sorted(out, key=lambda d: -d.confidence)


def card_confidence(found: float, face: float) -> float:
    """How sure the reader is that this face lies there: sure it is a card at all (the
    finder) times sure of the face given a card (the classifier). A geometric mean let
    a classifier sure of a face on a blot of the table (it has no "no card" answer)
    carry a finder that was not sure there was a card: a dark patch of a photo table
    read as SUPER at 0.69 locked the tracker before the first card (track-eval video
    50016); the product gives it 0.48, under the tracker's 0.5."""
    return float(min(1.0, found) * face)


#: With a classifier behind it the detector only has to find the card, so it may
#: report boxes whose class score is split between look-alikes (kept at 0.05, the
#: top-card accuracy rises from 97.8% to 99.1% on the held-out set).
TWO_STAGE_DET_CONF = 0.05


def load_reader(model: str | Path | None = None, classifier: str | Path | None = "auto",
                imgsz: int | None = None, deck: str | Path | None = None) -> Detector:
    """The leading-card reader: the detector, and behind it the face classifier.

    ``classifier``: "auto" takes the shipped classifier of the detector's backend
    (none shipped: the detector alone), "none" the detector alone, or a path.
    ``deck``: a deck profile folder whose learnt classifier reads the faces
    (a broken profile raises :class:`~companion.vision.deck.DeckError`)."""
    from .detector import DEFAULT_IMGSZ, YoloDetector

    path = None
    if deck is not None:
        from .deck import load_profile

        profile = load_profile(deck)
        if profile.prototypes_path is not None:  # read by the deck's own pictures (no torch in that stage)
            from .runtime import deck_classifier

            return TwoStageDetector(YoloDetector(model, imgsz=imgsz or DEFAULT_IMGSZ, conf=TWO_STAGE_DET_CONF),
                                    deck_classifier(deck))  # type: ignore[arg-type]
        path = profile.classifier_for(backend_of(find_model(model)))
    elif classifier not in (None, "none"):
        path = classifier_for(find_model(model)) if classifier == "auto" else Path(classifier)
    det = YoloDetector(model, imgsz=imgsz or DEFAULT_IMGSZ, conf=TWO_STAGE_DET_CONF if path else 0.25)
    if path is None:
        if not det.names_faces:
            raise ModelError(f"{det.path} finds cards but does not name them: it needs the face classifier "
                             f"(drop --classifier none, or give --classifier PATH)")
        return det
    return TwoStageDetector(det, FaceClassifier(path))
