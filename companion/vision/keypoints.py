"""A geometric second look: does the crop hold the same printed picture as a face's photo?

Why: the classifier's pooled features know TAKI's large symbols and colours; decks
whose faces differ by small print (playing cards: the count of pips, a corner
index) look alike to them. Local keypoints (SIFT, in OpenCV itself) matched between
the crop and a face's enrolment photo, and kept only where one homography maps them
(RANSAC), count how much of the same printed picture both hold, whatever the turn,
tilt or light. It is costly (about 10 ms a crop), so the reader runs it on the
closest few faces of a card it has not seen yet, and remembers the answer while the
same card lies there (:class:`GeometricCheck`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SIDE = 256  # pixels a side of the crop the keypoints are taken from
FEATURES = 300  # keypoints kept per crop
RATIO = 0.75  # Lowe's ratio test
RANSAC_PX = 8.0


def _sift():  # type: ignore[no-untyped-def]
    return cv2.SIFT_create(nfeatures=FEATURES)


def keypoints(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(points (n, 2) float32, descriptors (n, 128) uint8) of a card crop, at :data:`SIDE`."""
    grey = cv2.cvtColor(cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    found, desc = _sift().detectAndCompute(grey, None)
    if desc is None or not found:
        return np.zeros((0, 2), np.float32), np.zeros((0, 128), np.uint8)
    pts = np.array([k.pt for k in found], np.float32)
    return pts, np.clip(np.round(desc), 0, 255).astype(np.uint8)


def inliers(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> int:
    """How many of ``a``'s keypoints one homography maps onto matching keypoints of ``b``."""
    (pa, da), (pb, db) = a, b
    if len(da) < 4 or len(db) < 4:
        return 0
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(da.astype(np.float32), db.astype(np.float32), k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
    if len(good) < 4:
        return 0
    src = pa[[m.queryIdx for m in good]]
    dst = pb[[m.trainIdx for m in good]]
    h, mask = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX, maxIters=500, confidence=0.99)
    return int(mask.sum()) if h is not None and mask is not None else 0


@dataclass(frozen=True)
class FaceKeypoints:
    """Each enrolled photo's keypoints, by face code."""

    faces: tuple[str, ...]  # the face of each photo
    points: tuple[np.ndarray, ...]
    descriptors: tuple[np.ndarray, ...]

    def best(self, crop_kp: tuple[np.ndarray, np.ndarray], codes: list[str]) -> dict[str, int]:
        """The most inliers of the crop with any photo of each of ``codes``."""
        out = dict.fromkeys(codes, 0)
        for face, p, d in zip(self.faces, self.points, self.descriptors):
            if face in out:
                out[face] = max(out[face], inliers(crop_kp, (p, d)))
        return out

    def save(self, path) -> None:  # type: ignore[no-untyped-def]
        counts = np.array([len(p) for p in self.points], np.int32)
        np.savez(path, faces=np.asarray(self.faces, dtype="U8"), counts=counts,
                 points=np.concatenate(self.points) if self.points else np.zeros((0, 2), np.float32),
                 descriptors=np.concatenate(self.descriptors) if self.descriptors else np.zeros((0, 128), np.uint8))

    @classmethod
    def load(cls, path) -> "FaceKeypoints":  # type: ignore[no-untyped-def]
        with np.load(path, allow_pickle=False) as z:
            faces, counts = tuple(str(f) for f in z["faces"]), z["counts"]
            pts, desc = z["points"].astype(np.float32), z["descriptors"].astype(np.uint8)
        if len(faces) != len(counts) or int(counts.sum()) != len(pts) or len(pts) != len(desc):
            raise ValueError(f"{path}: its arrays do not fit together")
        cut = np.cumsum(counts)[:-1]
        return cls(faces, tuple(np.split(pts, cut)), tuple(np.split(desc, cut)))
