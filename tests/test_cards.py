"""R-DECK-1..4: the deck and its 57 faces."""

from collections import Counter

import pytest

from companion.rules import FACES, Card, CardParseError, Color, Kind, full_deck


def test_r_deck_4_the_deck_holds_116_cards() -> None:
    assert len(full_deck()) == 116


def test_r_deck_counts_per_face() -> None:
    """R-DECK-2..4: two of every coloured face and colourless action, four Change Colour."""
    counts = Counter(full_deck())
    assert len(counts) == len(FACES) == 57
    for face, n in counts.items():
        assert n == (4 if face.kind is Kind.CHANGE_COLOR else 2), face
    coloured = [c for c in full_deck() if c.color is not None]
    assert len(coloured) == 104
    for color in Color:  # R-DECK-1, R-DECK-3: 26 per colour
        assert sum(c.color is color for c in coloured) == 26
        numbers = sorted({c.number for c in coloured if c.color is color and c.number})
        assert numbers == [1, 3, 4, 5, 6, 7, 8, 9]  # R-DECK-2: no 2
    colourless = Counter(c.kind for c in full_deck() if c.color is None)
    assert colourless == {Kind.SUPER_TAKI: 2, Kind.KING: 2, Kind.PLUS3: 2, Kind.BREAKER: 2,
                          Kind.CHANGE_COLOR: 4}


def test_codes_round_trip_and_indices_are_class_ids() -> None:
    assert [c.index for c in FACES] == list(range(57))
    for face in FACES:
        assert Card.from_code(face.code) == face
        assert eval(repr(face)) == face
    assert len({c.code for c in FACES}) == 57


def test_card_equality_is_by_face() -> None:
    assert Card(Kind.NUMBER, Color.RED, 5) == Card.from_code("R5")
    assert hash(Card(Kind.KING)) == hash(Card.from_code("KING"))
    assert Card.from_code("R5") != Card.from_code("B5")


@pytest.mark.parametrize("code", ["R2", "X5", "", "RKING", "BREAK"])
def test_unknown_codes_are_refused(code: str) -> None:
    with pytest.raises(CardParseError):
        Card.from_code(code)


def test_impossible_cards_are_refused() -> None:
    with pytest.raises(CardParseError):
        Card(Kind.KING, Color.RED)
    with pytest.raises(CardParseError):
        Card(Kind.NUMBER, Color.RED, 2)


def test_spoken_names() -> None:
    assert Card.from_code("R7").spoken == "red 7"
    assert Card.from_code("B+2").spoken == "blue plus two"
    assert Card.from_code("BREAKER").spoken == "plus three Breaker"
