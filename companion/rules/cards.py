"""Cards and the 116-card TAKI deck (R-DECK-1..4).

A :class:`Card` is a *face*: two physical copies of the red 5 are equal values.
There are 57 faces; :data:`FACES` fixes their order, which is also the class
order of the detector (``Card.index``), so the vision and rules layers share one
vocabulary.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class FastEnum(enum.Enum):
    """An Enum hashed by identity, in C. Members are singletons, so this agrees
    with their equality; Enum's own hash is Python code and the engine looks
    members up in sets and dicts several times per event."""

    __hash__ = object.__hash__


class Color(FastEnum):
    """The four card colours (R-DECK-1)."""

    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"

    @property
    def spoken(self) -> str:
        return self.name.lower()


class Kind(FastEnum):
    """What a card does; with the number it is the card's *symbol* (R-PLAY-1)."""

    NUMBER = "N"
    STOP = "STOP"
    PLUS2 = "+2"
    CHANGE_DIRECTION = "DIR"
    PLUS = "PLUS"
    TAKI = "TAKI"
    SUPER_TAKI = "SUPER"
    KING = "KING"
    PLUS3 = "+3"
    BREAKER = "BREAKER"
    CHANGE_COLOR = "COLOR"

    @property
    def colourless(self) -> bool:
        return self in _COLOURLESS


_COLOURLESS = frozenset(
    {Kind.SUPER_TAKI, Kind.KING, Kind.PLUS3, Kind.BREAKER, Kind.CHANGE_COLOR}
)
NUMBERS: tuple[int, ...] = (1, 3, 4, 5, 6, 7, 8, 9)  # R-DECK-2: no 2
COLOURED_ACTIONS: tuple[Kind, ...] = (
    Kind.STOP,
    Kind.PLUS2,
    Kind.CHANGE_DIRECTION,
    Kind.PLUS,
    Kind.TAKI,
)
COLOURLESS_KINDS: tuple[Kind, ...] = (
    Kind.SUPER_TAKI,
    Kind.KING,
    Kind.PLUS3,
    Kind.BREAKER,
    Kind.CHANGE_COLOR,
)

_SPOKEN_KIND = {
    Kind.STOP: "Stop",
    Kind.PLUS2: "plus two",
    Kind.CHANGE_DIRECTION: "Change Direction",
    Kind.PLUS: "Plus",
    Kind.TAKI: "TAKI",
    Kind.SUPER_TAKI: "Super TAKI",
    Kind.KING: "King",
    Kind.PLUS3: "plus three",
    Kind.BREAKER: "plus three Breaker",
    Kind.CHANGE_COLOR: "Change Colour",
}


class CardParseError(ValueError):
    """A face code that names no TAKI card."""


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One face. ``color`` is ``None`` exactly for colourless kinds.

    >>> Card.from_code("R7")
    Card.from_code('R7')
    >>> Card.from_code("KING").colourless
    True
    """

    kind: Kind
    color: Color | None = None
    number: int | None = None
    index: int = field(default=-1, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        # Faces are equal by their face index: cheap, since engines compare cards a lot.
        return other.__class__ is Card and self.index == other.index  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self.index

    def __post_init__(self) -> None:
        if self.kind.colourless != (self.color is None):
            raise CardParseError(f"{self.kind.name} cannot have colour {self.color}")
        if (self.kind is Kind.NUMBER) != (self.number is not None):
            raise CardParseError("number cards, and only they, carry a number")
        if self.number is not None and self.number not in NUMBERS:
            raise CardParseError(f"there is no {self.number} in TAKI (R-DECK-2)")
        if self.index < 0:
            object.__setattr__(self, "index", _INDEX.get((self.kind, self.color, self.number), -1))

    @property
    def colourless(self) -> bool:
        return self.color is None

    @property
    def symbol(self) -> tuple[Kind, int | None]:
        """What matches across colours: the number, or the action kind."""
        return (self.kind, self.number)

    @property
    def code(self) -> str:
        """Short code, also the detector's class name: ``R7``, ``B+2``, ``KING``."""
        sym = str(self.number) if self.kind is Kind.NUMBER else self.kind.value
        return sym if self.color is None else self.color.value + sym

    @property
    def spoken(self) -> str:
        """English words for speech: 'red 7', 'blue plus two', 'King'."""
        sym = str(self.number) if self.kind is Kind.NUMBER else _SPOKEN_KIND[self.kind]
        return sym if self.color is None else f"{self.color.spoken} {sym}"

    @classmethod
    def from_code(cls, code: str) -> Card:
        try:
            return _BY_CODE[code.strip().upper()]
        except KeyError:
            raise CardParseError(f"unknown card code {code!r}") from None

    def __repr__(self) -> str:
        return f"Card.from_code({self.code!r})"

    def __str__(self) -> str:
        return self.code


def _all_faces() -> list[tuple[Kind, Color | None, int | None]]:
    out: list[tuple[Kind, Color | None, int | None]] = []
    for color in Color:
        out += [(Kind.NUMBER, color, n) for n in NUMBERS]
        out += [(k, color, None) for k in COLOURED_ACTIONS]
    out += [(k, None, None) for k in COLOURLESS_KINDS]
    return out


_INDEX: dict[tuple[Kind, Color | None, int | None], int] = {
    key: i for i, key in enumerate(_all_faces())
}
FACES: tuple[Card, ...] = tuple(Card(k, c, n) for (k, c, n) in _all_faces())
_BY_CODE: dict[str, Card] = {card.code: card for card in FACES}


def copies(card: Card) -> int:
    """How many physical copies of a face the deck holds (R-DECK-2..4)."""
    return 4 if card.kind is Kind.CHANGE_COLOR else 2


def full_deck() -> tuple[Card, ...]:
    """All 116 cards in face order (R-DECK-4); shuffling is the caller's job."""
    return tuple(card for card in FACES for _ in range(copies(card)))


def file_stem(card: Card) -> str:
    """The face's code as a file or folder name (``+`` spelt ``plus``): face
    images, classifier classes and deck profiles are all named by it."""
    return card.code.replace("+", "plus")
