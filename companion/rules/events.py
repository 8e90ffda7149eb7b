"""Events: what happened at the table, as seen by the camera or told by a tap.

``seat=None`` means "the player to move"; only a +3 Breaker may name another
seat (R-BREAK-1). A chosen colour travels in its own event, never on a card.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Color


@dataclass(frozen=True, slots=True)
class Reveal:
    """A card turned up from the draw pile at the start (R-SETUP-1, D-SETUP-3)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Play:
    """A card put on the discard pile."""

    card: Card
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """The player to move drew what the rules ask: one card, or a +2 stack's total."""

    seat: int | None = None


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """The colour named after a Change Colour (R-COLOR)."""

    color: Color
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class CallLastCard:
    """A player called "last card" (R-CALL-LAST)."""

    seat: int


@dataclass(frozen=True, slots=True)
class CloseTaki:
    """The player in a TAKI run called "closed TAKI" (R-CALL-CLOSE)."""

    seat: int | None = None


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The player is done: leaves a TAKI run open, or declines a King's extra play."""

    seat: int | None = None


@dataclass(frozen=True, slots=True)
class WindowClosed:
    """The +3 response window timed out (D-PLUS3-2): the pending draw happens."""


@dataclass(frozen=True, slots=True)
class CorrectCount:
    """A person corrects a hand count the referee got wrong (referee mode)."""

    seat: int
    count: int


Event = Reveal | Play | Draw | ChooseColor | CallLastCard | CloseTaki | EndTurn | WindowClosed | CorrectCount
