"""Scripted short games through the tricky sequences a referee must get right."""

from collections import Counter

from companion.rules import (
    CallLastCard,
    CloseTaki,
    Color,
    Draw,
    EndTurn,
    Pending,
    Play,
    RulingKind as K,
    WindowClosed,
    full_deck,
)

from .helpers import C, kinds, refused, ruled, run, sim, table


def _conserved(state) -> None:  # type: ignore[no-untyped-def]
    everything = list(state.draw_pile) + list(state.discard) + [c for h in state.hands for c in h]
    assert Counter(everything) == Counter(full_deck())


def test_taki_run_ending_on_plus2() -> None:
    """R-TAKI-1, R-TAKI-2, R-PLUS2-1: the closing +2 acts, the ones inside did not."""
    g = sim(["RTAKI R+2 R3 R+2 B9", "Y1 Y3", "G4 G6", "B1 B4"], lead="R5")
    g, rulings = run(g, Play(C("RTAKI")), Play(C("R+2")), Play(C("R3")), Play(C("R+2")), CloseTaki())
    assert g.stack == 1 and g.to_move == 1
    assert ruled(rulings, K.PLUS2_STACK)[0].n == 2
    g, rulings = run(g, CallLastCard(0), Draw())
    assert g.counts == (1, 4, 2, 2) and g.to_move == 2
    _conserved(g)


def test_open_taki_continued_by_the_next_player() -> None:
    """R-CALL-CLOSE, R-TAKI-3: Dana forgets to close; Omer plays on in red and closes."""
    g, rulings = run(table("G5"), Play(C("GTAKI")), Play(C("G7")), EndTurn())
    assert ruled(rulings, K.TAKI_OPEN)[0].text == "The green TAKI is open: Omer may continue it."
    g, rulings = run(g, Play(C("G1")), Play(C("GSTOP")), CloseTaki())
    assert g.to_move == 3  # the closing Stop skips Noa
    assert g.counts == (6, 6, 8, 8)


def test_plus2_stack_broken_by_a_king() -> None:
    """R-PLUS2-2, R-KING-1, R-KING-2: the King cancels four cards and plays on."""
    g, _ = run(table("Y5"), Play(C("Y+2")), Play(C("R+2")))
    assert g.stack == 2 and g.to_move == 2
    g, rulings = run(g, Play(C("KING")))
    assert g.stack == 0 and K.CANCELLED in kinds(rulings) and g.pending is Pending.KING
    g, _ = run(g, Play(C("B1")))
    assert g.to_move == 3 and g.color is Color.BLUE
    assert g.counts == (7, 7, 6, 8)


def test_plus3_broken_out_of_turn() -> None:
    """R-PLUS3-1, R-BREAK-1, D-PLUS3-2: Eli breaks Dana's +3 while Omer is next."""
    g = sim(["+3 R1", "R3 R4", "G4 G6", "BREAKER B1 B4"], lead="R5")
    g, _ = run(g, Play(C("+3")))
    assert g.plus3_open and g.to_move == 1
    g, rulings = run(g, Play(C("BREAKER"), seat=3))
    assert g.counts == (4, 2, 2, 2) and not g.plus3_open and g.to_move == 1
    assert ruled(rulings, K.PLUS3_BROKEN)[0].text == "Broken! Dana, draw three."
    g, _ = run(g, Play(C("R3")))
    assert g.to_move == 2
    _conserved(g)


def test_breaker_played_on_ones_own_turn() -> None:
    """R-BREAK-2: three cards for its player, and the next plays on the card beneath."""
    g = sim(["BREAKER R1", "G5 Y1", "G4 G6"], lead="G7")
    g, rulings = run(g, Play(C("BREAKER")))
    assert g.counts == (4, 2, 2) and g.to_move == 1 and g.lead == C("G7")
    assert g.discard[-1] == C("BREAKER")
    refused(g, Play(C("Y1")))
    g, _ = run(g, Play(C("G5")))
    _conserved(g)


def test_plus_with_no_second_card() -> None:
    """R-PLUS: no card to follow, so draw one and the turn ends."""
    g = sim(["RPLUS B1", "G5 Y1", "G4 G6"], lead="R7", pile="Y9")
    g, _ = run(g, Play(C("RPLUS")))
    refused(g, Play(C("B1")))
    g, rulings = run(g, Draw())
    assert g.hands[0] == (C("B1"), C("Y9")) and g.to_move == 1
    assert ruled(rulings, K.DRAW)[0].rule == "R-PLUS"


def test_king_as_the_last_card_wins() -> None:
    """D-KING-3: a King that empties the hand wins; no extra play is owed."""
    g = sim(["KING", "G5 Y1", "G4 G6"], lead="R7")
    g, rulings = run(g, Play(C("KING")))
    assert g.is_over and g.winner == 0 and K.WIN in kinds(rulings)


def test_change_direction_with_two_players() -> None:
    """R-DIR, D-DIR-2P: direction flips but the other player still plays next."""
    g, _ = run(table("B5", counts=(8, 8)), Play(C("BDIR")))
    assert g.direction == -1 and g.to_move == 1
    g, _ = run(g, Play(C("BDIR")))
    assert g.direction == 1 and g.to_move == 0


def test_draw_pile_exhausted_and_reshuffled() -> None:
    """D-PLAY-5: a +2 stack of four needs more than the pile holds."""
    g = sim(["R+2 R1 R3", "B+2 B4 B6", "G1 G3"], lead="R5")
    # Move all but one card of the draw pile onto the discard pile, as after a long game.
    pile = g.draw_pile
    g = g._replace(draw_pile=pile[-1:], draw_size=1, discard=pile[:-1] + g.discard)
    _conserved(g)
    g, _ = run(g, Play(C("R+2")), Play(C("B+2")))
    g, rulings = run(g, Draw())
    assert K.RESHUFFLE in kinds(rulings) and g.counts[2] == 6
    assert g.discard == (C("B+2"),) and g.reshuffles == 1
    _conserved(g)


def test_last_card_penalty_spoken_sentence() -> None:
    """R-CALL-LAST: the sentence the app speaks names the player and the reason."""
    g, _ = run(table("R5", counts=(2, 5, 5)), Play(C("R7")))
    _, rulings = run(g, Draw())
    assert ruled(rulings, K.PENALTY)[0].text == "Dana, draw four: no last-card call."


def test_plus3_window_closed_by_timeout_then_next_plays() -> None:
    g, _ = run(table("R5"), Play(C("+3")), WindowClosed(), Play(C("R1")))
    assert g.counts == (7, 10, 11, 11) and g.to_move == 2


def test_last_card_call_after_taki_run() -> None:
    g, rulings = run(table("R5", counts=(4, 5, 5)), Play(C("RTAKI")), Play(C("R1")), Play(C("R3")))
    assert g.last_due == 0
    g, _ = run(g, CloseTaki(), CallLastCard(0), Draw())
    assert g.counts == (1, 6, 5)
