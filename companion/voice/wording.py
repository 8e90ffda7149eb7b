"""Which rulings are spoken, and how (English; other languages would add a table here)."""

from __future__ import annotations

from ..rules import Step
from ..rules.rulings import Ruling, RulingKind as K

#: The table can see these happen; saying them every time would drown the rest.
QUIET = frozenset({K.PLAYED, K.TURN})


def sentence(r: Ruling, teaching: bool = False) -> str | None:
    if r.kind in QUIET:
        return None
    if r.kind is K.LAST_CARD_DUE:
        return f"{r.name}, remember to call last card!" if teaching else None
    return r.text


def sentences(step: Step, teaching: bool = False) -> list[str]:
    """The sentences to speak for one step, penalties included, in order."""
    out = []
    for r in step.rulings:
        s = sentence(r, teaching)
        if s:
            out.append(s)
    return out
