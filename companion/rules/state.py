"""The game state: a frozen value; the engine returns a new one for each event.

The same type serves both modes. In *referee* mode the state knows only hand
counts, as a human referee would; in *simulation* mode it also holds every hand
and the ordered draw pile, so the 116 cards can be accounted for at any time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .cards import Card, Color, FastEnum
from .options import RuleSet

DECK_SIZE = 116
HAND_SIZE = 8  # R-SETUP-1
MIN_PLAYERS, MAX_PLAYERS = 2, 10
TOURNAMENT_STAGES = 8  # R-TOUR-1


class Mode(FastEnum):
    REFEREE = "referee"
    SIMULATION = "simulation"


class Phase(FastEnum):
    SETUP = "setup"  # waiting for the first leading card (R-SETUP-1, D-SETUP-3)
    PLAYING = "playing"
    OVER = "over"


class Pending(FastEnum):
    """What the player to move still owes this turn."""

    NONE = "-"
    PLUS = "plus"  # R-PLUS: a second card, or draw one
    KING = "king"  # R-KING-2: any card, or end the turn (D-KING-3)
    COLOR = "color"  # R-COLOR: name a colour


@dataclass(frozen=True, slots=True)
class TakiRun:
    """A TAKI run in progress (R-TAKI-1..4).

    ``seat`` is the player putting cards into it this turn, or ``None`` when the
    run was left open for whoever plays next (R-TAKI-3). ``length`` counts the
    cards that player put into it this turn, the TAKI itself included.
    """

    color: Color
    seat: int | None
    length: int = 0


class GameState(NamedTuple):
    """One moment of the game, immutable.

    A NamedTuple rather than a frozen dataclass: the engine builds one per event,
    and a tuple builds about four times faster (self-play speed, issue 2). Compare
    states with ``==`` against other states only.
    """

    names: tuple[str, ...]
    counts: tuple[int, ...]
    rules: RuleSet = RuleSet()
    mode: Mode = Mode.REFEREE
    hands: tuple[tuple[Card, ...], ...] | None = None
    draw_pile: tuple[Card, ...] | None = None  # bottom .. top; simulation only
    draw_size: int = 0
    discard: tuple[Card, ...] = ()  # bottom .. top
    lead: Card | None = None  # the card to match; a Breaker is see-through (R-BREAK-2)
    color: Color | None = None  # the active colour; None: any colour matches
    to_move: int = 0
    direction: int = 1  # +1: to the left (clockwise, R-SETUP-2); -1 reversed
    stack: int = 0  # +2 cards in the active stack (R-PLUS2-2)
    plus3_by: int | None = None  # who threw the pending +3 (or the Breaker answering it)
    plus3_victim: int | None = None  # None: everyone but plus3_by draws three
    run: TakiRun | None = None
    pending: Pending = Pending.NONE
    last_due: int | None = None  # seat that owes a "last card" call (R-CALL-LAST)
    last_called: int | None = None  # the player to move called "last card" ahead
    stages: tuple[int, ...] | None = None  # tournament only (R-TOUR-1)
    winner: int | None = None
    phase: Phase = Phase.SETUP
    seed: int = 0  # simulation: seeds the reshuffles (D-PLAY-5)
    reshuffles: int = 0

    @property
    def n_players(self) -> int:
        return len(self.names)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def top(self) -> Card | None:
        """The physical top card of the discard pile (the leading card on the table)."""
        return self.discard[-1] if self.discard else None

    @property
    def plus3_open(self) -> bool:
        return self.plus3_by is not None

    def next_seat(self, seat: int | None = None, steps: int = 1) -> int:
        base = self.to_move if seat is None else seat
        return (base + self.direction * steps) % len(self.names)

    def cards_accounted(self) -> int:
        """Draw pile + discard pile + hands; always 116 while the deck is whole."""
        return self.draw_size + len(self.discard) + sum(self.counts)
