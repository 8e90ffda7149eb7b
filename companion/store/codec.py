"""Events, rulings and rule sets as JSON-ready dicts (the journal's format)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..rules import events as ev
from ..rules.cards import Card, Color
from ..rules.events import Event
from ..rules.options import RuleSet
from ..rules.rulings import Ruling

_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (ev.Reveal, ev.Play, ev.Draw, ev.ChooseColor, ev.CallLastCard, ev.CloseTaki,
                ev.EndTurn, ev.WindowClosed, ev.CorrectCount)
}


class CodecError(ValueError):
    """A stored record that names no event we know."""


def event_to_dict(e: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(e).__name__}
    for f in fields(e):  # type: ignore[arg-type]
        k, v = f.name, getattr(e, f.name)
        if isinstance(v, Card):
            v = v.code
        elif isinstance(v, Color):
            v = v.value
        out[k] = v
    return out


def event_from_dict(d: dict[str, Any]) -> Event:
    try:
        cls = _TYPES[d["type"]]
        kw = {k: v for k, v in d.items() if k != "type"}
        if "card" in kw:
            kw["card"] = Card.from_code(kw["card"])
        if "color" in kw:
            kw["color"] = Color(kw["color"])
        return cls(**kw)  # type: ignore[no-any-return]
    except (KeyError, TypeError, ValueError) as e:
        raise CodecError(f"not an event: {d!r} ({e})") from None


def ruling_to_dict(r: Ruling) -> dict[str, Any]:
    return {
        "kind": r.kind.value, "rule": r.rule, "seat": r.seat, "name": r.name, "n": r.n,
        "card": r.card.code if r.card else None, "color": r.color.value if r.color else None,
        "text": r.text,
    }


def rules_to_dict(rules: RuleSet) -> dict[str, bool]:
    return {name: getattr(rules, name) for name in RuleSet.option_names()}


def rules_from_dict(d: dict[str, bool]) -> RuleSet:
    return RuleSet().with_changes(**d)
