"""Rulings: what the referee decides, as data with a rule id.

Each ruling can say itself in one short English sentence (``text``), fit to be
spoken; other languages render from the fields (``kind``, ``key``, ``args``)
in ``companion.voice``.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card, Color, FastEnum


class RulingKind(FastEnum):
    ILLEGAL = "illegal"
    PLAYED = "played"
    REVEAL_AGAIN = "reveal_again"
    GAME_STARTS = "game_starts"
    TURN = "turn"
    DRAW = "draw"
    PENALTY = "penalty"
    SKIP = "skip"
    REVERSE = "reverse"
    CHOOSE_COLOR = "choose_color"
    COLOR_CHOSEN = "color_chosen"
    PLAY_AGAIN = "play_again"
    MAY_PLAY_AGAIN = "may_play_again"
    PLUS2_STACK = "plus2_stack"
    PLUS3_WINDOW = "plus3_window"
    PLUS3_BROKEN = "plus3_broken"
    CANCELLED = "cancelled"
    TAKI_RUN = "taki_run"
    TAKI_OPEN = "taki_open"
    TAKI_CLOSED = "taki_closed"
    TAKI_ENDED = "taki_ended"
    LAST_CARD_DUE = "last_card_due"
    LAST_CARD_CALLED = "last_card_called"
    RESHUFFLE = "reshuffle"
    PILE_EMPTY = "pile_empty"
    COUNT_CORRECTED = "count_corrected"
    CARD_CORRECTED = "card_corrected"  # a person fixed a misread card (reason: what was read)
    WIN = "win"
    STAGE = "stage"
    TOURNAMENT_WIN = "tournament_win"


#: Penalties and draws are spoken aloud even when the app is set to quiet rulings.
PENALTY_KINDS = frozenset(
    {RulingKind.PENALTY, RulingKind.DRAW, RulingKind.ILLEGAL, RulingKind.PLUS3_BROKEN}
)


class Ruling(NamedTuple):
    """One decision. ``seat``/``name`` is who must act or is affected; ``n`` a count.

    A NamedTuple, not a frozen dataclass, because the engine makes two or three
    per event and tuples are built several times faster."""

    kind: RulingKind
    rule: str
    seat: int | None = None
    name: str = ""
    n: int = 0
    card: Card | None = None
    color: Color | None = None
    reason: str = ""
    #: What ``reason`` says, as data for other languages: a key of the voice's
    #: catalogue ("mismatch", "no_last_card", ...) and the values it names
    #: ((field, value) pairs; values are names, counts, cards or colours).
    key: str = ""
    args: tuple[tuple[str, object], ...] = ()

    @property
    def is_penalty(self) -> bool:
        return self.kind in PENALTY_KINDS

    @property
    def text(self) -> str:
        """A short English sentence for speech and the history log."""
        k, name, n = self.kind, self.name, self.n
        card = self.card.spoken if self.card else ""
        color = self.color.spoken if self.color else ""
        if k is RulingKind.ILLEGAL:
            return self.reason
        if k is RulingKind.PLAYED:
            return f"{name} played the {card}."
        if k is RulingKind.REVEAL_AGAIN:
            return f"The {card} cannot start the game: turn up another card."
        if k is RulingKind.GAME_STARTS:
            return f"The {card} leads. {name} starts."
        if k is RulingKind.TURN:
            return f"{name}, your turn."
        if k in (RulingKind.DRAW, RulingKind.PENALTY):
            what = "a card" if n == 1 else f"{in_words(n)}"
            return f"{name}, draw {what}{': ' + _stop(self.reason) if self.reason else '.'}"
        if k is RulingKind.SKIP:
            return f"{name} is skipped."
        if k is RulingKind.REVERSE:
            return "Direction reversed." if not self.reason else self.reason
        if k is RulingKind.CHOOSE_COLOR:
            return f"{name}, choose a colour."
        if k is RulingKind.COLOR_CHOSEN:
            return f"The colour is {color}."
        if k is RulingKind.PLAY_AGAIN:
            # with a reason (nobody finishes on a Plus) the player has no card to play: say what to do
            return f"{name}, {_stop(self.reason)}" if self.reason else f"{name}, play another card."
        if k is RulingKind.MAY_PLAY_AGAIN:
            return f"{name}, you may play any card, or end your turn."
        if k is RulingKind.PLUS2_STACK:
            return f"{name}, add a plus two or a King, or draw {in_words(n)}."
        if k is RulingKind.PLUS3_WINDOW:
            return f"Plus three! Everyone but {name} draws three, unless someone breaks it."
        if k is RulingKind.PLUS3_BROKEN:
            return f"Broken! {name}, draw three."
        if k is RulingKind.CANCELLED:
            return "The King cancels the draw."
        if k is RulingKind.TAKI_RUN:
            return f"{color.capitalize()} TAKI run: {name}, play your {color} cards, then call closed TAKI."
        if k is RulingKind.TAKI_OPEN:
            return f"The {color} TAKI is open: {name} may continue it."
        if k is RulingKind.TAKI_CLOSED:
            return f"TAKI closed by {name}."
        if k is RulingKind.TAKI_ENDED:
            return f"The {color} TAKI run is over."
        if k is RulingKind.LAST_CARD_DUE:
            return f"{name} has one card left."
        if k is RulingKind.LAST_CARD_CALLED:
            return f"{name} calls last card."
        if k is RulingKind.RESHUFFLE:
            return "The draw pile is empty: shuffle the discard pile, keep the leading card."
        if k is RulingKind.PILE_EMPTY:
            return f"No cards left to draw: {name} draws only {in_words(n)}."
        if k is RulingKind.CARD_CORRECTED:
            return f"Corrected: it was the {card}, not the {self.reason}." if self.reason else \
                f"Corrected: the {card} was played."
        if k is RulingKind.COUNT_CORRECTED:
            return f"{name} now holds {in_words(n)} card{'' if n == 1 else 's'}."
        if k is RulingKind.WIN:
            return f"{name} wins the game!"
        if k is RulingKind.STAGE:
            return f"{name} reaches stage {n}: draw {in_words(n)}."
        if k is RulingKind.TOURNAMENT_WIN:
            return f"{name} wins the tournament!"
        raise AssertionError(k)  # pragma: no cover


_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
          "nine", "ten", "eleven", "twelve")


def _stop(text: str) -> str:
    """A reason as the end of a sentence: exactly one full stop."""
    return text if text.endswith((".", "!", "?")) else text + "."


def in_words(n: int) -> str:
    """A count as the referee says it: words up to twelve, digits beyond."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)
