"""Names people give TAKI faces, read as faces: class names of a dataset labelled
elsewhere, and the file names of enrolment photos.

Why: our own files use face codes (``R7``, ``B+2``, ``Bplus2``); a labelling tool's
classes or a folder of phone photos say ``red_7``, ``Blue +2``, ``super taki`` or
``R7 (2).jpg``. Read strictly, those pictures were scored against the wrong face
or refused as "not a face code".
"""

from __future__ import annotations

import re

from ..rules.cards import FACES, Card, CardParseError

_COLOURS = {"r": "R", "red": "R", "y": "Y", "yellow": "Y", "g": "G", "green": "G", "b": "B", "blue": "B"}
_NUMBER_WORDS = {"one": "1", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "two": "2"}
#: A face's kind in words (spaces between words, "+" read as "plus", digits apart from
#: letters: "plus2" is read as "plus 2"), longest first.
_KINDS: tuple[tuple[str, str], ...] = (
    ("plus 3 breaker", "BREAKER"), ("3 breaker", "BREAKER"), ("breaker", "BREAKER"),
    ("super taki", "SUPER"), ("supertaki", "SUPER"), ("super", "SUPER"),
    ("change color", "COLOR"), ("changecolor", "COLOR"), ("color change", "COLOR"), ("color", "COLOR"),
    ("wild", "COLOR"),
    ("change direction", "DIR"), ("changedirection", "DIR"), ("direction", "DIR"), ("dir", "DIR"),
    ("reverse", "DIR"),
    ("plus 2", "+2"), ("plus two", "+2"), ("draw 2", "+2"), ("draw two", "+2"),
    ("plus 3", "+3"), ("plus three", "+3"),
    ("plus", "PLUS"), ("stop", "STOP"), ("taki", "TAKI"), ("king", "KING"),
)
_KIND_WORDS = {k for k, _ in _KINDS}
_COLOURLESS = frozenset(c.code for c in FACES if c.colourless)  # SUPER, KING, +3, BREAKER, COLOR


def face_from_name(name: object) -> Card | None:
    """The face a dataset's class name means, or None: our codes (``R7``,
    ``B+2``), their file-name spelling (``Rplus2``) and plain words in any case
    and with any separator (``red_7``, ``Blue +2``, ``green change direction``,
    ``super taki``, ``+3 breaker``)."""
    text = str(name).strip()
    try:
        return Card.from_code(text)
    except CardParseError:
        pass
    t = text.lower().replace("colour", "color").replace("+", " plus ")
    t = re.sub(r"[_\-./,:;()\s]+", " ", t)
    t = re.sub(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])", " ", t)
    words = t.split()
    if not words:
        return None
    colour = None
    if words[0] in _COLOURS:
        colour, words = _COLOURS[words[0]], words[1:]
    elif words[0][0] in "rygb" and (words[0][1:] in _KIND_WORDS or words[0][1:] in _NUMBER_WORDS):
        colour, words = _COLOURS[words[0][0]], [words[0][1:], *words[1:]]  # "rstop", "btaki"
    rest = " ".join(_NUMBER_WORDS.get(w, w) for w in words)
    if rest.isdigit():
        code = f"{colour}{rest}" if colour else ""
    else:
        code = next((k for words_, k in _KINDS if rest == words_), "")
        if code and (colour is None) != (code in _COLOURLESS):
            return None  # a coloured face named without its colour, or the other way round
        if code and colour:
            code = colour + code
    try:
        return Card.from_code(code) if code else None
    except CardParseError:
        return None


_NUMBERED = re.compile(r"[\s_\-(]+\d+\)?$")


def face_from_file_name(stem: str) -> Card | None:
    """A face from a photo's or folder's name, also with a number after it that tells
    several pictures of one face apart (``R7_2``, ``red 7 (3)``, ``B+2-1``)."""
    card = face_from_name(stem)
    if card is None and _NUMBERED.search(stem):
        card = face_from_name(_NUMBERED.sub("", stem))
    return card
