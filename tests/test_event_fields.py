"""Issue 46 (16): an event with a field of the wrong kind is refused, never applied, so no
state is written that cannot be read back (CorrectCount(seat, True) was taken: True is
an int to isinstance, and the state's text then failed to parse)."""

from __future__ import annotations

import pytest

from companion.rules import Card, Reveal, apply, new_game
from companion.rules.events import CallLastCard, CorrectCount, Draw, Play
from companion.rules.notation import from_text, to_text


@pytest.mark.parametrize("event", [CorrectCount(1, True), CorrectCount(True, 3), CorrectCount(0, False),
                                   Play(Card.from_code("R7"), seat=True), Draw(seat=False), CallLastCard(True)])
def test_a_bool_where_a_number_goes_is_refused_and_changes_nothing(event) -> None:  # type: ignore[no-untyped-def]
    g = apply(new_game(["Dana", "Omer"]), Reveal(Card.from_code("R5"))).state
    step = apply(g, event)
    assert not step.legal and step.state is g and step.text
    assert from_text(to_text(step.state)) == g


def test_a_corrected_count_reads_back() -> None:
    g = apply(new_game(["Dana", "Omer"]), Reveal(Card.from_code("R5"))).state
    step = apply(g, CorrectCount(1, 5))
    assert step.legal and from_text(to_text(step.state)) == step.state
