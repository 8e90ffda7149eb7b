"""Guided enrolment: the kiosk asks for each face in turn and takes it by itself.

Frames come from the camera; for the face it wants next ("Show the red 7") it
looks for exactly one whole, sharp card (the card finder), waits until the card
holds still for a few frames (green outline), cuts it out and says "got it".
Skip (the deck lacks a face) and redo (take the last one again) are taps. A card
is taken as the table reads it, by the finder's box (its exact outline where it is
found: any deck's card is taken, a white border, an oval or full-bleed art alike).
When the faces are in, :meth:`GuidedEnrolment.learn` makes the deck's prototypes on
a worker thread (seconds, no torch), reporting progress, so the screen never freezes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card, file_stem
from ..synth.faces import CARD_H, CARD_W
from ..vision.cardfinder import BLURRED, CardFinder, CardNotFound, LocatedCard
from ..voice.catalog import Words, tr, words as words_for
from .deck_prototypes import Shot
from .enrol import face_picture, save_face

# What the screen says, in the kiosk's language (companion/locale).
SHOW = tr("Show the {card}")
LEARNT = tr("The deck is learnt.")
LEARNING = tr("Learning the deck...")
ALL_DONE = tr("All faces done: {taken} taken, {skipped} skipped. Learn the deck.")
HOLD = tr("Hold it still...")
GOT_IT = tr("Got it.")
GOT = tr("Got the {card}.")
COLOURED = tr("The light is strongly coloured: its colours may be off (redo it under white light).")
SKIPPED = tr("Skipped the {card}.")
AGAIN = tr("Again: the {card}.")
NONE_TAKEN = tr("No face was taken: show at least one card before learning.")
FAILED = tr("Learning failed ({error}); the pictures are kept.")
CAMERA_ERROR = tr("Camera error ({error}): retrying.")
LEARNING_FACES = tr("learning the deck's faces")
SHOTS = "shots"  # the frames the faces were taken from (DECK/shots/<stem>.jpg and .json)
READY = tr("ready")


@dataclass(frozen=True)
class EnrolView:
    """What the enrolment screen shows."""

    prompt: str  # "Show the red 7", or what to do now
    wanted: Card | None
    message: str  # why no card is taken yet, or "Got it"
    corners: np.ndarray | None  # the card found in the last frame
    steady: bool  # draw the outline green
    done: int
    total: int
    finished: bool  # every face taken or skipped
    learning: bool = False
    learn_share: float = 0.0
    learn_text: str = ""
    profile: Path | None = None  # set when the deck profile is ready
    error: str = ""

    @property
    def progress(self) -> float:
        return self.done / self.total if self.total else 1.0


class GuidedEnrolment:
    def __init__(self, finder: CardFinder, out: Path, faces: tuple[Card, ...] = FACES, steady_frames: int = 3,
                 still: float = 0.02, speak: Callable[[str], None] | None = None,
                 size: tuple[int, int] = (CARD_W // 2, CARD_H // 2), words: Words | None = None) -> None:
        self.finder, self.out, self.faces = finder, Path(out), tuple(faces)
        self.words = words or words_for()  # the kiosk's language (English by default)
        self.steady_frames, self.still, self.speak = steady_frames, still, speak or (lambda text: None)
        self.size = size
        self.i = 0
        self.taken: dict[Card, float] = {}  # face -> crispness
        self.shots: dict[str, list[Shot]] = {}  # face -> the frame it was taken from, and where
        self.skipped: list[Card] = []
        self._last: np.ndarray | None = None
        self._steady = 0
        self._message = ""
        self._learning = False
        self._learn = (0.0, "")
        self._profile: Path | None = None
        self._error = ""
        (self.out / "faces").mkdir(parents=True, exist_ok=True)
        (self.out / SHOTS).mkdir(exist_ok=True)
        self.resumed = self._resume()

    # ------------------------------------------------------------ what the screen shows

    @property
    def wanted(self) -> Card | None:
        return self.faces[self.i] if self.i < len(self.faces) else None

    def view(self, corners: np.ndarray | None = None) -> EnrolView:
        card, w = self.wanted, self.words
        if card is not None:
            prompt = w(SHOW, card=w.card(card))
        elif self._profile is not None:
            prompt = w(LEARNT)
        elif self._learning:
            prompt = w(LEARNING)
        else:
            prompt = w(ALL_DONE, taken=len(self.taken), skipped=len(self.skipped))
        return EnrolView(prompt, card, self._message, corners, self._steady >= 1, self.i, len(self.faces),
                         card is None, self._learning, self._learn[0], self._learn[1], self._profile, self._error)

    # ------------------------------------------------------------ frames and taps

    def feed(self, image: np.ndarray) -> EnrolView:
        """One camera frame: find the card, take it when it has held still."""
        card = self.wanted
        if card is None:
            return self.view()
        try:
            found = self.finder.locate(image)
        except CardNotFound as e:
            return self._not_taken(str(e))
        outline = found.outline()
        if found.soft:  # the camera gives more frames: wait for a crisp one
            return self._not_taken(BLURRED, outline)
        height = float(np.ptp(outline[:, 1])) or 1.0
        moved = None if self._last is None else float(np.abs(outline - self._last).max()) / height
        self._last = outline
        if moved is None or moved > self.still:
            self._steady, self._message = 0, self.words(HOLD)
            return self.view(outline)
        self._steady += 1
        if self._steady < self.steady_frames:
            self._message = self.words(HOLD)
            return self.view(outline)
        w, h = self.size
        coloured = save_face(self.out / "faces" / f"{file_stem(card)}.png", face_picture(image, found, w, h))
        self.shots[card.code] = [Shot(image.copy(), found.box, found.corners)]
        self.taken[card] = round(found.crispness, 3)
        self._keep(card, image, found)
        w = self.words
        self.speak(w(GOT_IT))
        self._message = w(GOT, card=w.card(card)) + (" " + w(COLOURED) if coloured else "")
        self._advance()
        return self.view(found.corners)

    def _not_taken(self, why: str, corners: np.ndarray | None = None) -> EnrolView:
        said = self.words(why)
        self._last, self._steady, self._message = None, 0, said[:1].upper() + said[1:]
        return self.view(corners)

    def skip(self) -> EnrolView:
        """The deck lacks this face (or it is lost): go on without it."""
        card = self.wanted
        if card is not None:
            self.skipped.append(card)
            (self.out / SHOTS / f"{file_stem(card)}.skipped").touch()
            self._message = self.words(SKIPPED, card=self.words.card(card))
            self._advance()
        return self.view()

    def redo(self) -> EnrolView:
        """Take the previous face again (a wrong card was shown, or it was skipped by mistake)."""
        if self.i == 0 or self._learning:
            return self.view()
        self.i -= 1
        card = self.faces[self.i]
        self.taken.pop(card, None)
        self.shots.pop(card.code, None)
        for leftover in (self.out / SHOTS).glob(f"{file_stem(card)}.*"):
            leftover.unlink(missing_ok=True)
        if card in self.skipped:
            self.skipped.remove(card)
        (self.out / "faces" / f"{file_stem(card)}.png").unlink(missing_ok=True)
        self._last, self._steady, self._message = None, 0, self.words(AGAIN, card=self.words.card(card))
        return self.view()

    def _keep(self, card: Card, image: np.ndarray, found: LocatedCard) -> None:
        """The frame a face was taken from, on disk: a kiosk stopped halfway (power, a
        crash) goes on with the faces already taken instead of stranding them."""
        stem = self.out / SHOTS / file_stem(card)
        cv2.imwrite(str(stem.with_suffix(".jpg")), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        stem.with_suffix(".json").write_text(json.dumps({
            "box": list(found.box), "crispness": found.crispness,
            "corners": None if found.corners is None else np.asarray(found.corners).tolist()}))

    def _resume(self) -> int:
        """The faces taken (and skipped) in this folder before the kiosk stopped; the next
        face asked for is the first neither taken nor skipped. Returns how many were taken."""
        for card in self.faces:
            stem = self.out / SHOTS / file_stem(card)
            if stem.with_suffix(".skipped").exists():
                self.skipped.append(card)
                continue
            try:
                meta = json.loads(stem.with_suffix(".json").read_text())
                image = cv2.imread(str(stem.with_suffix(".jpg")))
                box = tuple(float(v) for v in meta["box"])
                corners = None if meta.get("corners") is None else np.asarray(meta["corners"], np.float64)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if image is None or len(box) != 4:
                continue
            self.shots[card.code] = [Shot(image, box, corners)]  # type: ignore[arg-type]
            self.taken[card] = round(float(meta.get("crispness", 0.0)), 3)
        done = set(self.taken) | set(self.skipped)
        self.i = next((k for k, c in enumerate(self.faces) if c not in done), len(self.faces))
        return len(self.taken)

    def _advance(self) -> None:
        self.i += 1
        self._last, self._steady = None, 0

    # ------------------------------------------------------------ learning

    def learn(self, name: str | None = None, spec: object = None,
              on_done: Callable[[EnrolView], None] | None = None) -> threading.Thread:
        """Make the deck's prototypes on a worker thread (the UI keeps drawing): seconds,
        no torch, the same profile from the same frames whatever the load."""
        from .deck_prototypes import write_profile

        if not self.taken:
            self._error = self.words(NONE_TAKEN)
            raise ValueError(self._error)
        self._learning, self._error = True, ""

        def progress(done: int, total: int) -> None:
            self._learn = (done / max(1, total), self.words(LEARNING_FACES))

        def work() -> None:
            try:
                self._profile = write_profile(self.out, dict(self.shots), name=name,
                                              quality={c.code: q for c, q in self.taken.items()},
                                              progress=progress)
                self._learn = (1.0, self.words(READY))
            except Exception as e:  # said on the screen; the faces stay for another try
                self._error = self.words(FAILED, error=f"{type(e).__name__}: {e}")
            finally:
                self._learning = False
                if on_done:
                    on_done(self.view())

        t = threading.Thread(target=work, name="taki-learn-deck", daemon=True)
        t.start()
        return t
