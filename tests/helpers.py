"""Small builders for rules tests: a table in a known position in one line."""

from __future__ import annotations

from collections import Counter

from companion.rules import (
    Card,
    GameState,
    Mode,
    Phase,
    RuleSet,
    Ruling,
    RulingKind,
    Step,
    apply,
    full_deck,
)
from companion.rules.events import Event

NAMES = ("Dana", "Omer", "Noa", "Eli", "Maya", "Yoni", "Tal", "Gil", "Roni", "Adi")


def C(code: str) -> Card:
    return Card.from_code(code)


def cards(codes: str) -> tuple[Card, ...]:
    return tuple(C(c) for c in codes.split())


def table(lead: str = "R5", n: int = 4, counts: tuple[int, ...] | None = None,
          rules: RuleSet | None = None, **kw: object) -> GameState:
    """A referee-mode game in play with ``lead`` on the pile."""
    lead_card = C(lead)
    counts = counts or (8,) * n
    base: dict[str, object] = dict(
        names=NAMES[: len(counts)], counts=counts, rules=rules or RuleSet(),
        draw_size=116 - sum(counts) - 1, discard=(lead_card,), lead=lead_card,
        color=lead_card.color, phase=Phase.PLAYING,
    )
    if base["rules"].tournament:  # type: ignore[attr-defined]
        base["stages"] = (8,) * len(counts)
    base.update(kw)
    return GameState(**base)  # type: ignore[arg-type]


def sim(hands: list[str], lead: str = "R5", rules: RuleSet | None = None,
        pile: str | None = None, under: str = "", **kw: object) -> GameState:
    """A simulation-mode game: the named hands, the rest of the deck as draw pile.

    ``pile`` fixes the top of the draw pile (last code = top card)."""
    hand_cards = [cards(h) if h else () for h in hands]
    discard = cards(under) + (C(lead),) if under else (C(lead),)
    rest = Counter(full_deck())
    for c in [c for h in hand_cards for c in h] + list(discard):
        rest[c] -= 1
        assert rest[c] >= 0, f"too many {c}"
    top = cards(pile) if pile else ()
    for c in top:
        rest[c] -= 1
        assert rest[c] >= 0, f"too many {c}"
    draw = tuple(sorted(rest.elements(), key=lambda c: c.index)) + top
    return table(lead, counts=tuple(len(h) for h in hand_cards), rules=rules,
                 mode=Mode.SIMULATION, hands=tuple(hand_cards), draw_pile=draw,
                 draw_size=len(draw), discard=discard, **kw)


def run(state: GameState, *events: Event) -> tuple[GameState, list[Ruling]]:
    """Apply events that must all be legal; return the end state and all rulings."""
    rulings: list[Ruling] = []
    for e in events:
        step = apply(state, e)
        assert step.legal, f"{e} refused: {step.text}"
        rulings += step.rulings
        state = step.state
    return state, rulings


def refused(state: GameState, event: Event) -> Step:
    step = apply(state, event)
    assert not step.legal, f"{event} was accepted: {step.text}"
    assert step.state is state
    assert [r.kind for r in step.rulings] == [RulingKind.ILLEGAL]
    return step


def kinds(rulings: list[Ruling]) -> list[RulingKind]:
    return [r.kind for r in rulings]


def ruled(rulings: list[Ruling], kind: RulingKind) -> list[Ruling]:
    return [r for r in rulings if r.kind is kind]
