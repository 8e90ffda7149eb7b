"""A one-line text form of a game state (our FEN), for fixtures and logs.

``to_text(from_text(s)) == s`` and ``from_text(to_text(state)) == state``.
Tokens are ``key=value``; cards are face codes (``R7``, ``B+2``, ``KING``);
lists are comma-separated, hands separated by ``|``; names are %-escaped.

>>> from companion.rules import new_game
>>> to_text(new_game(["Dana", "Omer"]))
'taki1 mode=referee phase=setup players=Dana,Omer counts=8,8 turn=0 dir=+ draw=100 discard= lead=- color=- stack=0 plus3=- run=- pending=- due=- called=- stages=- winner=- seed=0 reshuffles=0 rules=-'
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from .cards import Card, CardParseError, Color
from .options import RuleSet
from .state import GameState, Mode, Pending, Phase, TakiRun

MAGIC = "taki1"


class NotationError(ValueError):
    """Text that is not a TAKI state in this notation."""


def _cards(cards: tuple[Card, ...]) -> str:
    return ",".join(c.code for c in cards)


def _opt(v: object) -> str:
    return "-" if v is None else str(v)


def to_text(s: GameState) -> str:
    run = "-" if s.run is None else f"{s.run.color.value}:{_opt(s.run.seat)}:{s.run.length}"
    rules = ",".join(f"{k}={int(v)}" for k, v in s.rules.changes().items()) or "-"
    parts = [
        MAGIC,
        f"mode={s.mode.value}",
        f"phase={s.phase.value}",
        "players=" + ",".join(quote(n, safe="") for n in s.names),
        "counts=" + ",".join(map(str, s.counts)),
        f"turn={s.to_move}",
        f"dir={'+' if s.direction == 1 else '-'}",
        f"draw={s.draw_size}",
        f"discard={_cards(s.discard)}",
        f"lead={s.lead.code if s.lead else '-'}",
        f"color={s.color.value if s.color else '-'}",
        f"stack={s.stack}",
        f"plus3={_opt(s.plus3_by)}" + ("" if s.plus3_victim is None else f">{s.plus3_victim}"),
        f"run={run}",
        f"pending={s.pending.value}",
        f"due={_opt(s.last_due)}",
        f"called={_opt(s.last_called)}",
        "stages=" + ("-" if s.stages is None else ",".join(map(str, s.stages))),
        f"winner={_opt(s.winner)}",
        f"seed={s.seed}",
        f"reshuffles={s.reshuffles}",
        f"rules={rules}",
    ]
    if s.hands is not None:
        assert s.draw_pile is not None
        parts.append("hands=" + "|".join(_cards(h) for h in s.hands))
        parts.append(f"pile={_cards(s.draw_pile)}")
    return " ".join(parts)


def from_text(text: str) -> GameState:
    tokens = text.split()
    if not tokens or tokens[0] != MAGIC:
        raise NotationError(f"a TAKI state starts with {MAGIC!r}")
    try:
        f = dict(tok.split("=", 1) for tok in tokens[1:])
    except ValueError:
        raise NotationError("every field is key=value") from None
    try:
        return _build(f)
    except NotationError:
        raise
    except (KeyError, ValueError, CardParseError) as e:
        raise NotationError(f"bad TAKI state: {e}") from None


def _int_or_none(v: str) -> int | None:
    return None if v == "-" else int(v)


def _card_list(v: str) -> tuple[Card, ...]:
    return tuple(Card.from_code(c) for c in v.split(",")) if v else ()


def _build(f: dict[str, str]) -> GameState:
    names = tuple(unquote(n) for n in f["players"].split(","))
    rules = RuleSet()
    if f["rules"] != "-":
        rules = rules.with_changes(**{k: bool(int(v)) for k, v in (kv.split("=") for kv in f["rules"].split(","))})
    run = None
    if f["run"] != "-":
        c, seat, length = f["run"].split(":")
        run = TakiRun(Color(c), _int_or_none(seat), int(length))
    plus3, _, victim = f["plus3"].partition(">")
    hands = pile = None
    if "hands" in f:
        hands = tuple(_card_list(h) for h in f["hands"].split("|"))
        pile = _card_list(f["pile"])
    state = GameState(
        names=names,
        counts=tuple(int(c) for c in f["counts"].split(",")),
        rules=rules,
        mode=Mode(f["mode"]),
        hands=hands,
        draw_pile=pile,
        draw_size=int(f["draw"]),
        discard=_card_list(f["discard"]),
        lead=None if f["lead"] == "-" else Card.from_code(f["lead"]),
        color=None if f["color"] == "-" else Color(f["color"]),
        to_move=int(f["turn"]),
        direction=1 if f["dir"] == "+" else -1,
        stack=int(f["stack"]),
        plus3_by=_int_or_none(plus3),
        plus3_victim=_int_or_none(victim) if victim else None,
        run=run,
        pending=Pending(f["pending"]),
        last_due=_int_or_none(f["due"]),
        last_called=_int_or_none(f["called"]),
        stages=None if f["stages"] == "-" else tuple(int(x) for x in f["stages"].split(",")),
        winner=_int_or_none(f["winner"]),
        phase=Phase(f["phase"]),
        seed=int(f["seed"]),
        reshuffles=int(f["reshuffles"]),
    )
    if len(state.counts) != len(names) or not 0 <= state.to_move < len(names):
        raise NotationError("counts and turn must fit the players")
    if hands is not None and tuple(len(h) for h in hands) != state.counts:
        raise NotationError("hands must hold as many cards as the counts say")
    return state
