"""Reading a deck by its own pictures: prototypes, and the reader stage that uses them.

Why: a family's deck is not the project's drawings. Teaching the classifier a new
deck took minutes of torch on the kiosk, gave different results under load, and
could not run on the Pi at all. Instead, enrolment turns each photo of a face (and
views of it turned, darker, softer) into *prototypes*: the shipped face
classifier's own pooled features (its ``embedding`` output, the layer before its
last), centred and made unit length. At the table the same network reads a crop
once; the crop's embedding is compared with the deck's prototypes (cosine), and
the faces the deck has are read by their own pictures first. What is like none of
them falls back to the shipped classifier, so a face the deck lacks (or that was
skipped) is still read. No training, no torch: numpy and ONNX Runtime.

The prototypes file (``prototypes.npz``) holds the vectors (float16), the face of
each row, the centre, and the two numbers that calibrate the mix
(:class:`Mix`). It is written and read with ``allow_pickle=False``.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..rules.cards import FACES, Card
from .second_look import TURN_BELOW, turned_probabilities

if TYPE_CHECKING:
    from .keypoints import FaceKeypoints

PROTOTYPES = "prototypes.npz"
KEYPOINTS = "keypoints.npz"
EMBEDDING_OUTPUT = "embedding"  # the shipped classifier's pooled features, an output of its ONNX export
_CODES = {c.code for c in FACES}


class PrototypeError(ValueError):
    """A prototypes file that cannot be used; the message says why."""


@dataclass(frozen=True)
class Mix:
    """How a crop's likeness to the deck's prototypes becomes face probabilities.

    ``temperature``: cosine similarities are divided by it before the softmax over
    the enrolled faces. ``floor``: the similarity of "like none of the enrolled
    faces", an extra option whose share goes to the shipped classifier's reading.
    Chosen on tuning decks only (``models/README.md``, "Deck prototypes")."""

    temperature: float = 0.04
    floor: float = 0.55


@dataclass(frozen=True)
class Prototypes:
    vectors: np.ndarray  # (n, d) float32, centred and unit length
    faces: tuple[str, ...]  # the face code of each row
    centre: np.ndarray  # (d,) taken off every embedding before it is made unit length
    mix: Mix = Mix()

    @property
    def enrolled(self) -> tuple[str, ...]:
        """The faces that have prototypes, in the rules' order."""
        have = set(self.faces)
        return tuple(c.code for c in FACES if c.code in have)

    def unit(self, embeddings: np.ndarray) -> np.ndarray:
        """Embeddings centred and made unit length, as the prototypes are."""
        z = np.asarray(embeddings, np.float32) - self.centre
        return z / np.maximum(np.linalg.norm(z, axis=-1, keepdims=True), 1e-6)

    def likeness(self, embeddings: np.ndarray, codes: list[str]) -> np.ndarray:
        """(n, len(codes)) the best cosine similarity of each embedding to each face's
        prototypes (-1 for a face with none)."""
        sims = self.unit(embeddings) @ self.vectors.T
        out = np.full((sims.shape[0], len(codes)), -1.0, np.float64)
        rows = np.asarray(self.faces)
        for j, code in enumerate(codes):
            mine = rows == code
            if mine.any():
                out[:, j] = sims[:, mine].max(axis=1)
        return out

    def save(self, path: Path) -> Path:
        np.savez(path, vectors=self.vectors.astype(np.float16), faces=np.asarray(self.faces, dtype="U8"),
                 centre=self.centre.astype(np.float32),
                 mix=np.asarray([self.mix.temperature, self.mix.floor], np.float64))
        return path

    @classmethod
    def load(cls, path: Path) -> "Prototypes":
        try:
            with np.load(path, allow_pickle=False) as z:
                vectors = z["vectors"].astype(np.float32)
                faces = tuple(str(f) for f in z["faces"])
                centre = z["centre"].astype(np.float32)
                mix = z["mix"].astype(np.float64)
        except FileNotFoundError:
            raise PrototypeError(f"{path} is missing") from None
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
            raise PrototypeError(f"{path} is damaged ({type(e).__name__})") from None
        if vectors.ndim != 2 or len(faces) != vectors.shape[0] or centre.shape != (vectors.shape[1],) \
                or mix.shape != (2,) or not np.isfinite(vectors).all():
            raise PrototypeError(f"{path} is damaged (its arrays do not fit together)")
        if not set(faces) <= _CODES or not faces:
            raise PrototypeError(f"{path} names faces that are no TAKI faces")
        return cls(vectors, faces, centre, Mix(float(mix[0]), float(mix[1])))


class EmbeddingReader(Protocol):
    """A face classifier that also gives each crop's embedding (the runtime one)."""

    imgsz: int
    backend: str

    @property
    def faces(self) -> list[Card]: ...

    def read(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]: ...


def mixed(probs: np.ndarray, likeness: np.ndarray, mix: Mix) -> np.ndarray:
    """Face probabilities from the classifier's (``probs``) and the likeness to the
    deck's prototypes (``likeness``, -1 where a face has none; the same columns).

    A softmax over the enrolled faces and one more option, "none of them" (at
    ``mix.floor``); that option's share is handed to the classifier's reading of all
    57 faces. So a card like one of the deck's own pictures is read by them, and a
    card like none (a face the deck lacks) by the shipped classifier."""
    have = likeness > -1.0
    z = np.where(have, likeness / mix.temperature, -np.inf)
    none = np.full((z.shape[0], 1), mix.floor / mix.temperature)
    allz = np.concatenate([z, none], axis=1)
    allz -= allz.max(axis=1, keepdims=True)
    e = np.exp(allz)
    e /= e.sum(axis=1, keepdims=True)
    return e[:, :-1] + e[:, -1:] * probs


#: The geometric second look (``keypoints.py``) weighs the closest this many faces,
CANDIDATES = 8
#: ... those at least this share as likely as the first (keypoints see no colour: a TAKI
#: deck's Plus in yellow and in green are one drawing, which the prototypes tell apart),
CANDIDATE_SHARE = 0.05
#: ... and names another face than the prototypes' first only with this many inliers,
#: and this many times the first face's. Chosen on the standard deck of the real playing
#: card photos (benchmarks/real_deck.py; 6, 10 and 15 inliers gave 95, 91 and 88 of 138)
#: and on style seed 3 of the held-out TAKI family (any colour allowed and a bare
#: majority: 68% of 570 piles, the colours swapped).
MIN_INLIERS = 6
MIN_RATIO = 1.5
#: ... and only for a card the prototypes are less sure of than this. Keypoints see a 6
#: turned round as a 9; the prototypes, sure of it, tell them apart (style seed 13 of the
#: held-out TAKI family lost 6s and 9s to the look: 99.6% -> 98.9%), while the playing
#: cards it is for are read far less surely (on the standard deck's switches, never above
#: 0.8; the same 94 of 138 right).
GEOMETRIC_BELOW = 0.8
#: Two crops whose 24-px grey thumbnails differ by less than this (mean, of 255) are
#: the same card lying still: the geometric look is not taken again.
SAME_CROP = 6.0


class PrototypeClassifier:
    """The reader's second stage with a deck profile: the shipped classifier's one read
    of each crop gives both its face probabilities and its embedding; the deck's
    prototypes decide first (:func:`mixed`). With the deck's keypoints, the closest
    faces of a card not seen before are also compared point by point (``keypoints.py``),
    and the face whose photo holds the most of the same printed picture is taken.
    A drop-in for the face classifier in :class:`~companion.vision.classifier.TwoStageDetector`."""

    def __init__(self, base: EmbeddingReader, prototypes: Prototypes, turn_below: float = TURN_BELOW,
                 keypoints: "FaceKeypoints | None" = None) -> None:
        self.base, self.prototypes, self.turn_below = base, prototypes, turn_below
        self.keypoints = keypoints
        self.imgsz = base.imgsz
        self.backend = f"{base.backend} + deck prototypes" + (" + keypoints" if keypoints else "")
        self.path = getattr(base, "path", None)
        self._codes = [c.code for c in base.faces]
        self._seen: list[tuple[np.ndarray, np.ndarray, int]] = []  # (thumbnail, face order, face index)

    @property
    def faces(self) -> list[Card]:
        return self.base.faces

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        probs, emb = self.base.read(crops)
        return mixed(probs, self.prototypes.likeness(emb, self._codes), self.prototypes.mix)

    def classify(self, crops: list[np.ndarray]) -> list[tuple[Card, float]]:
        """As the face classifier: one read, quarter turns when unsure; then, with the
        deck's keypoints, the geometric look for a card the prototypes are unsure of."""
        if not crops:
            return []
        out = []
        for crop, row in zip(crops, turned_probabilities(self.probabilities, crops, self.turn_below)):
            k = int(row.argmax())
            if self.keypoints is not None and row.max() < GEOMETRIC_BELOW:
                k = self._geometric(crop, row)
            out.append((self.base.faces[k], float(row.max())))
        return out

    def _geometric(self, crop: np.ndarray, row: np.ndarray) -> int:
        """The face the keypoints name among the closest candidates (the first when none
        is clearly better); remembered while the same card lies there."""
        import cv2

        from .keypoints import keypoints as take

        order = np.argsort(-row, kind="stable")[:CANDIDATES]
        order = order[row[order] >= CANDIDATE_SHARE * row[order[0]]]
        thumb = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (24, 24), interpolation=cv2.INTER_AREA)
        thumb = thumb.astype(np.float32)
        for seen, seen_order, k in self._seen:
            if float(np.abs(seen - thumb).mean()) < SAME_CROP and seen_order[0] == order[0]:
                return k
        assert self.keypoints is not None
        counts = self.keypoints.best(take(crop), [self._codes[i] for i in order])
        first = self._codes[order[0]]
        best = max(counts, key=lambda c: counts[c])  # ties: the closer candidate (dicts keep order)
        k = self._codes.index(best) if best != first and counts[best] >= MIN_INLIERS and \
            counts[best] >= MIN_RATIO * counts[first] else int(order[0])
        self._seen = [(thumb, order, k)] + self._seen[:7]
        return k
