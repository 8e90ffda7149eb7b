"""Joins what the camera sees and what people tap to the rules core.

Order of work for every event: apply it, append it and its rulings to the
journal (one SQLite transaction; a refused event is kept too, marked so), and
only then tell the listeners (voice, screen), so a ruling that was heard is
always a ruling that was saved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..rules import (
    CallLastCard,
    Card,
    ChooseColor,
    CloseTaki,
    Color,
    CorrectCount,
    Draw,
    EndTurn,
    GameState,
    Kind,
    Play,
    Reveal,
    RuleSet,
    Ruling,
    RulingKind,
    Step,
    WindowClosed,
    apply,
    new_game,
)
from ..rules.events import Event
from ..store.journal import Journal, JournalError, replay

Listener = Callable[[Step], None]


class RefereeError(Exception):
    """Asked to do something the referee cannot (e.g. undo with nothing to undo)."""


#: The question left open after a card refused as played out of turn (the kiosk's
#: "Who played that?"): the same words as its button, so they are translated alike.
WHO_PLAYED_THAT = "Who played that?"


@dataclass(frozen=True, slots=True)
class Question:
    """The referee needs a person: who played this card (an out-of-turn Breaker, or a
    card refused as played out of turn that the camera may have got wrong)?"""

    card: Card
    seats: tuple[int, ...]
    text: str


class Referee:
    def __init__(self, state: GameState, journal: Journal | None = None, game_id: int | None = None,
                 history: tuple[GameState, ...] = (), next_seq: int = 0,
                 plus3_timeout: float = 8.0, events: tuple[Event, ...] = ()) -> None:
        self.state = state
        #: the kept events, in order, beside ``history`` (a correction needs the last one)
        self.events: list[Event] = list(events)
        self.journal, self.game_id = journal, game_id
        self.history: list[GameState] = list(history)
        self.seq = next_seq
        self.plus3_timeout = plus3_timeout
        self.question: Question | None = None
        self.listeners: list[Listener] = []
        self._window_since: float | None = None
        #: set when the journal stopped taking writes mid-game: the game goes on in memory
        self.journal_error: str | None = None

    def _record(self, event: Event | None, step: Step, t: float | None) -> None:
        """Journal one entry. A journal that fails (read-only, disk full, removed) is
        dropped with a lasting message: the game is kept in memory and can be saved
        elsewhere (:meth:`save_to`); it never stops the game."""
        if self.journal is None or self.game_id is None:
            return
        try:
            self.journal.append(self.game_id, self.seq, event, step, t)
        except JournalError as e:
            self.journal_error = f"{str(e)[:1].upper()}{str(e)[1:]}: this game is not being saved"
            self.journal = None

    def save_to(self, path: str) -> int:
        """Write the game so far (its kept events) into the journal at ``path`` as a new
        game, and go on saving there. Returns the new game's id."""
        first = (self.history[0] if self.history else self.state)
        journal = Journal(path)
        try:
            gid = journal.new_game(self.state.names, first.to_move, self.state.rules)
            state = new_game(self.state.names, first.to_move, self.state.rules)
            for seq, event in enumerate(self.events):
                step = apply(state, event)
                journal.append(gid, seq, event, step)
                state = step.state
        except BaseException:
            journal.close()
            raise
        if state != self.state:
            journal.close()
            raise JournalError("the game could not be rebuilt from its moves; nothing was switched")
        self.journal, self.game_id, self.seq, self.journal_error = journal, gid, len(self.events), None
        return gid

    # ------------------------------------------------------------ construction

    @classmethod
    def start(cls, names: list[str] | tuple[str, ...], first: int = 0, rules: RuleSet | None = None,
              journal: Journal | None = None, tournament_id: int | None = None,
              table_no: int | None = None, **kw: float) -> Referee:
        state = new_game(names, first, rules)
        gid = journal.new_game(names, first, rules, tournament_id, table_no) if journal else None
        return cls(state, journal, gid, **kw)

    @classmethod
    def resume(cls, journal: Journal, game_id: int | None = None, **kw: float) -> Referee | None:
        """The game left unfinished (or the one named), at the very turn it stopped."""
        if game_id is None:
            info = journal.unfinished()
            if info is None:
                return None
            game_id = info.id
        r = replay(journal, game_id)
        return cls(r.state, journal, game_id, r.history, r.next_seq, events=r.events, **kw)

    # ------------------------------------------------------------ the core

    def submit(self, event: Event, t: float | None = None) -> Step:
        step = apply(self.state, event)
        self._record(event, step, t)  # refused ones too
        self.seq += 1
        if step.legal:
            self.history.append(self.state)
            self.events.append(event)
            self.state = step.state
            self.question = None
            if self.state.plus3_by is None:
                self._window_since = None
            elif self._window_since is None:
                self._window_since = t
        self._tell(step)
        return step

    def undo(self, t: float | None = None) -> Step:
        if not self.history:
            raise RefereeError("nothing to undo")
        previous = self.history[-1]
        return self._step_back(Ruling(RulingKind.TURN, "R-SETUP-2", previous.to_move,
                                      previous.names[previous.to_move]), t)

    def _step_back(self, ruling: Ruling, t: float | None) -> Step:
        """Take the last kept event back, journalled as an undo row carrying ``ruling``."""
        previous = self.history.pop()
        if self.events:
            self.events.pop()
        step = Step(previous, (ruling,), True)
        self._record(None, step, t)
        self.seq += 1
        self.state = previous
        self.question = None
        self._window_since = t if previous.plus3_by is not None else None
        self._tell(step)
        return step

    def _tell(self, step: Step) -> None:
        for listener in list(self.listeners):
            listener(step)

    # ------------------------------------------------------------ camera

    def card_seen(self, card: Card, t: float | None = None, seat: int | None = None) -> Step | Question:
        """The tracker saw ``card`` land on the pile; ``seat``: who put it down, when the
        camera is sure (the arm's direction, vision/seats.py), else None (the turn order).

        With a seat: a Breaker's thrower is named without asking; inside a TAKI run
        left unclosed, the next player's card continues the run as theirs (the run's
        player ended the turn without calling, R-CALL-CLOSE, R-TAKI-3); any other
        player who is not to move played out of turn, and the engine refuses the card
        ("it is Omer's turn") until it is taken back."""
        s = self.state
        if s.phase.value == "setup":
            return self.submit(Reveal(card), t)
        if seat is not None and not 0 <= seat < s.n_players:
            seat = None
        if card.kind is Kind.BREAKER and s.plus3_by is not None:
            if seat is not None and seat != s.plus3_by:
                return self.submit(Play(card, None if seat == s.to_move else seat), t)
            seats = tuple(i for i in range(s.n_players) if i != s.plus3_by)
            self.question = Question(card, seats, "Who played the plus three Breaker?")
            return self.question
        if seat is None or seat == s.to_move:
            return self.submit(Play(card), t)
        if s.run is not None and s.run.seat == s.to_move:
            ended = apply(s, EndTurn())
            if ended.legal and ended.state.to_move == seat:  # the next player went on with the run
                self.submit(EndTurn(), t)
                return self.submit(Play(card), t)
        step = self.submit(Play(card, seat), t)
        if not step.legal:
            # a person may know better than the camera: "Who played that?" offers every
            # player, and the name of the player to move puts the card down as theirs
            self.question = Question(card, tuple(range(s.n_players)), WHO_PLAYED_THAT)
        return step

    def last_card_event(self) -> Play | Reveal | None:
        """The last kept event, when it put a card down: what 'Fix the card' corrects."""
        last = self.events[-1] if self.events and self.history else None
        return last if isinstance(last, (Play, Reveal)) else None

    def fix_card(self, actual: Card, t: float | None = None) -> Step:
        """The last card was misread: it was ``actual``. The misread play is taken back
        (journalled as a correction naming both faces) and ``actual`` is judged in its
        place, by the same player, so replays and standings follow the real card."""
        last = self.last_card_event()
        if last is None:
            raise RefereeError("the last thing that happened was not a card put down, so there is no card to fix")
        if last.card == actual:
            raise RefereeError(f"the {actual.spoken} is already the card on record")
        self._step_back(Ruling(RulingKind.CARD_CORRECTED, "R-PLAY-1", card=actual, reason=last.card.spoken,
                                   args=(("read", last.card),)), t)
        again = Reveal(actual) if isinstance(last, Reveal) else Play(actual, last.seat)
        return self.submit(again, t)

    def answer(self, seat: int, t: float | None = None) -> Step:
        """Answer the open question: ``seat`` played the card."""
        if self.question is None:
            raise RefereeError("no question is waiting for an answer")
        card = self.question.card
        return self.submit(Play(card, seat if seat != self.state.to_move else None), t)

    def tick(self, now: float) -> Step | None:
        """Called by the app clock: closes a +3 response window that has timed out."""
        if self._window_since is not None and now - self._window_since >= self.plus3_timeout:
            self._window_since = None
            return self.submit(WindowClosed(), now)
        return None

    # ------------------------------------------------------------ taps

    def drew(self, t: float | None = None) -> Step:
        return self.submit(Draw(), t)

    def last_card(self, seat: int | None = None, t: float | None = None) -> Step:
        s = self.state
        if seat is None:
            seat = s.last_due if s.last_due is not None else s.to_move
        return self.submit(CallLastCard(seat), t)

    def closed_taki(self, t: float | None = None) -> Step:
        return self.submit(CloseTaki(), t)

    def colour(self, color: Color, t: float | None = None) -> Step:
        return self.submit(ChooseColor(color), t)

    def end_turn(self, t: float | None = None) -> Step:
        return self.submit(EndTurn(), t)

    def correct(self, seat: int, count: int, t: float | None = None) -> Step:
        return self.submit(CorrectCount(seat, count), t)

    def all_drew(self, t: float | None = None) -> Step:
        """Everybody took their three cards: close the +3 window now."""
        return self.submit(WindowClosed(), t)
