"""A journalled game as text lines (for the terminal) or JSON (for organisers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .codec import event_to_dict, rules_to_dict
from .journal import Journal


def describe(event: dict[str, Any] | None) -> str:
    if event is None:
        return "undo"
    args = " ".join(f"{k}={v}" for k, v in event.items() if k != "type" and v is not None)
    return f"{event['type']} {args}".strip()


def game_lines(journal: Journal, game_id: int) -> Iterator[str]:
    info = journal.game(game_id)
    yield f"game {info.id}: {', '.join(info.names)}" + (f" (table {info.table_no})" if info.table_no else "")
    for e in journal.entries(game_id):
        said = " ".join(r["text"] for r in e.rulings if r["kind"] != "turn")
        yield f"{e.seq:4d}  {describe(event_to_dict(e.event) if e.event else None):28s} {said}"
    if info.winner is not None:
        yield f"winner: {info.names[info.winner]}"
    else:
        yield "not finished"


def game_json(journal: Journal, game_id: int) -> str:
    info = journal.game(game_id)
    return json.dumps({
        "game": info.id,
        "players": list(info.names),
        "first": info.first,
        "rules": rules_to_dict(info.rules),
        "tournament": info.tournament_id,
        "table": info.table_no,
        "winner": None if info.winner is None else info.names[info.winner],
        "events": [
            {"seq": e.seq, "t": e.t, "event": event_to_dict(e.event) if e.event else None,
             "rulings": list(e.rulings), "state": e.state}
            for e in journal.entries(game_id)
        ],
    }, indent=2)
