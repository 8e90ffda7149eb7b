"""The referee's decisions: ``apply(state, event) -> Step(state, rulings, legal)``.

Pure: no IO, no clock, no hidden randomness (a simulated deal and its reshuffles
are seeded from the state). An illegal event returns the *same* state with one
ILLEGAL ruling that says why and what to do instead.
"""

from __future__ import annotations

import random
from typing import Any, Callable, NamedTuple

from .cards import FACES, Card, Color, Kind, full_deck
from .events import (
    CallLastCard,
    ChooseColor,
    CloseTaki,
    CorrectCount,
    Draw,
    EndTurn,
    Event,
    Play,
    Reveal,
    WindowClosed,
)
from .options import RuleSet
from .rulings import Ruling, RulingKind as R
from .state import (
    DECK_SIZE,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TOURNAMENT_STAGES,
    GameState,
    Mode,
    Pending,
    Phase,
    TakiRun,
)


class Step(NamedTuple):
    """What one event did: the new state (the same object when refused) and the rulings."""

    state: GameState
    rulings: tuple[Ruling, ...]
    legal: bool = True

    @property
    def text(self) -> str:
        return " ".join(r.text for r in self.rulings)


class Illegal(Exception):
    """Raised inside the engine; ``apply`` turns it into an ILLEGAL ruling."""

    def __init__(self, rule: str, reason: str, seat: int | None = None, key: str = "",
                 args: tuple[tuple[str, object], ...] = ()) -> None:
        super().__init__(reason)
        self.rule, self.reason, self.seat = rule, reason, seat
        self.key, self.args = key, args  # the reason as data, for other languages


# --------------------------------------------------------------------------- new games


def new_game(
    names: tuple[str, ...] | list[str], first: int = 0, rules: RuleSet | None = None
) -> GameState:
    """A referee-mode game just dealt (R-SETUP-1), waiting for the first card."""
    names = _check_names(names, first)
    rules = rules or RuleSet()
    n = len(names)
    return GameState(
        names=names,
        counts=(HAND_SIZE,) * n,
        rules=rules,
        mode=Mode.REFEREE,
        draw_size=DECK_SIZE - HAND_SIZE * n,
        to_move=first,
        stages=(TOURNAMENT_STAGES,) * n if rules.tournament else None,
    )


def deal(
    names: tuple[str, ...] | list[str],
    seed: int,
    first: int = 0,
    rules: RuleSet | None = None,
) -> GameState:
    """A simulation-mode game: shuffled with ``random.Random(seed)``, dealt, and
    started by turning up cards until one may lead (R-SETUP-1, D-SETUP-3)."""
    names = _check_names(names, first)
    rules = rules or RuleSet()
    deck = list(full_deck())
    random.Random(seed).shuffle(deck)
    n = len(names)
    hands = tuple(tuple(deck[-HAND_SIZE * (i + 1) : len(deck) - HAND_SIZE * i]) for i in range(n))
    pile = tuple(deck[: len(deck) - HAND_SIZE * n])
    state = GameState(
        names=names,
        counts=(HAND_SIZE,) * n,
        rules=rules,
        mode=Mode.SIMULATION,
        hands=hands,
        draw_pile=pile,
        draw_size=len(pile),
        to_move=first,
        stages=(TOURNAMENT_STAGES,) * n if rules.tournament else None,
        seed=seed,
    )
    while state.phase is Phase.SETUP:
        assert state.draw_pile
        state = apply(state, Reveal(state.draw_pile[-1])).state
    return state


def _check_names(names: tuple[str, ...] | list[str], first: int) -> tuple[str, ...]:
    names = tuple(str(n).strip() for n in names)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"TAKI is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
    if any(not n for n in names) or len(set(names)) != len(names):
        raise ValueError("every player needs a name of their own")
    if not 0 <= first < len(names):
        raise ValueError(f"seat {first} is not at the table")
    return names


# --------------------------------------------------------------------------- apply


def apply(state: GameState, event: Event | object) -> Step:
    """Apply one event. Never raises: anything that is not an event is refused."""
    try:
        t = _Table(state)
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise Illegal("R-PLAY-1", f"I do not understand the event {event!r}.", key="malformed")
        handler(t, event)
        return _tuple_new(Step, (t.freeze(), tuple(t.out), True))
    except Illegal as e:
        name = state.names[e.seat] if e.seat is not None and 0 <= e.seat < state.n_players else ""
        return Step(state, (Ruling(R.ILLEGAL, e.rule, e.seat, name, reason=e.reason, key=e.key, args=e.args),),
                    False)
    except Exception:  # an event with fields of the wrong kind (a tap or a caller's bug): refused
        return Step(state, (Ruling(R.ILLEGAL, "R-PLAY-1", None, "", reason=_malformed(event), key="malformed"),),
                    False)


def _malformed(event: object) -> str:
    """Why an event could not be used, in words (its fields of the wrong kind)."""
    for field, want in (("card", Card), ("color", Color)):
        value = getattr(event, field, None)
        if hasattr(event, field) and not isinstance(value, want):
            return f"I cannot use {type(event).__name__}: {value!r} is not a {field}."
    for field in ("seat", "count"):
        value = getattr(event, field, None)
        if value is not None and (type(value) is not int or value < 0):
            return f"I cannot use {type(event).__name__}: {value!r} is not a {field}."
    return f"I cannot use the event {event!r}."


def is_legal(state: GameState, event: Event) -> bool:
    return apply(state, event).legal


_FIELDS = GameState._fields
_tuple_new = tuple.__new__


class _Table:
    """A mutable working copy of a state for the length of one event."""

    __slots__ = _FIELDS + ("out", "n")

    # Spelt out field by field: this runs twice per event and a getattr loop
    # costs a third of the engine's time. test_properties checks it misses no field.
    def __init__(self, s: GameState) -> None:
        self.names = s.names
        self.counts = list(s.counts)  # type: ignore[assignment]
        self.rules = s.rules
        self.mode = s.mode
        self.hands = list(s.hands) if s.hands is not None else None  # type: ignore[assignment]
        self.draw_pile = s.draw_pile
        self.draw_size = s.draw_size
        self.discard = s.discard
        self.lead = s.lead
        self.color = s.color
        self.to_move = s.to_move
        self.direction = s.direction
        self.stack = s.stack
        self.plus3_by = s.plus3_by
        self.plus3_victim = s.plus3_victim
        self.run = s.run
        self.pending = s.pending
        self.last_due = s.last_due
        self.last_called = s.last_called
        self.stages = s.stages
        self.winner = s.winner
        self.phase = s.phase
        self.seed = s.seed
        self.reshuffles = s.reshuffles
        self.out: list[Ruling] = []
        self.n = len(s.names)

    def freeze(self) -> GameState:
        hands = self.hands
        # tuple.__new__ with every field in order: the fastest way to build the state.
        return _tuple_new(GameState, (
            self.names, tuple(self.counts), self.rules, self.mode,
            tuple(hands) if hands is not None else None, self.draw_pile, self.draw_size,
            self.discard, self.lead, self.color, self.to_move, self.direction, self.stack,
            self.plus3_by, self.plus3_victim, self.run, self.pending, self.last_due,
            self.last_called, self.stages, self.winner, self.phase, self.seed, self.reshuffles,
        ))

    # -- helpers used by the handlers
    def say(self, kind: R, rule: str, seat: int | None = None, n: int = 0, card: Card | None = None,
            color: Color | None = None, reason: str = "", key: str = "") -> None:
        name = self.names[seat] if seat is not None else ""
        self.out.append(_tuple_new(Ruling, (kind, rule, seat, name, n, card, color, reason, key, ())))

    def seat_of(self, seat: int | None) -> int:
        s = self.to_move if seat is None else seat
        if type(s) is not int or not 0 <= s < self.n:  # a bool is an int to isinstance
            raise Illegal("R-SETUP-2", f"Seat {s} is not at this table.", key="no_seat", args=(("seat", str(s)),))
        return s

    def next_seat(self, steps: int = 1) -> int:
        return (self.to_move + self.direction * steps) % self.n

    def pass_turn(self, skip: int = 0) -> None:
        self.to_move = self.next_seat(1 + skip)
        self.last_called = None
        self.say(R.TURN, "R-SETUP-2", self.to_move)

    def draw(self, seat: int, n: int, rule: str, reason: str = "", kind: R = R.DRAW,
             quiet: bool = False, key: str = "") -> None:
        got = 0
        while got < n:
            if self.draw_size == 0:
                if not (self.rules.reshuffle_discard and len(self.discard) > 1):
                    break
                self.reshuffle()
            take = min(n - got, self.draw_size)
            if self.hands is not None:
                pile = self.draw_pile
                assert pile is not None  # simulation mode holds both
                self.hands[seat] = self.hands[seat] + pile[len(pile) - take :][::-1]
                self.draw_pile = pile[: len(pile) - take]
            self.draw_size -= take
            got += take
        self.counts[seat] += got
        if got and self.last_due == seat:
            self.last_due = None
        if not quiet:
            self.say(kind, rule, seat, n=n, reason=reason, key=key)
        if got < n:
            self.say(R.PILE_EMPTY, "D-PLAY-5", seat, n=got)

    def reshuffle(self) -> None:
        top, rest = self.discard[-1], list(self.discard[:-1])
        if self.hands is not None:
            random.Random(self.seed * 1_000_003 + self.reshuffles).shuffle(rest)
            assert self.draw_pile is not None
            self.draw_pile = tuple(rest) + self.draw_pile
        self.draw_size += len(rest)
        self.discard = (top,)
        self.reshuffles += 1
        self.say(R.RESHUFFLE, "D-PLAY-5")

    def take_card(self, seat: int, card: Card) -> None:
        if self.hands is not None:
            hand = self.hands[seat]
            i = hand.index(card)
            self.hands[seat] = hand[:i] + hand[i + 1 :]
        self.counts[seat] -= 1
        self.discard = self.discard + (card,)
        if self.last_due == seat:
            self.last_due = None
        self.say(R.PLAYED, "R-PLAY-1", seat, card=card)
        if self.counts[seat] == 1:
            if self.last_called == seat:
                self.last_called = None
            else:
                self.last_due = seat
                self.say(R.LAST_CARD_DUE, "R-CALL-LAST", seat)

    def last_card_penalty(self, actor: int) -> None:
        """R-CALL-LAST: the next player acted before the call."""
        due = self.last_due
        if due is not None and actor == self.to_move and actor != due:
            self.last_due = None
            self.draw(due, 4, "R-CALL-LAST", reason="no last-card call", kind=R.PENALTY,
                      key="no_last_card")

    def resolve_plus3(self) -> None:
        """D-PLUS3-2: the window closes and the pending +3 draw happens."""
        by, victim = self.plus3_by, self.plus3_victim
        self.plus3_by = self.plus3_victim = None
        if by is None:
            return
        if victim is not None:
            self.draw(victim, 3, "R-BREAK-1")
            return
        for i in range(self.n):
            seat = (self.to_move + self.direction * i) % self.n
            if seat != by:
                self.draw(seat, 3, "R-PLUS3-1")


# --------------------------------------------------------------------------- checks


#: Why an event is refused: key -> (rule id, sentence). The sentence says what to
#: do instead; {name} is the actor, {turn} the player to move.
_REASONS: dict[str, tuple[str, str]] = {
    "setup": ("R-SETUP-1", "Turn up the first leading card before anyone plays."),
    "over": ("R-END-1", "The game is over: {winner} won."),
    "not_held": ("R-PLAY-1", "{name} does not hold the {card}."),
    "no_cards": ("R-PLAY-1", "By my count {name} holds no cards: correct the count first."),
    "out_of_turn": ("R-BREAK-1", "It is {turn}'s turn. Only a plus three Breaker may be played "
                    "out of turn, against a plus three."),
    "not_turn_draw": ("R-SETUP-2", "It is {turn}'s turn to draw, not {name}'s."),
    "not_turn": ("R-SETUP-2", "It is {turn}'s turn, not {name}'s."),
    "color_first": ("R-COLOR", "{name}, name the colour for your Change Colour first."),
    "in_run": ("R-TAKI-1", "{name}, you are in a {run} TAKI run: play {run} cards, then call "
               "closed TAKI, or end your turn."),
    "stack": ("R-PLUS2-3", "{name}, a plus two stack is waiting: add a plus two or play a King, "
              "or draw {stack}."),
    "on_plus3": ("D-PLUS3-2", "{name}, the {card} cannot go on an active plus three: wait until "
                 "everyone has drawn."),
    "mismatch": ("R-PLAY-1", "{name}, the {card} does not match: play {want} or a colourless "
                 "card, or draw a card."),
    "king_no_draw": ("D-KING-3", "{name}, after a King you may play any card, or end your turn "
                     "without drawing."),
    "king_must_play": ("D-KING-3", "{name}, after a King you must play another card, or draw one."),
    "played_already": ("R-CALL-CLOSE", "{name}, you have played this turn: call closed TAKI, or "
                       "end your turn."),
    "must_play": ("D-PLAY-4", "{name}, you can play a card, so you may not draw."),
    "plus_second": ("R-PLUS", "{name}, after a Plus play a second card, or draw one."),
    "play_or_draw": ("R-PLAY-3", "{name}, play a card or draw one."),
    "no_run": ("R-CALL-CLOSE", "{name}, there is no TAKI run of yours to close."),
    "taki_alone": ("R-TAKI-4", "{name}, a TAKI played by itself cannot be closed: end your turn, "
                   "and the next player may continue it."),
}
_ON_PLUS3_RULE = {Kind.CHANGE_COLOR: "R-COLOR", Kind.SUPER_TAKI: "R-SUPER"}


def _explain(key: str, state: GameState | _Table, seat: int | None, card: Card | None = None) -> Illegal:
    rule, template = _REASONS[key]
    if key == "on_plus3" and card is not None:
        rule = _ON_PLUS3_RULE.get(card.kind, rule)
    want = ""
    if key == "mismatch" and state.color is not None:
        want = f"a {state.color.spoken} card"
        if state.lead is not None and state.lead.color is not None:
            want += f", a {state.lead.spoken.split(' ', 1)[1]}"
    values: dict[str, object] = {
        "turn": state.names[state.to_move],
        "winner": state.names[state.winner] if state.winner is not None else "",
        "card": card, "run": state.run.color if state.run is not None else None,
        "stack": 2 * state.stack, "colour": state.color, "lead": state.lead,
    }
    text = template.format(
        name=state.names[seat] if seat is not None else "",
        turn=values["turn"], winner=values["winner"],
        card=card.spoken if card is not None else "",
        run=state.run.color.spoken if state.run is not None else "",
        stack=values["stack"],
        want=want,
    )
    # the fields the template names, as data (``want`` is said from colour and lead)
    used = [f for f in values if "{" + f + "}" in template]
    used += ["colour", "lead"] if "{want}" in template else []
    return Illegal(rule, text, seat, key=key, args=tuple((f, values[f]) for f in used))


def _phase_block(state: GameState | _Table) -> str | None:
    if state.phase is Phase.PLAYING:
        return None
    return "setup" if state.phase is Phase.SETUP else "over"


def _playing(state: GameState | _Table) -> None:
    key = _phase_block(state)
    if key is not None:
        raise _explain(key, state, None)


def is_break(state: GameState | _Table, seat: int, card: Card) -> bool:
    """A Breaker answering a pending +3 (R-BREAK-1), possibly out of turn."""
    if card.kind is not Kind.BREAKER or state.plus3_by is None:
        return False
    if state.plus3_victim is None:
        return seat != state.plus3_by
    return seat == state.plus3_victim  # D-BREAK-3 off: only the new victim may break back


def play_problem(state: GameState | _Table, seat: int, card: Card) -> Illegal | None:
    """Why ``seat`` may not play ``card`` now, or None when it may."""
    key = _phase_block(state)
    if key is None:
        if state.hands is not None:
            if card not in state.hands[seat]:
                key = "not_held"
        elif state.counts[seat] == 0:
            key = "no_cards"
    if key is None:
        key = _play_block(state, seat, card)
    return None if key is None else _explain(key, state, seat, card)


def _play_block(state: GameState | _Table, seat: int, card: Card) -> str | None:
    """The one place that decides whether a held card may be played now."""
    kind = card.kind
    if kind is Kind.BREAKER and is_break(state, seat, card):
        return None
    if seat != state.to_move:
        return "out_of_turn"
    pending = state.pending
    if pending is Pending.COLOR:
        return "color_first"
    if pending is Pending.KING:
        return None  # R-KING-2: any card at all
    run = state.run
    if run is not None and run.seat == seat:
        return None if card.color is run.color else "in_run"
    if kind is Kind.KING:
        return None  # R-KING-1: on any card
    if state.stack:
        return None if kind is Kind.PLUS2 else "stack"
    if card.color is None:
        if state.plus3_by is not None and kind in _NOT_ON_PLUS3:
            return "on_plus3"
        return None  # R-PLAY-2
    color = state.color
    if color is None or card.color is color:
        return None
    lead = state.lead
    if lead is not None and kind is lead.kind and card.number == lead.number:
        return None
    return "mismatch"


_NOT_ON_PLUS3 = frozenset({Kind.CHANGE_COLOR, Kind.SUPER_TAKI, Kind.PLUS3})


def legal_faces(state: GameState, seat: int | None = None) -> list[Card]:
    """The faces ``seat`` could put down now, whatever they hold (referee mode
    cannot see hands). The tracker's prior, and the teaching mode's hint."""
    if state.phase is not Phase.PLAYING:
        return []
    s = state.to_move if seat is None else seat
    if state.counts[s] == 0:
        return []
    return [card for card in FACES if _play_block(state, s, card) is None]


def _draw_block(state: GameState | _Table, seat: int) -> str | None:
    if seat != state.to_move:
        return "not_turn_draw"
    pending = state.pending
    if pending is Pending.COLOR:
        return "color_first"
    if pending is Pending.KING and state.rules.king_extra_optional:
        return "king_no_draw"
    if state.run is not None and state.run.seat == seat:
        return "played_already"
    if (state.hands is not None and not state.rules.may_draw_when_able and not state.stack
            and any(_play_block(state, seat, c) is None for c in state.hands[seat])):
        return "must_play"
    return None


def _end_block(state: GameState | _Table, seat: int) -> str | None:
    if seat != state.to_move:
        return "not_turn"
    pending = state.pending
    if pending is Pending.KING:
        return None if state.rules.king_extra_optional else "king_must_play"
    if state.run is not None and state.run.seat == seat:
        return None
    if pending is Pending.PLUS:
        return "plus_second"
    if pending is Pending.COLOR:
        return "color_first"
    return "play_or_draw"


def _close_block(state: GameState | _Table, seat: int) -> str | None:
    if seat != state.to_move:
        return "not_turn"
    run = state.run
    if run is None or run.seat != seat:
        return "no_run"
    if run.length <= 1 and state.lead is not None and state.lead.kind in _TAKIS:
        return "taki_alone"
    return None


_TAKIS = frozenset({Kind.TAKI, Kind.SUPER_TAKI})


def _require(state: GameState | _Table, seat: int, block) -> None:  # type: ignore[no-untyped-def]
    """Raise the explained refusal when ``block`` (a *_block function) objects."""
    key = _phase_block(state) or block(state, seat)
    if key is not None:
        raise _explain(key, state, seat)


# --------------------------------------------------------------------------- handlers


def _reveal(t: _Table, e: Reveal) -> None:
    if t.phase is not Phase.SETUP:
        raise Illegal("R-SETUP-1", "The game has started: the first card is already turned up.", key="started")
    if t.draw_size == 0:
        raise Illegal("R-SETUP-1", "There is no draw pile to turn a card up from.", key="no_draw_pile")
    card = e.card
    if t.draw_pile is not None:
        if t.draw_pile[-1] != card:
            raise Illegal("R-SETUP-1", f"The top of the draw pile is not the {card.spoken}.", key="not_on_top",
                          args=(("card", card),))
        t.draw_pile = t.draw_pile[:-1]
    t.draw_size -= 1
    t.discard = t.discard + (card,)
    if t.rules.first_lead_number and card.kind is not Kind.NUMBER:
        t.say(R.REVEAL_AGAIN, "D-SETUP-3", card=card)
        return
    t.lead, t.color, t.phase = card, card.color, Phase.PLAYING
    t.say(R.GAME_STARTS, "R-SETUP-1", t.to_move, card=card)


def _play(t: _Table, e: Play) -> None:
    card = e.card
    seat = t.seat_of(e.seat)
    problem = play_problem(t, seat, card)
    if problem is not None:
        raise problem
    if is_break(t, seat, card):
        _break(t, seat, card)
        return
    t.last_card_penalty(seat)
    if t.plus3_by is not None:
        if card.kind is Kind.KING:
            t.plus3_by = t.plus3_victim = None
            t.say(R.CANCELLED, "R-KING-1")
        else:
            t.resolve_plus3()
    was_king = t.pending is Pending.KING
    t.pending = Pending.NONE
    run = t.run
    t.take_card(seat, card)
    if run is not None and run.seat == seat and not was_king:  # inside one's own run
        t.run = TakiRun(run.color, seat, run.length + 1)
        t.lead = card
        _after_play(t, seat, card, in_run=True)
        return
    if run is not None:
        if run.seat is None and card.color is run.color:  # R-TAKI-3: continuing an open run
            t.run = TakiRun(run.color, seat, 1)
            t.lead = card
            t.say(R.TAKI_RUN, "R-TAKI-3", seat, color=run.color)
            _after_play(t, seat, card, in_run=True)
            return
        t.run = None
        t.say(R.TAKI_ENDED, "D-TAKI-5", color=run.color)
    if card.kind is Kind.KING and t.stack:
        t.stack = 0
        t.say(R.CANCELLED, "R-KING-1")
    if card.kind is not Kind.BREAKER:
        t.lead = card
    if card.color is not None:
        t.color = card.color
    elif card.kind is Kind.SUPER_TAKI:
        pass  # R-SUPER: keeps the colour it was played on
    elif card.kind is not Kind.CHANGE_COLOR and not t.rules.colourless_keeps_colour:
        t.color = None
    _after_play(t, seat, card, in_run=False)


def _after_play(t: _Table, seat: int, card: Card, in_run: bool) -> None:
    finishing = False
    if t.counts[seat] == 0:
        if card.kind is Kind.PLUS and t.rules.no_finish_on_plus:
            t.run = None
            t.pending = Pending.PLUS
            t.say(R.PLAY_AGAIN, "D-END-2", seat, reason="nobody finishes on a Plus: draw a card",
                  key="no_finish_on_plus")
            return
        if _hand_emptied(t, seat):
            return
        finishing = True
    if in_run:
        if not finishing:
            return  # the run goes on
        t.run = None  # emptying the hand closes the run; its last card acts (R-TAKI-2)
        if t.rules.taki_on_top_open and card.kind in _TAKIS:
            _open_for_next(t, card)
            return
    _effect(t, seat, card, finishing)


def _hand_emptied(t: _Table, seat: int) -> bool:
    """R-END-1, R-TOUR-2, R-TOUR-3. True when that ends the game."""
    if not t.rules.tournament:
        t.winner, t.phase = seat, Phase.OVER
        t.say(R.WIN, "R-END-1", seat)
        return True
    assert t.stages is not None
    if t.stages[seat] == 1:
        t.winner, t.phase = seat, Phase.OVER
        t.say(R.TOURNAMENT_WIN, "R-TOUR-3", seat)
        return True
    stage = t.stages[seat] - 1
    t.stages = t.stages[:seat] + (stage,) + t.stages[seat + 1 :]
    t.say(R.STAGE, "R-TOUR-2", seat, n=stage)
    t.draw(seat, stage, "R-TOUR-2", quiet=True)
    return False


def _open_for_next(t: _Table, card: Card) -> None:
    color = card.color or t.color
    assert color is not None
    t.run = TakiRun(color, None, 0)
    t.pass_turn()
    t.say(R.TAKI_OPEN, "D-TAKI-6", t.to_move, color=color)


def _effect(t: _Table, seat: int, card: Card, finishing: bool) -> None:
    """Carry out a card's action (played by itself, or closing a run)."""
    k = card.kind
    if k is Kind.NUMBER:
        t.pass_turn()
    elif k is Kind.STOP:
        t.say(R.SKIP, "R-STOP", t.next_seat())
        t.pass_turn(skip=1)
    elif k is Kind.PLUS2:
        t.stack += 1
        t.pass_turn()
        t.say(R.PLUS2_STACK, "R-PLUS2-2", t.to_move, n=2 * t.stack)
    elif k is Kind.CHANGE_DIRECTION:
        if t.n == 2:
            if t.rules.direction_2p_stops:
                t.say(R.SKIP, "D-DIR-2P", t.next_seat())
                t.pass_turn(skip=1)
            else:
                t.direction = -t.direction
                t.say(R.REVERSE, "D-DIR-2P", reason="With two players the turn still passes.",
                      key="two_players_pass")
                t.pass_turn()
        else:
            t.direction = -t.direction
            t.say(R.REVERSE, "R-DIR")
            t.pass_turn()
    elif k is Kind.PLUS:
        if finishing:
            t.pass_turn()
        else:
            t.pending = Pending.PLUS
            t.say(R.PLAY_AGAIN, "R-PLUS", seat)
    elif k in _TAKIS:
        color = card.color or t.color
        if color is None:  # nothing to take the colour of: its player names one
            t.pending = Pending.COLOR
            t.say(R.CHOOSE_COLOR, "R-SUPER", seat)
        elif finishing:
            _open_for_next(t, card)
        else:
            t.run = TakiRun(color, seat, 1)
            t.color = color
            t.say(R.TAKI_RUN, "R-TAKI-1" if k is Kind.TAKI else "R-SUPER", seat, color=color)
    elif k is Kind.KING:
        if finishing:
            t.pass_turn()
        else:
            t.pending = Pending.KING
            t.say(R.MAY_PLAY_AGAIN, "R-KING-2", seat)
    elif k is Kind.PLUS3:
        if t.rules.plus3_window:
            t.plus3_by, t.plus3_victim = seat, None
            t.say(R.PLUS3_WINDOW, "D-PLUS3-2", seat)
            t.pass_turn()
        else:
            t.pass_turn()
            t.plus3_by = seat
            t.resolve_plus3()
    elif k is Kind.BREAKER:  # R-BREAK-2: on one's own turn, against no +3
        t.draw(seat, 3, "R-BREAK-2", reason="no plus three to break", key="nothing_to_break")
        t.pass_turn()
    elif k is Kind.CHANGE_COLOR:
        t.pending = Pending.COLOR
        t.say(R.CHOOSE_COLOR, "R-COLOR", seat)


def _break(t: _Table, seat: int, card: Card) -> None:
    """R-BREAK-1: a Breaker turns a pending +3 back on its thrower."""
    if seat == t.to_move:
        t.last_card_penalty(seat)
    thrower = t.plus3_by
    assert thrower is not None
    t.take_card(seat, card)
    t.say(R.PLUS3_BROKEN, "R-BREAK-1", thrower)
    if t.rules.breaker_on_breaker:
        t.plus3_by, t.plus3_victim = seat, thrower
    else:
        t.plus3_by = t.plus3_victim = None
        t.draw(thrower, 3, "R-BREAK-1", quiet=True)
    if t.counts[seat] == 0:
        _hand_emptied(t, seat)


def _draw(t: _Table, e: Draw) -> None:
    seat = t.seat_of(e.seat)
    _require(t, seat, _draw_block)
    t.last_card_penalty(seat)
    t.resolve_plus3()
    if t.stack:
        n, t.stack = 2 * t.stack, 0
        t.draw(seat, n, "R-PLUS2-2")
    elif t.pending is Pending.PLUS:
        t.draw(seat, 1, "R-PLUS")
    elif t.pending is Pending.KING:
        t.draw(seat, 1, "D-KING-3")
    else:
        t.draw(seat, 1, "R-PLAY-3")
    t.pending = Pending.NONE
    t.pass_turn()


def _end_turn(t: _Table, e: EndTurn) -> None:
    seat = t.seat_of(e.seat)
    _require(t, seat, _end_block)
    t.last_card_penalty(seat)
    if t.pending is Pending.KING:
        t.pending = Pending.NONE
        t.pass_turn()
        return
    run = t.run
    assert run is not None
    t.run = TakiRun(run.color, None, 0)
    top = t.lead
    if not t.rules.open_run_no_effect and top is not None and top.kind in _ACTS_ON_OTHERS:
        _effect(t, seat, top, finishing=True)
    else:
        t.pass_turn()
    t.say(R.TAKI_OPEN, "R-CALL-CLOSE", t.to_move, color=run.color)


_ACTS_ON_OTHERS = frozenset({Kind.STOP, Kind.PLUS2, Kind.CHANGE_DIRECTION})


def _close(t: _Table, e: CloseTaki) -> None:
    seat = t.seat_of(e.seat)
    _require(t, seat, _close_block)
    t.run = None
    t.say(R.TAKI_CLOSED, "R-CALL-CLOSE", seat)
    top = t.lead
    assert top is not None
    if top.kind in _TAKIS:
        if t.rules.taki_on_top_open:
            _open_for_next(t, top)
        else:
            t.pass_turn()
        return
    _effect(t, seat, top, finishing=False)  # R-TAKI-2: the closing card acts


def _choose(t: _Table, e: ChooseColor) -> None:
    seat = t.seat_of(e.seat)
    _playing(t)
    if t.pending is not Pending.COLOR or seat != t.to_move:
        raise Illegal("R-COLOR", f"{t.names[seat]}, no colour is to be chosen now.", seat, key="no_colour_now")
    if not isinstance(e.color, Color):
        raise Illegal("R-COLOR", "Choose red, yellow, green or blue.", seat, key="which_colour")
    t.pending = Pending.NONE
    t.color = e.color
    t.say(R.COLOR_CHOSEN, "R-COLOR", seat, color=e.color)
    top = t.lead
    if top is not None and top.kind is Kind.SUPER_TAKI:  # a Super TAKI that had no colour to take
        t.run = TakiRun(e.color, seat, 1)
        t.say(R.TAKI_RUN, "R-SUPER", seat, color=e.color)
        return
    t.pass_turn()


def _call_last(t: _Table, e: CallLastCard) -> None:
    seat = t.seat_of(e.seat)
    _playing(t)
    name = t.names[seat]
    if t.last_due == seat:
        t.last_due = None
        t.say(R.LAST_CARD_CALLED, "R-CALL-LAST", seat)
        return
    if seat == t.to_move and t.counts[seat] >= 2 and t.last_called != seat:
        t.last_called = seat  # called ahead, as the card goes down
        t.say(R.LAST_CARD_CALLED, "R-CALL-LAST", seat)
        return
    raise Illegal("R-CALL-LAST", f"No last-card call is due from {name}.", seat, key="no_call_due")


def _window_closed(t: _Table, e: WindowClosed) -> None:
    _playing(t)
    if t.plus3_by is None:
        raise Illegal("D-PLUS3-2", "No plus three is waiting.", key="no_plus3")
    t.resolve_plus3()


def _correct(t: _Table, e: CorrectCount) -> None:
    seat = t.seat_of(e.seat)
    name = t.names[seat]
    if t.mode is Mode.SIMULATION:
        raise Illegal("R-PLAY-1", "A simulated game knows every hand: counts cannot be corrected.", seat,
                      key="simulated_counts")
    if t.phase is Phase.OVER:
        _playing(t)
    low = 0 if t.phase is Phase.SETUP else 1
    if type(e.count) is not int or e.count < low:  # True is no count
        raise Illegal("R-END-1", f"{name} must hold at least {low} card{'s' if low != 1 else ''}.", seat,
                      key="at_least", args=(("low", low),))
    more = e.count - t.counts[seat]
    if more > t.draw_size:
        raise Illegal("R-DECK-4", f"Only {t.draw_size} cards are left in the draw pile.", seat,
                      key="only_left", args=(("left", t.draw_size),))
    t.counts[seat] = e.count
    t.draw_size -= more
    if t.last_due == seat and e.count != 1:
        t.last_due = None
    t.say(R.COUNT_CORRECTED, "R-PLAY-1", seat, n=e.count)


_HANDLERS: dict[type, Callable[[_Table, Any], None]] = {
    Reveal: _reveal,
    Play: _play,
    Draw: _draw,
    EndTurn: _end_turn,
    CloseTaki: _close,
    ChooseColor: _choose,
    CallLastCard: _call_last,
    WindowClosed: _window_closed,
    CorrectCount: _correct,
}


# --------------------------------------------------------------------------- legal moves


def legal_moves(state: GameState, seat: int | None = None) -> list[Event]:
    """Every legal event for ``seat`` (default: the player to move); simulation mode.

    Out of turn, that is a Breaker against a pending +3 and a due last-card call.
    """
    if state.hands is None:
        raise ValueError("legal moves need the hands: use a simulation-mode game")
    if state.phase is not Phase.PLAYING:
        return []
    s = state.to_move if seat is None else seat
    moves: list[Event] = []
    if state.last_due == s:
        moves.append(CallLastCard(s))
    if s != state.to_move:
        if state.plus3_by is not None and any(c.kind is Kind.BREAKER for c in state.hands[s]):
            card = next(c for c in state.hands[s] if c.kind is Kind.BREAKER)
            if is_break(state, s, card):
                moves.append(Play(card, s))
        return moves
    if state.pending is Pending.COLOR:
        return moves + [ChooseColor(c) for c in Color]
    seen: set[int] = set()
    run = state.run
    if (state.pending is Pending.NONE and not state.stack and state.plus3_by is None
            and (run is None or run.seat != s) and state.lead is not None):
        # The common case, inlined for self-play speed (test_properties checks that it
        # agrees with apply on random states): a looked-up set of matching faces,
        # a draw, and neither End turn nor Closed TAKI (no King, no run of one's own).
        ok = _MATCHING[state.lead.index][state.color]
        for card in state.hands[s]:
            i = card.index
            if i in ok and i not in seen:
                seen.add(i)
                moves.append(_PLAYS[i])
        if not seen or state.rules.may_draw_when_able:
            moves.append(_DRAW)
        return moves
    for card in state.hands[s]:
        i = card.index
        if i not in seen:
            seen.add(i)
            if _play_block(state, s, card) is None:
                moves.append(_PLAYS[i])
    if _draw_block(state, s) is None:
        moves.append(_DRAW)
    if _end_block(state, s) is None:
        moves.append(_END)
    if _close_block(state, s) is None:
        moves.append(_CLOSE)
    return moves


def _matching(lead: Card, color: Color | None) -> frozenset[int]:
    """Faces playable on ``lead`` in ``color`` with nothing pending (R-PLAY-2)."""
    return frozenset(c.index for c in FACES
                     if c.color is None or color is None or c.color is color
                     or (c.kind is lead.kind and c.number == lead.number))


#: lead face index -> active colour (or None) -> playable face indices.
_MATCHING: tuple[dict[Color | None, frozenset[int]], ...] = tuple(
    {color: _matching(lead, color) for color in (None, *Color)} for lead in FACES)

# Events are frozen values, so the move generator hands out shared instances.
_PLAYS = tuple(Play(card) for card in FACES)
_DRAW, _END, _CLOSE = Draw(), EndTurn(), CloseTaki()
