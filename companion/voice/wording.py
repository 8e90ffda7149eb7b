"""Which rulings are spoken, how urgently, and in what words (English).

Each spoken sentence is one whole sentence with one full stop (a reason never
runs into the next ruling), numbers are words, and every sentence carries its
:class:`~companion.voice.worker.Priority` so penalties are heard first.
"""

from __future__ import annotations

from ..rules import Step
from ..rules.rulings import Ruling, RulingKind as K, in_words
from .worker import Priority

#: The table can see these happen; saying them every time would drown the rest.
QUIET = frozenset({K.PLAYED, K.TURN})

_PRIORITY = {
    K.DRAW: Priority.PENALTY, K.PENALTY: Priority.PENALTY, K.ILLEGAL: Priority.PENALTY,
    K.PLUS3_BROKEN: Priority.PENALTY, K.PLUS3_WINDOW: Priority.PENALTY, K.STAGE: Priority.PENALTY,
    K.CHOOSE_COLOR: Priority.CALL, K.COLOR_CHOSEN: Priority.CALL, K.GAME_STARTS: Priority.CALL,
    K.WIN: Priority.CALL, K.TOURNAMENT_WIN: Priority.CALL, K.CARD_CORRECTED: Priority.CALL,
    K.COUNT_CORRECTED: Priority.CALL, K.REVEAL_AGAIN: Priority.CALL, K.LAST_CARD_CALLED: Priority.CALL,
    K.RESHUFFLE: Priority.CALL, K.PILE_EMPTY: Priority.CALL, K.CANCELLED: Priority.CALL,
}


def priority(r: Ruling) -> Priority:
    return _PRIORITY.get(r.kind, Priority.INSTRUCTION)


def whole_sentence(text: str) -> str:
    """One sentence: a capital first letter and exactly one closing stop."""
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def sentence(r: Ruling, teaching: bool = False) -> str | None:
    if r.kind in QUIET:
        return None
    if r.kind is K.LAST_CARD_DUE:
        return f"{r.name}, remember to call last card!" if teaching else None
    if r.kind is K.DRAW and r.n == 1 and not r.reason:
        return None  # a player who could not play drew, as everyone saw: not a penalty to announce
    if r.kind is K.PLUS3_WINDOW:  # short: everyone must hear it before the next card
        return f"Plus three! Everyone but {r.name}, draw three."
    if r.kind is K.PLUS2_STACK:  # short: the player must act now
        return whole_sentence(f"{r.name}: plus two or King, or draw {in_words(r.n)}")
    if r.kind is K.TAKI_RUN:
        color = r.color.spoken if r.color else ""
        return whole_sentence(f"{color} TAKI, {r.name}: {color} cards, then closed TAKI")
    if r.kind is K.TAKI_OPEN:
        return whole_sentence(f"{r.color.spoken if r.color else ''} TAKI open: {r.name} may go on")
    if r.kind is K.MAY_PLAY_AGAIN:
        return f"{r.name}: any card, or end your turn."
    return whole_sentence(r.text)


def sentences(step: Step, teaching: bool = False) -> list[tuple[str, Priority]]:
    """The sentences to speak for one step, each with its urgency, in order."""
    out: list[tuple[str, Priority]] = []
    rulings = list(step.rulings)
    i = 0
    while i < len(rulings):
        r = rulings[i]
        group = [r]  # several players drawing the same number at once: one sentence
        while (r.kind in (K.DRAW, K.PENALTY) and not r.reason and i + len(group) < len(rulings)
               and rulings[i + len(group)].kind is r.kind and rulings[i + len(group)].n == r.n
               and not rulings[i + len(group)].reason):
            group.append(rulings[i + len(group)])
        i += len(group)
        if len(group) > 1:
            names = [g.name for g in group]
            out.append((f"{', '.join(names[:-1])} and {names[-1]}, draw {in_words(r.n)} each.", priority(r)))
            continue
        s = sentence(r, teaching)
        if s:
            out.append((s, priority(r)))
    if any(r.kind is K.PLUS3_BROKEN for r in step.rulings) and not step.state.is_over:
        st = step.state  # an out-of-turn play: nobody would know whose turn it is now
        out.append((f"{st.names[st.to_move]}, your turn.", Priority.CALL))
    return out
