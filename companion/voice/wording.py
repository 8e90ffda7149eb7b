"""Which rulings are spoken, how urgently, and in what words (in any of the languages).

Each spoken sentence is one whole sentence with one full stop (a reason never
runs into the next ruling), numbers are words, and every sentence carries its
:class:`~companion.voice.worker.Priority` so penalties are heard first. The
words come from the language's catalogue (:mod:`companion.voice.catalog`):
rulings stay data (kind, key, fields) and are said here.
"""

from __future__ import annotations

from ..rules import Step
from ..rules.cards import Card, Color
from ..rules.rulings import Ruling, RulingKind as K
from .catalog import Words, tr, trn, words
from .language import Language
from .worker import Line, Priority

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

#: A refusal's reason (the engine's key) as a message; fields come from the ruling's args.
REASONS = {
    "setup": tr("Turn up the first leading card before anyone plays."),
    "over": tr("The game is over: {winner} won."),
    "not_held": tr("{name} does not hold the {card}."),
    "no_cards": tr("By my count {name} holds no cards: correct the count first."),
    "out_of_turn": tr("It is {turn}'s turn. Only a plus three Breaker may be played out of turn, "
                      "against a plus three."),
    "not_turn_draw": tr("It is {turn}'s turn to draw, not {name}'s."),
    "not_turn": tr("It is {turn}'s turn, not {name}'s."),
    "color_first": tr("{name}, name the colour for your Change Colour first."),
    "in_run": tr("{name}, you are in a {run} TAKI run: play {run} cards, then call closed TAKI, "
                 "or end your turn."),
    "on_plus3": tr("{name}, the {card} cannot go on an active plus three: wait until everyone has drawn."),
    "mismatch": tr("{name}, the {card} does not match: play a {colour} card, a {lead} or a colourless card, "
                   "or draw a card."),
    "mismatch_colour": tr("{name}, the {card} does not match: play a {colour} card or a colourless card, "
                          "or draw a card."),
    "king_no_draw": tr("{name}, after a King you may play any card, or end your turn without drawing."),
    "king_must_play": tr("{name}, after a King you must play another card, or draw one."),
    "played_already": tr("{name}, you have played this turn: call closed TAKI, or end your turn."),
    "must_play": tr("{name}, you can play a card, so you may not draw."),
    "plus_second": tr("{name}, after a Plus play a second card, or draw one."),
    "play_or_draw": tr("{name}, play a card or draw one."),
    "no_run": tr("{name}, there is no TAKI run of yours to close."),
    "taki_alone": tr("{name}, a TAKI played by itself cannot be closed: end your turn, and the next player "
                     "may continue it."),
    "malformed": tr("I cannot use that: it is not a card, a colour or a seat at this table."),
    "no_seat": tr("Seat {seat} is not at this table."),
    "started": tr("The game has started: the first card is already turned up."),
    "no_draw_pile": tr("There is no draw pile to turn a card up from."),
    "not_on_top": tr("The top of the draw pile is not the {card}."),
    "no_colour_now": tr("{name}, no colour is to be chosen now."),
    "which_colour": tr("Choose red, yellow, green or blue."),
    "no_call_due": tr("No last-card call is due from {name}."),
    "no_plus3": tr("No plus three is waiting."),
    "simulated_counts": tr("A simulated game knows every hand: counts cannot be corrected."),
}
#: Reasons with a count, in the language's plural forms.
PLURAL_REASONS = {
    "at_least": trn("{name} must hold at least {count} card.", "{name} must hold at least {count} cards."),
    "stack": trn("{name}, a plus two stack is waiting: add a plus two or play a King, or draw {count}.",
                 "{name}, a plus two stack is waiting: add a plus two or play a King, or draw {count}."),
    "only_left": trn("Only {count} card is left in the draw pile.", "Only {count} cards are left in the draw pile."),
}
#: Why a draw or a second card is due, said after the order.
DRAW_REASONS = {
    "no_last_card": tr("no last-card call"),
    "nothing_to_break": tr("no plus three to break"),
}


def priority(r: Ruling) -> Priority:
    return _PRIORITY.get(r.kind, Priority.INSTRUCTION)


def whole_sentence(text: str) -> str:
    """One sentence: a capital first letter and exactly one closing stop."""
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "۔")) else text + "."


def _value(w: Words, field: str, v: object) -> str:
    if isinstance(v, Card):
        return w.symbol(v) if field == "lead" else w.card(v)
    if isinstance(v, Color):
        return w.colour(v)
    return "" if v is None else str(v)


def refusal(r: Ruling, w: Words) -> str:
    """An ILLEGAL ruling's reason in the language (the English text when it has no key)."""
    fields = dict(r.args)
    if r.key in PLURAL_REASONS:
        n = next((v for v in fields.values() if isinstance(v, int)), 0)
        return w.plural(PLURAL_REASONS[r.key], n, name=r.name)
    key = r.key
    if key == "mismatch" and (fields.get("colour") is None or getattr(fields.get("lead"), "color", 1) is None):
        key = "mismatch_colour" if fields.get("colour") is not None else "play_or_draw"
    if key not in REASONS:
        return r.reason
    values = {f: _value(w, f, v) for f, v in fields.items()}
    return w(REASONS[key], name=r.name, **values)


def _draw_order(w: Words, name: str, n: int) -> str:
    """"Dana, draw two.": a draw without its reason."""
    return w.plural(trn("{name}, draw a card.", "{name}, draw {count}."), n, name=name)


def _draw(r: Ruling, w: Words) -> str:
    if r.key in DRAW_REASONS:
        return w.plural(trn("{name}, draw a card: {reason}.", "{name}, draw {count}: {reason}."), r.n,
                        name=r.name, reason=w(DRAW_REASONS[r.key]))
    return _draw_order(w, r.name, r.n)


def say(r: Ruling, w: Words) -> str:
    """Any ruling as one sentence in the language (the short spoken form where there is one)."""
    k, name = r.kind, r.name
    colour, card = w.colour(r.color), w.card(r.card)
    if k is K.ILLEGAL:
        text = refusal(r, w)
    elif k in (K.DRAW, K.PENALTY):
        text = _draw(r, w)
    elif k is K.PLUS3_WINDOW:  # short: everyone must hear it before the next card
        text = w(tr("Plus three! Everyone but {name}, draw three."), name=name)
    elif k is K.PLUS2_STACK:  # short: the player must act now
        text = w.plural(trn("{name}: plus two or King, or draw {count}.", "{name}: plus two or King, or draw {count}."),
                        r.n, name=name)
    elif k is K.TAKI_RUN:
        text = w(tr("{colour} TAKI, {name}: {colour} cards, then closed TAKI."), colour=colour, name=name)
    elif k is K.TAKI_OPEN:
        text = w(tr("{colour} TAKI open: {name} may go on."), colour=colour, name=name)
    elif k is K.MAY_PLAY_AGAIN:
        text = w(tr("{name}: any card, or end your turn."), name=name)
    elif k is K.PLAY_AGAIN:
        text = w(tr("{name}, nobody finishes on a Plus: draw a card."), name=name) \
            if r.key == "no_finish_on_plus" else w(tr("{name}, play another card."), name=name)
    elif k is K.REVERSE:
        text = w(tr("With two players the turn still passes.")) if r.key == "two_players_pass" else \
            w(tr("Direction reversed."))
    elif k is K.PILE_EMPTY:
        text = w.plural(trn("No cards left to draw: {name} draws only {count}.",
                            "No cards left to draw: {name} draws only {count}."), r.n, name=name)
    elif k is K.COUNT_CORRECTED:
        text = w.plural(trn("{name} now holds {count} card.", "{name} now holds {count} cards."), r.n, name=name)
    elif k is K.CARD_CORRECTED:
        read = dict(r.args).get("read")
        text = w(tr("Corrected: it was the {card}, not the {read}."), card=card, read=w.card(read)) \
            if isinstance(read, Card) else w(tr("Corrected: the {card} was played."), card=card)
    elif k is K.STAGE:
        text = w.plural(trn("{name} reaches stage {stage}: draw {count}.", "{name} reaches stage {stage}: draw {count}."),
                        r.n, name=name, stage=r.n)
    else:
        text = w(_SIMPLE[k], name=name, card=card, colour=colour)
    return whole_sentence(text)


_SIMPLE = {
    K.PLAYED: tr("{name} played the {card}."),
    K.REVEAL_AGAIN: tr("The {card} cannot start the game: turn up another card."),
    K.GAME_STARTS: tr("The {card} leads. {name} starts."),
    K.TURN: tr("{name}, your turn."),
    K.SKIP: tr("{name} is skipped."),
    K.CHOOSE_COLOR: tr("{name}, choose a colour."),
    K.COLOR_CHOSEN: tr("The colour is {colour}."),
    K.PLUS3_BROKEN: tr("Broken! {name}, draw three."),
    K.CANCELLED: tr("The King cancels the draw."),
    K.TAKI_CLOSED: tr("TAKI closed by {name}."),
    K.TAKI_ENDED: tr("The {colour} TAKI run is over."),
    K.LAST_CARD_DUE: tr("{name} has one card left."),
    K.LAST_CARD_CALLED: tr("{name} calls last card."),
    K.RESHUFFLE: tr("The draw pile is empty: shuffle the discard pile, keep the leading card."),
    K.WIN: tr("{name} wins the game!"),
    K.TOURNAMENT_WIN: tr("{name} wins the tournament!"),
}


def describe(r: Ruling, lang: Language = Language.ENGLISH) -> str:
    """A ruling for the screen's history: the journal's English text, or the language's sentence."""
    return r.text if lang is Language.ENGLISH else say(r, words(lang))


def sentence(r: Ruling, teaching: bool = False, lang: Language = Language.ENGLISH) -> str | None:
    """What the referee says aloud for one ruling, or None for what goes unsaid."""
    w = words(lang)
    if r.kind in QUIET:
        return None
    if r.kind is K.LAST_CARD_DUE:
        return w(tr("{name}, remember to call last card!"), name=r.name) if teaching else None
    if r.kind is K.DRAW and r.n == 1 and not r.reason:
        return None  # a player who could not play drew, as everyone saw: not a penalty to announce
    return say(r, w)


#: The rulings that settle a waiting +3 (drawn by everyone, or broken): they say all
#: the window's sentence said, so they replace it if it is still being spoken.
_SETTLES_PLUS3 = frozenset({"R-PLUS3-1", "R-BREAK-1"})


#: Calls still worth saying after the game has moved on (others are stale by then).
_LASTING = frozenset({K.WIN, K.TOURNAMENT_WIN, K.RESHUFFLE, K.PILE_EMPTY, K.CARD_CORRECTED,
                      K.COUNT_CORRECTED})


def short_form(r: Ruling, w: Words, text: str) -> str | None:
    """The ruling said in a few words (who does what), for when speech is behind; the
    whole sentence stays on the screen. None where the sentence is short already."""
    k = r.kind
    if k in (K.DRAW, K.PENALTY) and r.key in DRAW_REASONS:
        out = _draw_order(w, r.name, r.n)
    elif k is K.PLAY_AGAIN and r.key == "no_finish_on_plus":
        out = _draw_order(w, r.name, 1)
    elif k is K.REVEAL_AGAIN:
        out = w(tr("Turn up another card."))
    elif k is K.RESHUFFLE:
        out = w(tr("Shuffle the discard pile."))
    elif k is K.PILE_EMPTY:
        out = w.plural(trn("{name} draws only {count}.", "{name} draws only {count}."), r.n, name=r.name)
    elif k is K.TAKI_RUN:
        out = w(tr("{colour} TAKI, {name}."), colour=w.colour(r.color), name=r.name)
    elif k is K.TAKI_OPEN:
        out = w(tr("{name} may go on."), name=r.name)
    elif k is K.PLUS2_STACK:  # the count to draw is on the screen
        out = w(tr("{name}: plus two or King."), name=r.name)
    elif k is K.MAY_PLAY_AGAIN:
        out = w(tr("{name}: any card."), name=r.name)
    elif k is K.ILLEGAL:
        out = first_clause(text)  # what is wrong; the way out is on the screen
    else:
        return None
    out = whole_sentence(out)
    return out if len(out.split()) < len(text.split()) else None


def first_clause(text: str) -> str:
    """A sentence up to its first colon or full stop: a refusal's what, without its how."""
    cut = min((i for i in (text.find(":"), text.find(". "), text.find("۔ ")) if i > 0), default=len(text))
    return text[:cut]


def _line(text: str, r: Ruling, w: Words) -> Line:
    p = priority(r)
    short = short_form(r, w, text)
    if r.kind in _LASTING:
        return Line(text, p, lasting=True, short=short)
    if r.kind is K.PLUS3_WINDOW:
        return Line(text, p, topic="plus3", short=short)
    if r.kind is K.PLUS3_BROKEN or (r.kind in (K.DRAW, K.PENALTY) and r.rule in _SETTLES_PLUS3):
        return Line(text, p, supersedes="plus3", short=short)
    return Line(text, p, short=short)


def _merge_penalties(lines: list[Line]) -> list[Line]:
    """A card's penalties as one utterance, so the second is not queued behind the
    first as news of its own (one card, one announcement, said at once); together
    they are said without their reasons ("Eli, draw four. Dana, draw three."), which
    the screen shows, so the announcement stays under three seconds."""
    out: list[Line] = []
    run: list[Line] = []
    for line in [*lines, None]:
        if line is not None and line.priority == Priority.PENALTY:
            run.append(line)
            continue
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(Line(" ".join(r.short or r.text for r in run), Priority.PENALTY,
                            next((r.topic for r in run if r.topic), None),
                            next((r.supersedes for r in run if r.supersedes), None)))
        run = []
        if line is not None:
            out.append(line)
    return out


def sentences(step: Step, teaching: bool = False, lang: Language = Language.ENGLISH) -> list[Line]:
    """The sentences to speak for one step, each with its urgency (and what it is
    about), in order; a step's penalties come as one line."""
    w = words(lang)
    out: list[Line] = []
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
            out.append(_line(w.plural(trn("{names} and {last}, draw {count} each.",
                                          "{names} and {last}, draw {count} each."), r.n,
                                      names=w(tr(", ")).join(names[:-1]), last=names[-1]), r, w))
            continue
        s = sentence(r, teaching, lang)
        if s:
            out.append(_line(s, r, w))
    if any(r.kind is K.PLUS3_BROKEN for r in step.rulings) and not step.state.is_over:
        st = step.state  # an out-of-turn play: nobody would know whose turn it is now
        out.append(Line(w(tr("{name}, your turn."), name=st.names[st.to_move]), Priority.CALL))
    return _merge_penalties(out)
