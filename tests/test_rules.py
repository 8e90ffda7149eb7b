"""One or more tests per rule id of TAKI_RULES.md; the id leads each test name.

Seats: 0 Dana, 1 Omer, 2 Noa, 3 Eli; play goes 0 -> 1 -> 2 -> 3 unless reversed.
"""

import pytest

from companion.rules import (
    CallLastCard,
    ChooseColor,
    CloseTaki,
    Color,
    CorrectCount,
    Draw,
    EndTurn,
    Pending,
    Phase,
    Play,
    Reveal,
    RuleSet,
    RulingKind as K,
    WindowClosed,
    apply,
    deal,
    new_game,
)

from .helpers import C, kinds, refused, ruled, run, sim, table

# ----------------------------------------------------------------- setup


def test_r_setup_1_deal_eight_and_turn_up_the_leading_card() -> None:
    g = new_game(["Dana", "Omer", "Noa"])
    assert g.counts == (8, 8, 8) and g.draw_size == 116 - 24 and g.phase is Phase.SETUP
    g, rulings = run(g, Reveal(C("G4")))
    assert g.phase is Phase.PLAYING and g.lead == C("G4") and g.color is Color.GREEN
    assert g.draw_size == 116 - 25 and K.GAME_STARTS in kinds(rulings)
    refused(g, Reveal(C("G5")))


def test_r_setup_1_nobody_plays_before_the_first_card() -> None:
    step = refused(new_game(["Dana", "Omer"]), Play(C("R5")))
    assert step.rulings[0].rule == "R-SETUP-1"


def test_r_setup_2_youngest_starts_and_play_goes_left() -> None:
    g, _ = run(new_game(["Dana", "Omer", "Noa"], first=2), Reveal(C("R5")))
    assert g.to_move == 2
    g, _ = run(g, Play(C("R7")))
    assert g.to_move == 0
    step = refused(g, Play(C("R8"), seat=1))
    assert "Dana's turn" in step.text


def test_d_setup_3_an_action_card_cannot_lead() -> None:
    g, rulings = run(new_game(["Dana", "Omer"]), Reveal(C("BSTOP")))
    assert g.phase is Phase.SETUP and kinds(rulings) == [K.REVEAL_AGAIN]
    assert rulings[0].rule == "D-SETUP-3"
    g, _ = run(g, Reveal(C("KING")), Reveal(C("B3")))
    assert g.phase is Phase.PLAYING and g.lead == C("B3") and len(g.discard) == 3


def test_d_setup_3_option_keep_the_first_card() -> None:
    rules = RuleSet(first_lead_number=False)
    g, _ = run(new_game(["Dana", "Omer"], rules=rules), Reveal(C("B+2")))
    assert g.phase is Phase.PLAYING and g.stack == 0  # the action has no effect
    g, _ = run(new_game(["Dana", "Omer"], rules=rules), Reveal(C("KING")))
    assert g.color is None
    run(g, Play(C("Y6")))  # a colourless lead lets the first player play any card


def test_simulated_deal_is_seeded_and_starts_on_a_number() -> None:
    a, b = deal(["A", "B", "C"], seed=11), deal(["A", "B", "C"], seed=11)
    assert a == b and a.lead is not None and a.lead.number is not None
    assert a != deal(["A", "B", "C"], seed=12)
    assert a.cards_accounted() == 116


@pytest.mark.parametrize("names", [["Solo"], [f"P{i}" for i in range(11)], ["A", "A"], ["A", ""]])
def test_table_size_and_names_are_checked(names: list[str]) -> None:
    with pytest.raises(ValueError):
        new_game(names)


# ----------------------------------------------------------------- playing


def test_r_play_1_match_colour_or_symbol() -> None:
    g = table("R5")
    run(g, Play(C("R9")))
    run(g, Play(C("B5")))
    step = refused(g, Play(C("B6")))
    assert step.rulings[0].rule == "R-PLAY-1"
    assert "red card" in step.text and "a 5" in step.text and "draw" in step.text


def test_r_play_1_action_symbols_match_across_colours() -> None:
    run(table("RSTOP"), Play(C("GSTOP")))
    refused(table("RSTOP"), Play(C("G+2")))


def test_r_play_2_colourless_cards_go_on_anything() -> None:
    for code in ("KING", "COLOR", "SUPER", "+3", "BREAKER"):
        run(table("G7"), Play(C(code)))


def test_r_play_3_drawing_ends_the_turn() -> None:
    g, rulings = run(table("R5"), Draw())
    assert g.counts[0] == 9 and g.to_move == 1 and g.draw_size == 116 - 32 - 1 - 1
    assert ruled(rulings, K.DRAW)[0].n == 1


def test_r_play_3_drawn_card_comes_from_the_pile_in_simulation() -> None:
    g = sim(["R1 B3", "Y4", "G4"], pile="Y9")
    g2, _ = run(g, Draw())
    assert g2.hands[0] == (C("R1"), C("B3"), C("Y9")) and g2.to_move == 1
    assert g2.cards_accounted() == 116


def test_d_play_4_drawing_while_able_is_allowed() -> None:
    run(sim(["R1 B3", "Y4", "G4"]), Draw())


def test_d_play_4_option_must_play_if_able() -> None:
    rules = RuleSet(may_draw_when_able=False)
    step = refused(sim(["R1 B3", "Y4", "G4"], rules=rules), Draw())
    assert step.rulings[0].rule == "D-PLAY-4"
    run(sim(["G1 B3", "Y4", "G4"], rules=rules), Draw())  # nothing playable: may draw


def test_d_play_5_empty_draw_pile_is_reshuffled() -> None:
    g = table("R5", counts=(8, 8), draw_size=0, discard=(C("B1"), C("B3"), C("R5")))
    g, rulings = run(g, Draw())
    assert K.RESHUFFLE in kinds(rulings)
    assert g.discard == (C("R5"),) and g.draw_size == 1 and g.counts[0] == 9


def test_d_play_5_option_no_reshuffle() -> None:
    g = table("R5", counts=(8, 8), draw_size=0, discard=(C("B1"), C("R5")),
              rules=RuleSet(reshuffle_discard=False))
    g, rulings = run(g, Draw())
    assert K.PILE_EMPTY in kinds(rulings) and g.counts[0] == 8 and g.to_move == 1


# ----------------------------------------------------------------- ending


def test_r_end_1_emptying_the_hand_wins() -> None:
    g, rulings = run(table("R5", counts=(1, 5, 5)), Play(C("R7")))
    assert g.is_over and g.winner == 0 and K.WIN in kinds(rulings)
    assert refused(g, Draw()).rulings[0].rule == "R-END-1"


def test_d_end_2_nobody_finishes_on_a_plus() -> None:
    g, rulings = run(table("R5", counts=(1, 5, 5)), Play(C("RPLUS")))
    assert not g.is_over and g.pending is Pending.PLUS and g.to_move == 0
    assert ruled(rulings, K.PLAY_AGAIN)[0].rule == "D-END-2"
    g, _ = run(g, Draw())
    assert g.counts[0] == 1 and g.to_move == 1


def test_d_end_2_option_finishing_on_a_plus_wins() -> None:
    g, _ = run(table("R5", counts=(1, 5, 5), rules=RuleSet(no_finish_on_plus=False)), Play(C("RPLUS")))
    assert g.winner == 0


# ----------------------------------------------------------------- calls


def test_r_call_last_forgotten_call_costs_four_when_the_next_player_acts() -> None:
    g, rulings = run(table("R5", counts=(2, 5, 5)), Play(C("R7")))
    assert g.last_due == 0 and K.LAST_CARD_DUE in kinds(rulings)
    g, rulings = run(g, Play(C("R8")))  # Omer acts first
    pen = ruled(rulings, K.PENALTY)
    assert pen and pen[0].seat == 0 and pen[0].n == 4 and pen[0].rule == "R-CALL-LAST"
    assert "Dana, draw four: no last-card call" in pen[0].text
    assert g.counts == (5, 4, 5) and g.last_due is None


def test_r_call_last_called_in_time_no_penalty() -> None:
    g, _ = run(table("R5", counts=(2, 5, 5)), Play(C("R7")), CallLastCard(0), Play(C("R8")))
    assert g.counts == (1, 4, 5)


def test_r_call_last_called_as_the_card_goes_down() -> None:
    g, _ = run(table("R5", counts=(2, 5, 5)), CallLastCard(0), Play(C("R7")))
    assert g.last_due is None
    g, rulings = run(g, Draw())
    assert not ruled(rulings, K.PENALTY)


def test_r_call_last_not_due_is_refused() -> None:
    step = refused(table("R5", counts=(5, 5, 5)), CallLastCard(1))
    assert step.rulings[0].rule == "R-CALL-LAST"


def test_r_call_last_drawing_back_up_clears_the_duty() -> None:
    g, _ = run(table("R5", counts=(2, 5)), Play(C("R+2")))
    assert g.last_due == 0
    g, rulings = run(g, Play(C("B+2")), Draw())  # Omer stacks (penalty first), Dana draws 8
    assert [r.n for r in ruled(rulings, K.PENALTY)] == [4]
    assert g.counts[0] == 1 + 4 + 4 and g.last_due is None


def test_r_call_close_closed_run_passes_the_turn() -> None:
    g, rulings = run(table("R5"), Play(C("RTAKI")), Play(C("R7")), Play(C("R1")), CloseTaki())
    assert g.run is None and g.to_move == 1 and K.TAKI_CLOSED in kinds(rulings)
    assert g.counts[0] == 5


def test_r_call_close_unclosed_run_stays_open_for_the_next_player() -> None:
    g, rulings = run(table("R5"), Play(C("RTAKI")), Play(C("R7")), EndTurn())
    assert g.run is not None and g.run.seat is None and g.run.color is Color.RED
    assert g.to_move == 1 and ruled(rulings, K.TAKI_OPEN)[0].seat == 1


# ----------------------------------------------------------------- action cards


def test_r_stop_skips_the_next_player() -> None:
    g, rulings = run(table("R5"), Play(C("RSTOP")))
    assert g.to_move == 2 and ruled(rulings, K.SKIP)[0].seat == 1


def test_r_plus2_1_next_player_draws_two_and_loses_the_turn() -> None:
    g, rulings = run(table("R5"), Play(C("R+2")))
    assert g.stack == 1 and g.to_move == 1 and ruled(rulings, K.PLUS2_STACK)[0].n == 2
    g, rulings = run(g, Draw())
    assert g.counts[1] == 10 and g.to_move == 2 and g.stack == 0


def test_r_plus2_2_the_stack_grows_and_the_first_who_cannot_draws_all() -> None:
    g, _ = run(table("R5"), Play(C("R+2")), Play(C("G+2")), Play(C("Y+2")))
    assert g.stack == 3 and g.to_move == 3
    g, rulings = run(g, Draw())
    assert g.counts[3] == 14 and ruled(rulings, K.DRAW)[0].n == 6 and g.to_move == 0


def test_r_plus2_3_only_plus2_or_king_on_a_stack() -> None:
    g, _ = run(table("R5"), Play(C("R+2")))
    for code in ("R7", "COLOR", "SUPER", "BREAKER", "+3", "RSTOP"):
        step = refused(g, Play(C(code)))
        assert step.rulings[0].rule == "R-PLUS2-3"
        assert "draw four" not in step.text and "draw 2" in step.text
    run(g, Play(C("KING")))


def test_r_dir_reverses_play() -> None:
    g, rulings = run(table("R5", to_move=1), Play(C("RDIR")))
    assert g.direction == -1 and g.to_move == 0 and K.REVERSE in kinds(rulings)


def test_d_dir_2p_changes_nothing_with_two_players() -> None:
    g, rulings = run(table("R5", counts=(8, 8)), Play(C("RDIR")))
    assert g.to_move == 1 and ruled(rulings, K.REVERSE)[0].rule == "D-DIR-2P"


def test_d_dir_2p_option_acts_as_stop() -> None:
    g, _ = run(table("R5", counts=(8, 8), rules=RuleSet(direction_2p_stops=True)), Play(C("RDIR")))
    assert g.to_move == 0


def test_r_color_choose_a_colour_for_the_next_player() -> None:
    g, rulings = run(table("R5"), Play(C("COLOR")))
    assert g.pending is Pending.COLOR and g.to_move == 0 and K.CHOOSE_COLOR in kinds(rulings)
    refused(g, Play(C("R7")))
    refused(g, Draw())
    refused(g, ChooseColor(Color.BLUE, seat=1))
    g, _ = run(g, ChooseColor(Color.BLUE))
    assert g.color is Color.BLUE and g.to_move == 1
    refused(g, Play(C("R7")))
    run(g, Play(C("B1")))


def test_r_color_not_on_an_active_plus3() -> None:
    g, _ = run(table("R5"), Play(C("+3")))
    assert refused(g, Play(C("COLOR"))).rulings[0].rule == "R-COLOR"


def test_r_taki_1_play_all_of_the_colour_in_one_turn() -> None:
    g, rulings = run(table("R5"), Play(C("RTAKI")))
    assert g.run is not None and g.run.seat == 0 and g.to_move == 0
    assert ruled(rulings, K.TAKI_RUN)[0].color is Color.RED
    g, _ = run(g, Play(C("R1")), Play(C("RSTOP")), Play(C("R9")))
    assert g.to_move == 0 and g.counts[0] == 4
    step = refused(g, Play(C("B9")))
    assert step.rulings[0].rule == "R-TAKI-1"
    refused(g, Draw())


def test_r_taki_2_actions_inside_a_run_have_no_effect() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("RSTOP")), Play(C("R+2")), Play(C("R3")),
               CloseTaki())
    assert g.stack == 0 and g.to_move == 1


def test_r_taki_2_the_closing_action_card_acts() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R3")), Play(C("RSTOP")), CloseTaki())
    assert g.to_move == 2


def test_r_taki_3_the_next_player_continues_an_open_run() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R3")), EndTurn())
    g, rulings = run(g, Play(C("R8")))
    assert g.run is not None and g.run.seat == 1 and g.to_move == 1
    g, _ = run(g, Play(C("R9")), CloseTaki())
    assert g.run is None and g.to_move == 2


def test_r_taki_3_another_colour_ends_an_open_run() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R3")), EndTurn())
    g, rulings = run(g, Play(C("B3")))
    assert g.run is None and g.to_move == 2 and K.TAKI_ENDED in kinds(rulings)


def test_r_taki_3_an_open_run_survives_a_draw() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R3")), EndTurn(), Draw())
    assert g.run is not None and g.run.seat is None and g.to_move == 2
    g, _ = run(g, Play(C("R4")))
    assert g.run is not None and g.run.seat == 2


def test_r_taki_4_a_taki_alone_cannot_be_closed_by_its_player() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")))
    step = refused(g, CloseTaki())
    assert step.rulings[0].rule == "R-TAKI-4"
    g, _ = run(g, EndTurn())
    assert g.run is not None and g.run.seat is None and g.to_move == 1
    g, _ = run(g, Play(C("R1")), Play(C("R3")), CloseTaki())
    assert g.to_move == 2


def test_d_taki_6_a_taki_on_top_stays_open() -> None:
    g, rulings = run(table("R5"), Play(C("RTAKI")), Play(C("R3")), Play(C("RTAKI")), CloseTaki())
    assert g.run is not None and g.run.seat is None and g.to_move == 1
    assert ruled(rulings, K.TAKI_OPEN)[0].rule == "D-TAKI-6"


def test_d_taki_6_option_a_taki_on_top_can_be_closed() -> None:
    rules = RuleSet(taki_on_top_open=False)
    g, _ = run(table("R5", rules=rules), Play(C("RTAKI")), Play(C("R3")), Play(C("RTAKI")), CloseTaki())
    assert g.run is None and g.to_move == 1


def test_d_taki_5_open_run_top_action_is_not_carried_out() -> None:
    g, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R+2")), EndTurn())
    assert g.stack == 0 and g.to_move == 1
    g, rulings = run(g, Play(C("B+2")))  # ends the run by symbol: an ordinary +2
    assert g.run is None and g.stack == 1 and g.to_move == 2


def test_d_taki_5_option_open_run_top_action_is_carried_out() -> None:
    rules = RuleSet(open_run_no_effect=False)
    g, _ = run(table("R5", rules=rules), Play(C("RTAKI")), Play(C("RSTOP")), EndTurn())
    assert g.to_move == 2 and g.run is not None


def test_r_super_takes_the_colour_it_is_played_on() -> None:
    g, rulings = run(table("G5"), Play(C("SUPER")))
    assert g.run is not None and g.run.color is Color.GREEN and ruled(rulings, K.TAKI_RUN)[0].rule == "R-SUPER"
    g, _ = run(g, Play(C("G1")), Play(C("G3")), CloseTaki())
    assert g.to_move == 1 and g.color is Color.GREEN


def test_r_super_after_change_colour_takes_the_chosen_colour() -> None:
    g, _ = run(table("G5"), Play(C("COLOR")), ChooseColor(Color.YELLOW), Play(C("SUPER")))
    assert g.run is not None and g.run.color is Color.YELLOW and g.run.seat == 1


def test_r_super_not_on_a_stack_or_plus3() -> None:
    g, _ = run(table("G5"), Play(C("+3")))
    assert refused(g, Play(C("SUPER"))).rulings[0].rule == "R-SUPER"


def test_r_king_1_cancels_a_plus2_stack() -> None:
    g, rulings = run(table("R5"), Play(C("R+2")), Play(C("B+2")), Play(C("KING")))
    assert g.stack == 0 and K.CANCELLED in kinds(rulings) and g.to_move == 2
    assert g.counts == (7, 7, 7, 8)


def test_r_king_1_cancels_a_plus3() -> None:
    g, rulings = run(table("R5"), Play(C("+3")), Play(C("KING")))
    assert g.plus3_by is None and g.counts == (7, 7, 8, 8)
    assert ruled(rulings, K.CANCELLED)[0].rule == "R-KING-1"


def test_r_king_2_then_any_card_at_all() -> None:
    g, rulings = run(table("R5"), Play(C("KING")))
    assert g.pending is Pending.KING and g.to_move == 0 and K.MAY_PLAY_AGAIN in kinds(rulings)
    g, _ = run(g, Play(C("B9")))  # does not match the red 5: allowed after a King
    assert g.to_move == 1 and g.color is Color.BLUE


def test_d_king_3_the_extra_play_may_be_declined() -> None:
    g, _ = run(table("R5"), Play(C("KING")))
    assert refused(g, Draw()).rulings[0].rule == "D-KING-3"
    g, _ = run(g, EndTurn())
    assert g.to_move == 1 and g.counts[0] == 7 and g.color is Color.RED


def test_d_king_3_option_extra_play_compelled() -> None:
    g, _ = run(table("R5", rules=RuleSet(king_extra_optional=False)), Play(C("KING")))
    refused(g, EndTurn())
    g, _ = run(g, Draw())
    assert g.counts[0] == 8 and g.to_move == 1


def test_d_king_3_kings_may_follow_kings_and_a_king_is_not_played_in_a_run() -> None:
    g, _ = run(table("R5"), Play(C("KING")), Play(C("KING")))
    assert g.pending is Pending.KING
    g2, _ = run(table("R5"), Play(C("RTAKI")), Play(C("R3")))
    refused(g2, Play(C("KING")))


def test_r_plus_must_play_a_second_card() -> None:
    g, rulings = run(table("R5"), Play(C("RPLUS")))
    assert g.pending is Pending.PLUS and g.to_move == 0 and ruled(rulings, K.PLAY_AGAIN)[0].rule == "R-PLUS"
    refused(g, EndTurn())
    refused(g, Play(C("B7")))
    g, _ = run(g, Play(C("BPLUS")), Play(C("B7")))
    assert g.to_move == 1 and g.counts[0] == 5


def test_r_plus3_1_everyone_else_draws_three() -> None:
    g, rulings = run(table("R5"), Play(C("+3")))
    assert g.plus3_by == 0 and g.to_move == 1 and K.PLUS3_WINDOW in kinds(rulings)
    g, rulings = run(g, WindowClosed())
    assert g.counts == (7, 11, 11, 11)
    assert {r.seat for r in ruled(rulings, K.DRAW)} == {1, 2, 3}


def test_r_plus3_1_next_players_play_closes_the_window_first() -> None:
    g, rulings = run(table("R5"), Play(C("+3")), Play(C("R6")))
    assert g.counts == (7, 10, 11, 11) and g.to_move == 2


def test_r_break_1_any_player_breaks_out_of_turn() -> None:
    g, _ = run(table("R5"), Play(C("+3")))
    g, rulings = run(g, Play(C("BREAKER"), seat=3))
    assert g.counts == (10, 8, 8, 7) and g.plus3_by is None
    assert ruled(rulings, K.PLUS3_BROKEN)[0].seat == 0
    assert g.to_move == 1  # play goes on with the player after the +3
    run(g, Play(C("R1")))  # matching the colour that led before the +3


def test_r_break_1_the_thrower_cannot_break_their_own() -> None:
    g, _ = run(table("R5"), Play(C("+3")))
    refused(g, Play(C("BREAKER"), seat=0))


def test_r_break_1_out_of_turn_needs_a_plus3() -> None:
    step = refused(table("R5"), Play(C("BREAKER"), seat=2))
    assert step.rulings[0].rule == "R-BREAK-1"


def test_r_break_2_own_turn_breaker_costs_three_and_is_see_through() -> None:
    g, rulings = run(table("R5"), Play(C("BREAKER")))
    assert g.counts[0] == 10 and g.to_move == 1 and g.lead == C("R5")
    assert ruled(rulings, K.DRAW)[0].rule == "R-BREAK-2"
    run(g, Play(C("B5")))
    refused(g, Play(C("BREAKER"), seat=2))


def test_d_plus3_2_option_no_window() -> None:
    g, _ = run(table("R5", rules=RuleSet(plus3_window=False)), Play(C("+3")))
    assert g.plus3_by is None and g.counts == (7, 11, 11, 11) and g.to_move == 1


def test_d_plus3_2_window_closed_without_a_plus3_is_refused() -> None:
    refused(table("R5"), WindowClosed())


def test_d_break_3_a_breaker_is_final() -> None:
    g, _ = run(table("R5"), Play(C("+3")), Play(C("BREAKER"), seat=2))
    refused(g, Play(C("BREAKER"), seat=0))


def test_d_break_3_option_a_breaker_can_be_broken() -> None:
    g, _ = run(table("R5", rules=RuleSet(breaker_on_breaker=True)), Play(C("+3")),
               Play(C("BREAKER"), seat=2))
    assert g.plus3_by == 2 and g.plus3_victim == 0
    g, _ = run(g, Play(C("BREAKER"), seat=0))
    assert g.plus3_victim == 2
    g, _ = run(g, WindowClosed())
    assert g.counts == (6, 8, 10, 8)


def test_d_colourless_the_colour_before_stays() -> None:
    g, _ = run(table("R5"), Play(C("+3")), WindowClosed())
    assert g.color is Color.RED
    run(g, Play(C("R9")))
    run(g, Play(C("+3")))  # symbol match on the +3
    refused(g, Play(C("B9")))


def test_d_colourless_option_any_colour_after_colourless() -> None:
    g, _ = run(table("R5", rules=RuleSet(colourless_keeps_colour=False)), Play(C("+3")), WindowClosed())
    assert g.color is None
    run(g, Play(C("B9")))


# ----------------------------------------------------------------- tournament


def test_r_tour_1_everyone_starts_at_stage_eight_with_eight_cards() -> None:
    g = new_game(["Dana", "Omer", "Noa"], rules=RuleSet(tournament=True))
    assert g.stages == (8, 8, 8) and g.counts == (8, 8, 8)


def test_r_tour_2_emptying_the_hand_starts_the_next_stage() -> None:
    rules = RuleSet(tournament=True)
    g, rulings = run(table("R5", counts=(1, 5, 5), rules=rules), Play(C("R7")))
    assert not g.is_over and g.stages == (7, 8, 8) and g.counts == (7, 5, 5)
    st = ruled(rulings, K.STAGE)[0]
    assert st.n == 7 and st.text == "Dana reaches stage 7: draw seven."
    assert g.to_move == 1


def test_r_tour_2_the_finishing_card_still_acts_on_the_others() -> None:
    rules = RuleSet(tournament=True)
    g, _ = run(table("R5", counts=(1, 5, 5), rules=rules), Play(C("R+2")))
    assert g.stack == 1 and g.to_move == 1
    g, _ = run(table("R5", counts=(1, 5, 5), rules=rules), Play(C("KING")))
    assert g.pending is Pending.NONE and g.to_move == 1


def test_r_tour_3_first_to_empty_at_stage_one_wins() -> None:
    rules = RuleSet(tournament=True)
    g = table("R5", counts=(1, 5, 5), rules=rules, stages=(1, 3, 8))
    g, rulings = run(g, Play(C("R7")))
    assert g.is_over and g.winner == 0 and K.TOURNAMENT_WIN in kinds(rulings)


# ----------------------------------------------------------------- corrections and refusals


def test_count_correction_keeps_the_deck_whole() -> None:
    g, rulings = run(table("R5"), CorrectCount(2, 10))
    assert g.counts[2] == 10 and g.cards_accounted() == 116 and K.COUNT_CORRECTED in kinds(rulings)
    refused(g, CorrectCount(2, 0))
    refused(g, CorrectCount(9, 3))
    refused(g, CorrectCount(2, 500))


def test_simulation_counts_cannot_be_corrected() -> None:
    refused(sim(["R1", "B3", "G4"]), CorrectCount(0, 3))


def test_simulation_only_held_cards_can_be_played() -> None:
    step = refused(sim(["R1 B3", "Y4", "G4"]), Play(C("R7")))
    assert "does not hold" in step.text


def test_referee_refuses_a_play_from_an_empty_count() -> None:
    g = table("R5", counts=(0, 5, 5), draw_size=116 - 11)
    refused(g, Play(C("R7")))


def test_unknown_event_is_refused_not_raised() -> None:
    step = apply(table("R5"), "not an event")  # type: ignore[arg-type]
    assert not step.legal


def test_every_ruling_cites_a_rule_id() -> None:
    g, rulings = run(table("R5", counts=(2, 5, 5, 5)), Play(C("R+2")), Play(C("B+2")), Draw(),
                     Play(C("BTAKI")), Play(C("B7")), CloseTaki())
    assert rulings and all(r.rule.startswith(("R-", "D-")) and r.text for r in rulings)
