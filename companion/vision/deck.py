"""Deck profiles: what enrolment learnt about one physical deck, as a folder.

    DECK/deck.json          name, date, format version, per-face quality, which faces are missing
    DECK/faces/<stem>.png   the enrolled faces, cut out (flat where the exact outline was found)
    DECK/prototypes.npz     the deck's prototypes: what its own pictures look like to the
                            shipped classifier (``prototypes.py``); made in seconds, no torch
    DECK/classifier.pt      optional: a classifier fine-tuned on the deck (``learn-deck``,
                            the full install), and its .onnx beside it

The reader keeps the shipped card finder and classifier and reads the deck's faces
by their prototypes first (version 2); a version-1 profile (a fine-tuned classifier
and no prototypes) is still read with its classifier. A profile is checked before
use; anything wrong is a :class:`DeckError` whose message the app shows while it
falls back to the default reader.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..rules.cards import FACES
from .prototypes import PROTOTYPES, PrototypeError, Prototypes

FORMAT = "taki-deck-profile"
VERSION = 2
READS = (1, 2)  # profile versions this app reads (1: a fine-tuned classifier, no prototypes)
CLASSIFIERS = {"pytorch": "classifier.pt", "onnx": "classifier.onnx"}


class DeckError(ValueError):
    """A deck profile that cannot be used; the message says why."""


@dataclass(frozen=True)
class DeckProfile:
    path: Path
    name: str
    created: str
    enrolled: tuple[str, ...]  # face codes learnt from the deck's own pictures
    missing: tuple[str, ...]  # faces the deck lacks, or that were skipped
    quality: dict[str, float]
    accuracy: float | None  # the learner's check on held-back pictures of this deck
    retake: dict[str, str] = field(default_factory=dict)  # face -> why its photo should be taken again
    embedding: str = ""  # which shipped classifier made the prototypes (its file's digest)

    @property
    def prototypes_path(self) -> Path | None:
        """The deck's prototypes, or None for a profile read by its own classifier alone."""
        p = self.path / PROTOTYPES
        return p if p.exists() else None

    def classifier_for(self, backend: str) -> Path:
        """The deck's classifier for a backend; ONNX stands in for OpenVINO/NCNN."""
        name = CLASSIFIERS.get(backend) or CLASSIFIERS["onnx"]
        p = self.path / name
        return p if p.exists() else self.path / CLASSIFIERS["pytorch"]


def load_profile(path: str | Path) -> DeckProfile:
    """Read and check a deck profile folder."""
    root = Path(path)
    if not root.is_dir():
        raise DeckError(f"no deck profile at {root} (make one with `taki-companion enrol --out {root}`)")
    meta_path = root / "deck.json"
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise DeckError(f"{root} is not a deck profile: deck.json is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DeckError(f"{meta_path} is damaged ({type(e).__name__}); enrol the deck again") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DeckError(f"{meta_path} is not a TAKI deck profile")
    if meta.get("version") not in READS:
        raise DeckError(f"{root} was made by another version of the app (profile version "
                        f"{meta.get('version')!r}, this app reads {', '.join(map(str, READS))}); "
                        f"enrol the deck again")
    codes = {c.code for c in FACES}
    enrolled = meta.get("enrolled")
    missing = meta.get("missing", [])
    if not isinstance(enrolled, list) or not isinstance(missing, list) or \
            not set(enrolled) | set(missing) <= codes:
        raise DeckError(f"{meta_path} lists faces that are no TAKI faces")
    if not enrolled:
        raise DeckError(f"{root} has no enrolled faces; enrol the deck again")
    lost = [c for c in enrolled if not (root / "faces" / f"{c.replace('+', 'plus')}.png").exists()]
    if lost:
        raise DeckError(f"{root} is missing the pictures of {', '.join(lost[:6])}"
                        + (" and more" if len(lost) > 6 else "") + "; enrol those faces again")
    if (root / PROTOTYPES).exists():
        try:
            protos = Prototypes.load(root / PROTOTYPES)
        except PrototypeError as e:
            raise DeckError(f"{e}; enrol the deck again") from None
        if not set(protos.faces) <= set(enrolled):
            raise DeckError(f"{root}: its prototypes and deck.json disagree about its faces; enrol the deck again")
    elif not (root / CLASSIFIERS["pytorch"]).exists() and not (root / CLASSIFIERS["onnx"]).exists():
        raise DeckError(f"{root} has neither prototypes nor a learnt classifier; enrol the deck again")
    quality = meta.get("quality", {})
    if isinstance(quality, dict):  # informational: a value that is no number is left out, not fatal
        quality = {k: v for k, v in quality.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    acc = meta.get("accuracy")
    retake = meta.get("retake", {})
    return DeckProfile(root, str(meta.get("name", root.name)), str(meta.get("created", "")), tuple(enrolled),
                       tuple(missing), {str(k): float(v) for k, v in quality.items()} if isinstance(quality, dict)
                       else {}, float(acc) if isinstance(acc, (int, float)) else None,
                       {str(k): str(v) for k, v in retake.items()} if isinstance(retake, dict) else {},
                       str(meta.get("embedding", "")))


def list_profiles(folder: str | Path) -> list[DeckProfile]:
    """The usable deck profiles in a folder (broken ones are left out)."""
    out = []
    root = Path(folder)
    if root.is_dir():
        for p in sorted(root.iterdir()):
            try:
                out.append(load_profile(p))
            except DeckError:
                continue
    return out
