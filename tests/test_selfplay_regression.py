"""Deterministic seeded self-play as a regression oracle (like python-chess's perft).

If a rules change moves these numbers, the change altered how games play out:
check it was meant, then re-pin (``python -m tests.regression_selfplay`` prints them).
"""

import pytest

from companion.cli import main
from companion.rules.selfplay import GreedyPolicy, play_game

from .regression_selfplay import summary

#: 10,000 seeded games, 2 to 10 players, greedy and random seats alternating.
PINNED_GAMES = {
    "events": 1096155,
    "longest": 1115,
    "wins": {"greedy": 7973, "random": 2027},
    "penalties": 4800,
    "reshuffles": 5913,
    "broken": 4756,
    "stages": 0,
    "digest": "a27173b6a1182ca1",
}


#: R-TOUR-1..3: every player works down eight stages; the first out at stage 1 wins.
PINNED_TOURNAMENTS = {
    "events": 75116,
    "longest": 2443,
    "wins": {"greedy": 59, "random": 1},
    "penalties": 611,
    "reshuffles": 580,
    "broken": 165,
    "stages": 1237,
    "digest": "824e5f1f0fc2d58a",
}


@pytest.mark.slow
def test_ten_thousand_games_finish_with_pinned_summary() -> None:
    assert summary(10_000) == PINNED_GAMES


def test_sixty_tournaments_finish_with_pinned_summary() -> None:
    """R-TOUR-1..3 over 60 seeded tournaments."""
    assert summary(60, tournament=True) == PINNED_TOURNAMENTS


def test_same_seed_same_game() -> None:
    a = play_game(5, 42, [GreedyPolicy() for _ in range(5)])
    b = play_game(5, 42, [GreedyPolicy() for _ in range(5)])
    assert a.final == b.final and a.events == b.events


def test_tournament_winner_reached_stage_one() -> None:
    from companion.rules import RuleSet

    r = play_game(3, 7, [GreedyPolicy() for _ in range(3)], RuleSet(tournament=True))
    assert r.winner is not None and r.final.stages[r.winner] == 1
    assert r.rulings["tournament_win"] == 1 and r.rulings["stage"] >= 7


def test_selfplay_command_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "20", "--players", "3", "--policy", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "20 games, 3 players, greedy policy" in out
    assert sum(int(line.split(":")[1].split()[0]) for line in out.splitlines()[1:]) == 20
