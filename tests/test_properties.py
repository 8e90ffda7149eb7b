"""Hypothesis properties over random event sequences (and the engine's fast paths)."""

from collections import Counter

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.rules import (
    FACES,
    CallLastCard,
    ChooseColor,
    CloseTaki,
    Color,
    CorrectCount,
    Draw,
    EndTurn,
    GameState,
    Play,
    Reveal,
    RuleSet,
    WindowClosed,
    apply,
    deal,
    full_deck,
    legal_moves,
    new_game,
)
from companion.rules.engine import _Table
from companion.rules.notation import from_text, to_text

seats = st.integers(min_value=-1, max_value=10)
maybe_seat = st.none() | seats
card = st.sampled_from(FACES)
events = st.one_of(
    st.builds(Play, card, maybe_seat),
    st.builds(Draw, maybe_seat),
    st.builds(ChooseColor, st.sampled_from(list(Color)), maybe_seat),
    st.builds(CallLastCard, seats),
    st.builds(CloseTaki, maybe_seat),
    st.builds(EndTurn, maybe_seat),
    st.just(WindowClosed()),
    st.builds(CorrectCount, seats, st.integers(-3, 40)),
    st.builds(Reveal, card),
)
rule_sets = st.builds(RuleSet, **{name: st.booleans() for name in RuleSet.option_names()})


def _check_invariants(s: GameState) -> None:
    assert 0 <= s.to_move < s.n_players
    assert all(c >= 0 for c in s.counts)
    assert s.cards_accounted() == 116
    if s.hands is not None:
        assert tuple(len(h) for h in s.hands) == s.counts
        assert s.draw_pile is not None and len(s.draw_pile) == s.draw_size
        everything = list(s.draw_pile) + list(s.discard) + [c for h in s.hands for c in h]
        assert Counter(everything) == Counter(full_deck())
    assert from_text(to_text(s)) == s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(2, 10), st.integers(0, 2**32), rule_sets)
def test_simulation_never_raises_and_conserves_the_deck(data, n, seed, rules) -> None:  # type: ignore[no-untyped-def]
    """Mix legal moves with arbitrary events; every step keeps the 116 cards."""
    state = deal([f"P{i}" for i in range(n)], seed=seed, rules=rules)
    _check_invariants(state)
    for _ in range(data.draw(st.integers(5, 60))):
        moves = legal_moves(state)
        if moves and data.draw(st.booleans()):
            event = data.draw(st.sampled_from(moves))
            step = apply(state, event)
            assert step.legal, (event, step.text)
        else:
            event = data.draw(events)
            step = apply(state, event)
        if not step.legal:
            assert step.state is state and len(step.rulings) == 1 and step.rulings[0].text
        state = step.state
        _check_invariants(state)
        if state.is_over:
            break


@settings(max_examples=150, deadline=None)
@given(st.lists(events, max_size=40), st.integers(2, 10), rule_sets)
def test_referee_never_raises_and_illegal_leaves_state(evs, n, rules) -> None:  # type: ignore[no-untyped-def]
    state = new_game([f"P{i}" for i in range(n)], rules=rules)
    for event in [Reveal(FACES[0])] + evs:
        step = apply(state, event)
        if not step.legal:
            assert step.state is state
        state = step.state
        assert 0 <= state.to_move < n and state.cards_accounted() == 116
        assert from_text(to_text(state)) == state


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(2, 6), st.integers(0, 2**32), rule_sets)
def test_legal_moves_agree_with_apply(data, n, seed, rules) -> None:  # type: ignore[no-untyped-def]
    """Every face a player holds is in legal_moves exactly when apply accepts it."""
    state = deal([f"P{i}" for i in range(n)], seed=seed, rules=rules)
    for _ in range(40):
        if state.is_over:
            break
        moves = legal_moves(state)
        for seat in range(n):
            seat_moves = moves if seat == state.to_move else legal_moves(state, seat)
            for face in set(state.hands[seat]):
                ev = Play(face) if seat == state.to_move else Play(face, seat)
                assert (ev in seat_moves) == apply(state, ev).legal, (ev, to_text(state))
        for ev in (Draw(), EndTurn(), CloseTaki()):
            assert (ev in moves) == apply(state, ev).legal
        assert moves, to_text(state)
        state = apply(state, data.draw(st.sampled_from(moves))).state


def test_working_copy_misses_no_field() -> None:
    s = deal(["A", "B", "C"], seed=5, rules=RuleSet(tournament=True))
    assert _Table(s).freeze() == s


def test_notation_round_trip_on_text() -> None:
    s = deal(["Dana", "Omer Levi", "N,oa"], seed=9)
    text = to_text(s)
    assert to_text(from_text(text)) == text


junk = st.one_of(st.none(), st.integers(-5, 99), st.booleans(), st.floats(allow_nan=True), st.text(max_size=6),
                 st.sampled_from(FACES), st.sampled_from(list(Color)), st.just(object()))
def _made(cls, *args):  # type: ignore[no-untyped-def]
    """The event, or None where the compiled core refuses to build it (mypyc checks field types)."""
    try:
        return cls(*args)
    except TypeError:
        return None


ill_typed = st.one_of(
    st.builds(_made, st.just(Play), junk, junk), st.builds(_made, st.just(Draw), junk),
    st.builds(_made, st.just(ChooseColor), junk, junk), st.builds(_made, st.just(CallLastCard), junk),
    st.builds(_made, st.just(CloseTaki), junk), st.builds(_made, st.just(EndTurn), junk),
    st.builds(_made, st.just(CorrectCount), junk, junk), st.builds(_made, st.just(Reveal), junk), junk,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(events, ill_typed), max_size=30), st.integers(2, 10))
def test_ill_typed_events_are_refused_never_raised(evs, n) -> None:  # type: ignore[no-untyped-def]
    """Issue 12: apply never raises, whatever a tap or a caller hands it (a name
    where a card goes, a float seat, a colour that is a string)."""
    state = apply(new_game([f"P{i}" for i in range(n)]), Reveal(FACES[3])).state
    for event in evs:
        step = apply(state, event)
        if not step.legal:
            assert step.state is state and step.text
        state = step.state
        assert state.cards_accounted() == 116
