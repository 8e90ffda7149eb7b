"""Benchmark: learn a real deck that is not TAKI from real camera photos, then read it.

Photos: ``../shared/real-photos/cardcounterml-playing-cards`` ("Card Detection" dataset
by Roboflow user cadyzedevelopmenthub, CC BY 4.0): real phone and webcam photos of
playing cards on real tables. Its labels box each card's printed corner index, so a
card is known where the table's card finder puts a box (confidence >= 0.25) around
two corner indices of one card and no other's: one whole card, named.

Playing cards map onto TAKI's faces: suit as colour (hearts red, diamonds yellow,
clubs green, spades blue), rank as symbol (ace 1, 2 as +2, 3-9 as they are, 10
STOP, jack change direction, queen Plus, king TAKI), the black joker Change Colour,
the red joker SUPER TAKI.

Per deck (the standard deck of the ``IMG_2022*`` phone photos, the black-and-gold
deck of ``IMG_77xx/78xx``, the webcam frames ``WIN_*``): the first photo of each face
(file order) is its enrolment photo, cut to the card's surroundings (the box widened
by 40%: a photo of that one card); the rest are read with the deck's profile and by
the shipped reader. No choice of the reader or of enrolment was made on these photos.

Run: python benchmarks/real_deck.py [--photos ../shared/real-photos/cardcounterml-playing-cards]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np
import yaml

from companion.rules.cards import Card
from companion.training.deck_prototypes import Shot, write_profile
from companion.rules.cards import file_stem
from companion.synth.faces import CARD_H, CARD_W
from companion.training.enrol import default_card_finder, face_picture, save_face
from companion.vision.cardfinder import CardNotFound
from companion.vision.runtime import RuntimeFinder, load_runtime_reader, table_reader
from report import Report, add_json_argument

HERE = Path(__file__).resolve().parents[1]
SUITS = {"H": "R", "D": "Y", "C": "G", "S": "B"}
RANKS = {"A": "1", "2": "+2", "10": "STOP", "J": "DIR", "Q": "PLUS", "K": "TAKI",
         **{str(n): str(n) for n in range(3, 10)}}
JOKERS = {"BLACK JOKER": "COLOR", "RED JOKER": "SUPER"}


def taki_face(name: str) -> Card | None:
    """The TAKI face a playing card stands for (None: a card's back)."""
    if name in JOKERS:
        return Card.from_code(JOKERS[name])
    if name == "BACK":
        return None
    return Card.from_code(SUITS[name[-1]] + RANKS[name[:-1]])


def deck_of(path: Path) -> str:
    n = path.name
    return "standard (IMG_2022*)" if n.startswith("IMG_2022") else "webcam (WIN_*)" if n.startswith("WIN_") \
        else "black-and-gold (IMG_77xx/78xx)"


def labels(image: Path, names: list[str], size: tuple[int, int]) -> list[tuple[str, float, float]]:
    """(class, x, y) of each labelled corner index (a box's centre, a polygon's mean)."""
    h, w = size
    out = []
    for line in (image.parent.parent / "labels" / (image.stem + ".txt")).read_text().splitlines():
        v = line.split()
        xy = np.array(v[1:], float).reshape(-1, 2)
        cx, cy = (xy[0] if len(xy) == 2 and len(v) == 5 else xy.mean(axis=0)) * (w, h)
        out.append((names[int(v[0])], float(cx), float(cy)))
    return out


def whole_cards(root: Path) -> dict[str, list[tuple[Path, tuple[float, float, float, float], Card]]]:
    names = yaml.safe_load((root / "data.yaml").read_text())["names"]
    finder = RuntimeFinder(conf=0.05, max_det=12)
    decks: dict[str, list] = defaultdict(list)
    for image in sorted(root.glob("datasets/*/images/*.jpg")):
        picture = cv2.imread(str(image))
        marks = labels(image, names, picture.shape[:2])
        for d in finder.detect(picture):
            if d.confidence < 0.25:
                continue
            x1, y1, x2, y2 = d.box
            inside = [n for n, x, y in marks if x1 <= x <= x2 and y1 <= y <= y2 and n != "BACK"]
            if len(inside) >= 2 and len(set(inside)) == 1:
                decks[deck_of(image)].append((image, d.box, taki_face(inside[0])))
    return decks


def around(picture: np.ndarray, box: tuple[float, float, float, float], grow: float = 0.4):
    """The card's surroundings (the box widened by ``grow``) and the box inside them."""
    x1, y1, x2, y2 = box
    dx, dy = (x2 - x1) * grow, (y2 - y1) * grow
    h, w = picture.shape[:2]
    X1, Y1, X2, Y2 = int(max(0, x1 - dx)), int(max(0, y1 - dy)), int(min(w, x2 + dx)), int(min(h, y2 + dy))
    return picture[Y1:Y2, X1:X2].copy(), (x1 - X1, y1 - Y1, x2 - X1, y2 - Y1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", default=str(HERE.parent / "shared" / "real-photos" / "cardcounterml-playing-cards"))
    ap.add_argument("--model", default=None, help="the card finder (.onnx; default: the shipped one)")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report("real_deck", "Learning real decks that are not TAKI from real photos (playing cards)")
    decks = whole_cards(Path(args.photos))
    locate = default_card_finder(args.model)
    shipped = load_runtime_reader(args.model)
    for deck, cards in decks.items():
        first: dict[Card, tuple] = {}
        rest = []
        for item in cards:
            if item[2] in first:
                rest.append(item)
            else:
                first[item[2]] = item
        shots, refused = {}, Counter()
        work = Path(tempfile.mkdtemp(prefix="taki-real-deck-"))
        (work / "faces").mkdir()
        t0 = time.monotonic()
        for card, (image, box, _) in first.items():
            photo, _ = around(cv2.imread(str(image)), box)
            try:
                found = locate.locate(photo)
            except CardNotFound as e:
                refused[str(e).split(":")[0]] += 1
                continue
            shots[card.code] = [Shot(photo, found.box, found.corners)]
            save_face(work / "faces" / f"{file_stem(card)}.png", face_picture(photo, found, CARD_W, CARD_H))
        write_profile(work, shots, name=deck)
        t_profile = time.monotonic() - t0
        reader = table_reader(args.model, deck=work) if shots else None
        right, right_shipped = 0, 0
        for image, box, card in rest:
            photo, _ = around(cv2.imread(str(image)), box)
            dets = reader.detect(photo) if reader else []
            right += bool(dets) and dets[0].card == card
            dets = shipped.detect(photo)
            right_shipped += bool(dets) and dets[0].card == card
        n = max(1, len(rest))
        print(f"{deck}: {len(shots)}/{len(first)} faces enrolled from one photo each "
              f"({100 * len(shots) / max(1, len(first)):.1f}%; refused: {dict(refused) or 'none'}), "
              f"photos to profile {t_profile:.1f} s")
        print(f"  top card on {len(rest)} other photos: with the profile {right}/{len(rest)} = {100 * right / n:.1f}%,"
              f" shipped reader {right_shipped}/{len(rest)} = {100 * right_shipped / n:.1f}%")
        rep.add(f"{deck}: faces enrolled from one photo each", round(100 * len(shots) / max(1, len(first)), 1),
                f"% of {len(first)}", ">= 98%")
        rep.add(f"{deck}: photos -> profile", round(t_profile, 1), "s")
        rep.add(f"{deck}: top card after enrolment", round(100 * right / n, 1), f"% of {len(rest)} photos", ">= 95%")
        rep.add(f"{deck}: top card, shipped reader alone", round(100 * right_shipped / n, 1), f"% of {len(rest)} photos")
    rep.note('Photos: "Card Detection" dataset by Roboflow user cadyzedevelopmenthub, CC BY 4.0 '
             "(../shared/real-photos/cardcounterml-playing-cards). Faces mapped onto TAKI's: suit as colour, "
             "rank as symbol (docs/decks.md). The first photo of each face is enrolled; the rest are read.")
    rep.write(args.json)


if __name__ == "__main__":
    main()
