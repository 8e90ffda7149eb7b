"""Seeded self-play: random and greedy players run whole games and tournaments.

Used as a regression oracle (fixed seeds give fixed summaries) and as a load
generator for the referee. The table's chance events (the deal, reshuffles)
come from the seed; the players' choices from their own ``random.Random``.
"""

from __future__ import annotations

import random
from collections import Counter
from operator import attrgetter
from dataclasses import dataclass, field
from typing import Protocol

from .cards import Card, Color, Kind
from .engine import apply, deal, legal_moves
from .events import CallLastCard, ChooseColor, CloseTaki, Draw, EndTurn, Event, Play, Reveal, WindowClosed
from .options import RuleSet
from .rulings import Ruling, RulingKind
from .state import GameState, Pending


class Policy(Protocol):
    name: str

    def choose(self, state: GameState, moves: list[Event], rng: random.Random) -> Event: ...

    def calls_last_card(self, rng: random.Random) -> bool: ...

    def breaks(self, rng: random.Random) -> bool: ...


class RandomPolicy:
    """Any legal card at random, drawing only when none can go; forgets the
    last-card call half the time. (Drawing while able is legal, D-PLAY-4, but a
    player who does it at random makes games of a thousand turns.)"""

    name = "random"

    def choose(self, state: GameState, moves: list[Event], rng: random.Random) -> Event:
        acts = [m for m in moves if m.__class__ is not Draw] or moves
        return acts[rng.randrange(len(acts))]

    def calls_last_card(self, rng: random.Random) -> bool:
        return rng.random() < 0.5

    def breaks(self, rng: random.Random) -> bool:
        return rng.random() < 0.5


_RANK = {
    Kind.KING: 0, Kind.PLUS2: 1, Kind.STOP: 2, Kind.PLUS3: 3, Kind.TAKI: 4, Kind.PLUS: 5,
    Kind.CHANGE_DIRECTION: 6, Kind.NUMBER: 7, Kind.SUPER_TAKI: 8, Kind.CHANGE_COLOR: 9,
    Kind.BREAKER: 10,
}


class GreedyPolicy:
    """A sensible human: attacks first, empties TAKI runs, names its commonest colour."""

    name = "greedy"

    def choose(self, state: GameState, moves: list[Event], rng: random.Random) -> Event:
        assert state.hands is not None
        hand = state.hands[state.to_move]
        if state.pending is Pending.COLOR:
            counts = Counter(c.color for c in hand if c.color is not None)
            best = max(Color, key=lambda c: (counts[c], -list(Color).index(c)))
            return ChooseColor(best)
        plays = [m for m in moves if isinstance(m, Play)]
        if state.run is not None and state.run.seat == state.to_move:
            if plays:  # keep emptying the run; finish on an action card
                return min(plays, key=lambda m: (m.card.kind is not Kind.NUMBER, m.card.index))
            for m in moves:
                if isinstance(m, CloseTaki):
                    return m
            return EndTurn()
        if plays:
            return min(plays, key=lambda m: (_RANK[m.card.kind] - _taki_bonus(m.card, hand), m.card.index))
        for kind in (Draw, EndTurn):
            for m in moves:
                if isinstance(m, kind):
                    return m
        return moves[0]

    def calls_last_card(self, rng: random.Random) -> bool:
        return True

    def breaks(self, rng: random.Random) -> bool:
        return True


def _taki_bonus(card: Card, hand: tuple[Card, ...]) -> int:
    if card.kind is Kind.TAKI:
        return 5 if sum(c.color is card.color for c in hand) >= 3 else -5
    return 0


POLICIES: dict[str, type[RandomPolicy] | type[GreedyPolicy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
}


@dataclass(frozen=True, slots=True)
class GameResult:
    seed: int
    players: int
    winner: int | None
    events: int
    rulings: Counter[str] = field(compare=False)
    final: GameState = field(compare=False, repr=False)
    #: Every event in order, the opening Reveals included: a referee-mode game
    #: fed these events plays out the same (the camera's and taps' view of it).
    log: tuple[Event, ...] = field(default=(), compare=False, repr=False)


def play_game(
    n_players: int,
    seed: int,
    policies: list[Policy] | None = None,
    rules: RuleSet | None = None,
    max_events: int = 100_000,
    first: int | None = None,
) -> GameResult:
    """Play one whole game (or tournament) in simulation mode."""
    names = tuple(f"P{i + 1}" for i in range(n_players))
    rng = random.Random(seed ^ 0x5EED)
    policies = policies or [RandomPolicy() for _ in range(n_players)]
    state = deal(names, seed=seed, first=seed % n_players if first is None else first, rules=rules)
    rulings: list[Ruling] = []  # counted by kind at the end: cheaper than per event
    events = 0
    log: list[Event] = [Reveal(c) for c in state.discard]

    def step(event: Event) -> None:
        nonlocal state, events
        result = apply(state, event)
        assert result.legal, (event, result.rulings)
        state = result.state
        events += 1
        log.append(event)
        rulings.extend(result.rulings)

    while not state.is_over and events < max_events:
        due = state.last_due
        if due is not None and policies[due].calls_last_card(rng):
            step(CallLastCard(due))
        if state.plus3_by is not None:
            if _answer_plus3(state, policies, rng, step):
                continue
        moves = legal_moves(state)
        step(policies[state.to_move].choose(state, moves, rng))
    kinds: Counter[RulingKind] = Counter(map(attrgetter("kind"), rulings))
    named = Counter({kind.value: n for kind, n in kinds.items()})
    return GameResult(seed, n_players, state.winner, events, named, state, tuple(log))


def _answer_plus3(state: GameState, policies: list[Policy], rng: random.Random, step) -> bool:  # type: ignore[no-untyped-def]
    """Give every other seat its chance to break, the next player to King; else time out."""
    n = state.n_players
    for i in range(n):
        seat = state.next_seat(steps=i)
        for m in legal_moves(state, seat):
            if isinstance(m, Play) and m.card.kind is Kind.BREAKER and m.seat == seat:
                if policies[seat].breaks(rng):
                    step(m)
                    return True
    assert state.hands is not None
    king = next((c for c in state.hands[state.to_move] if c.kind is Kind.KING), None)
    if king is not None and policies[state.to_move].breaks(rng):
        step(Play(king))
        return True
    step(WindowClosed())
    return True
