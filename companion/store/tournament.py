"""Tournament standings from the journal: stage reached per player, per table.

Each table plays one long game in eight stages (R-TOUR-1..3); a player's place
is decided by winning, then by the lowest stage reached, then by fewest cards.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from ..rules.notation import from_text
from .journal import Journal, JournalError

if TYPE_CHECKING:
    from ..rules.state import GameState


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    name: str
    table: int | None
    game_id: int
    stage: int | None  # None: a game that is not a tournament
    cards: int
    winner: bool


def game_standings(state: "GameState", game_id: int | None, table: int | None = None) -> list[Standing]:
    """One game's standings (a casual game or a tournament's table): the winner first,
    then the lowest stage, then the fewest cards, as :func:`standings` orders them."""
    order = sorted(range(state.n_players), key=lambda i: (state.winner != i, state.stages[i] if state.stages else 0,
                                                          state.counts[i], state.names[i]))
    return [Standing(k + 1, state.names[i], table, game_id or 0, state.stages[i] if state.stages else None,
                     state.counts[i], state.winner == i) for k, i in enumerate(order)]


def standings(journal: Journal, tournament_id: int) -> list[Standing]:
    if tournament_id not in {t for t, _ in journal.tournaments()}:
        raise JournalError(f"there is no tournament {tournament_id} in {journal.path}")
    rows: list[tuple[bool, int, int, str, int | None, int]] = []
    for info in journal.games(tournament_id):
        last = journal.last_state(info.id)
        stages = counts = None
        if last is not None:
            with journal.reading():
                state = from_text(last)
            stages, counts = state.stages, state.counts
        for seat, name in enumerate(info.names):
            stage = stages[seat] if stages else 8
            cards = counts[seat] if counts else 8
            rows.append((info.winner != seat, stage, cards, name, info.table_no, info.id))
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    return [Standing(i + 1, name, table, gid, stage, cards, not not_winner)
            for i, (not_winner, stage, cards, name, table, gid) in enumerate(rows)]


def to_csv(rows: list[Standing]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["place", "name", "table", "game", "stage", "cards", "winner"])
    for r in rows:
        w.writerow([r.place, r.name, r.table, r.game_id, r.stage, r.cards, "yes" if r.winner else ""])
    return buf.getvalue()


def to_json(rows: list[Standing]) -> str:
    return json.dumps([asdict(r) for r in rows], indent=2)
