"""Starts the kiosk: picks the frame source (camera, file, or the bundled demo),
the journal, the voice, and hands the Kivy app a controller that builds sessions.

Environment first: Kivy reads its settings at import, so ``run()`` sets them
before anything imports kivy.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..ui_args import add_app_arguments  # noqa: F401  (re-exported)
from ..voice.catalog import Words, tr, words

HAND_ONLY = tr("Refereeing by hand: tap 'Enter a card' for each card put down.")
LOADING = tr("Loading the card reader…")
BOARD_URL = tr("The event board's address starts with http:// (e.g. http://laptop:8080).")
TABLE_NO = tr("The table number is a whole number from 1 to 999.")
NOT_SAVED = tr("This game is not being saved, so it cannot be sent to the event board.")
DEMO_NOTE = tr("No camera found: this is the bundled demo game.")
NO_CAMERA_GAME = tr("{error}: cards are not read in this game; plug the camera in and start again")
DECK_NOT_USED = tr("Deck profile not used: {error}. Reading with the default reader.")
NO_READING = tr("No camera reading: {error}. Tap 'Enter a card' for each card put down.")
RESUMED = tr("Resumed game {game} where it stopped.")


#: Kivy's messages about optional providers a kiosk may lack (the mtdev touch library,
#: the xclip/xsel clipboards): one quiet line each, not a traceback at every start.
OPTIONAL_PROVIDERS = ("Input: MTDev", "Input: HIDInput", "Input: ProbeSysfs", "Cutbuffer:", "xclip -", "xsel -",
                      "Clipboard:")


class _OptionalProviders(logging.Filter):
    """Turns Kivy's reports of a missing optional provider into a debug line."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith(OPTIONAL_PROVIDERS):
            record.msg, record.args = message.splitlines()[0][:160], ()
            record.exc_info, record.exc_text, record.stack_info = None, None, None
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger("kivy").isEnabledFor(logging.DEBUG)
        return True


def _kivy_env(args: argparse.Namespace) -> None:
    os.environ.setdefault("KIVY_HOME", str(Path(tempfile.gettempdir()) / "taki-companion-kivy"))
    os.environ["KIVY_NO_ARGS"] = "1"
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    kivy_log = logging.getLogger("kivy")
    if not any(isinstance(f, _OptionalProviders) for f in kivy_log.filters):
        kivy_log.addFilter(_OptionalProviders())
    from kivy.config import Config

    Config.set("kivy", "exit_on_escape", "1")
    for option in Config.options("input"):  # no probing of touch devices a kiosk may lack
        Config.remove_option("input", option)
    Config.set("input", "mouse", "mouse,multitouch_on_demand")
    # no multisampling: the screen is flat text and card pictures, and Kivy's default of 2
    # samples gave the window two 16 MiB buffers under software GL (30 of the kiosk's 307
    # MiB, benchmarks/kiosk_start.py); on a Pi it is GPU memory and fill rate spent for nothing
    Config.set("graphics", "multisamples", "0")
    if args.windowed:
        w, h = (int(v) for v in args.size.split("x"))
        Config.set("graphics", "fullscreen", "0")
        Config.set("graphics", "width", str(w))
        Config.set("graphics", "height", str(h))
    else:
        Config.set("graphics", "fullscreen", "auto")


class Controller:
    """Everything the app does that is not drawing: sources, journal, voice, sessions."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.demo = False
        self.journal = None
        self.voice = None
        self.session = None
        self.started = time.monotonic()
        self.load_in_background = False
        self.reader_ready = False
        self.detector, self.detector_error = None, "the card reader is still loading"
        self.deck_problem: str | None = None  # why the deck profile asked for is not used
        self._waiting: list = []  # sessions started before the reader was ready  # type: ignore[type-arg]
        self.marks: dict[str, float] = {}  # wall-clock times of start-up steps (--startup-log)

    @property
    def deck_warning(self) -> str | None:
        """Why the deck profile is not used, in English (the log; the kiosk says it in its
        own language when the game starts, from ``deck_problem``)."""
        return words()(DECK_NOT_USED, error=self.deck_problem) if self.deck_problem else None

    @property
    def language(self):  # type: ignore[no-untyped-def]
        """The language chosen (--language, or on the setup screen)."""
        from ..voice.language import Language

        return Language(getattr(self.args, "language", None) or "en")

    def seat_map(self, n_players: int):  # type: ignore[no-untyped-def]
        """The players' seats from --seat-angles, or None (the turn order decides who played)."""
        from ..vision.seats import SeatMap

        given = getattr(self.args, "seat_angles", None)
        if not given:
            return None
        if given.strip() == "even":
            return SeatMap.evenly(n_players)
        try:
            angles = tuple(float(a) % 360 for a in given.split(","))
        except ValueError:
            print(f"--seat-angles {given!r} is not 'even' or a list of degrees: seats not used")
            return None
        if len(angles) != n_players:
            print(f"--seat-angles gives {len(angles)} seats for {n_players} players: seats not used")
            return None
        return SeatMap(angles)

    @property
    def threads(self) -> int:
        """The reader's CPU threads (--threads; controllers built in tests may lack it)."""
        return int(getattr(self.args, "threads", 1))

    # ------------------------------------------------------------ pieces

    def _voice(self, rate: float = 165, language: Any = None):  # type: ignore[no-untyped-def]
        from ..voice import NullSpeaker, Pyttsx3Speaker, VoiceWorker

        voice = language.voice if language is not None else None
        speaker = NullSpeaker() if self.args.mute else Pyttsx3Speaker(rate=int(rate), voice=voice)
        return VoiceWorker(speaker)

    def _source(self, say: Words | None = None):  # type: ignore[no-untyped-def]
        """The frames of this game and a note on them, said in ``say``'s language."""
        say = say or words(self.language)
        from ..synth.demo import DEMO_VIDEO
        from ..vision.sources import SourceError, VideoFileSource, open_camera

        a = self.args
        if a.video:
            return VideoFileSource(a.video), None
        if self.demo:  # decided before the game began: the demo is a game of its own
            return VideoFileSource(DEMO_VIDEO), say(DEMO_NOTE)
        try:
            return open_camera(a.camera), None
        except SourceError as e:  # a real game is never fed the demo clip in the camera's place
            return None, say(NO_CAMERA_GAME, error=e)

    def load_detector(self) -> None:
        """Load and warm the reader. Through ultralytics this runs before kivy is
        imported (torch's first inference loads native libraries that segfault once
        kivy's SDL/GL libraries are loaded); the runtime reader (no torch) loads on a
        thread once the window shows."""
        from .memory import give_back

        try:
            self._load_detector()
        finally:
            self.reader_ready = True
            self.marks["reader_ready"] = time.time()
            give_back()  # loading leaves freed buffers behind

    def start_background_load(self) -> None:
        """Load the reader off the UI thread; sessions waiting for it get it when ready."""
        import threading

        from kivy.clock import Clock

        def work() -> None:
            self.load_detector()
            Clock.schedule_once(lambda _dt: self._attach_waiting(), 0)

        self._loader = threading.Thread(target=work, name="taki-reader-load", daemon=True)
        self._loader.start()

    def when_reader_ready(self, then: Any) -> None:
        """Run ``then()`` on the UI thread once the reader has loaded (at once if it has)."""
        from kivy.clock import Clock

        def check(_dt: float) -> bool:
            if self.reader_ready:
                then()
                return False
            return True

        if check(0):
            Clock.schedule_interval(check, 0.1)

    def _attach_waiting(self) -> None:
        waiting, self._waiting = self._waiting, []
        for session in waiting:
            if session is self.session and session.vision is None:
                session.status = ""
                session.vision = self._vision(session)

    def _load_detector(self) -> None:
        import numpy as np

        from ..vision.detector import ModelError
        from ..vision.runtime import table_reader as load_reader  # no torch for exported models

        if getattr(self.args, "no_camera", False):  # refereed by hand: no model is loaded at all
            self.detector, self.detector_error = None, HAND_ONLY
            return
        if self.args.model == "truth":  # a synthesised video's ground truth stands in for the model
            from ..training.track_eval import OracleDetector

            if not self.args.video:
                raise SystemExit("--model truth needs --video of a synthesised clip (with its .json)")
            self.detector, self.detector_error = OracleDetector.from_json(Path(self.args.video)), None
            return
        from ..vision.deck import DeckError

        self.deck_problem = None
        deck = getattr(self.args, "deck", None) or self._remembered_deck()
        self.deck_in_use = deck
        if deck:
            try:
                self.detector = load_reader(self.args.model, self.args.classifier, deck=deck,
                                            threads=self.threads)
            except (DeckError, ModelError) as e:  # the default reader referees; the warning lasts
                self.deck_problem = str(e)
                print(self.deck_warning)
                deck = self.deck_in_use = None
        try:
            if not deck:
                self.detector = load_reader(self.args.model, self.args.classifier, threads=self.threads)
            self.detector.detect(np.zeros((320, 320, 3), np.uint8))
            classifier = getattr(self.detector, "classifier", None)
            if classifier is not None:  # an empty frame has no card to classify: warm it too
                classifier.classify([np.zeros((96, 96, 3), np.uint8)])
            self.detector_error = None
        except ModelError as e:
            self.detector, self.detector_error = None, str(e)
        except Exception as e:  # a model that loads but fails its first reading (a damaged file)
            self.detector, self.detector_error = None, f"the card reader failed its first reading " \
                f"({type(e).__name__}: {e}); reinstall the models or pick another with --model"

    def _vision(self, session):  # type: ignore[no-untyped-def]
        from ..referee.session import VisionWorker

        if getattr(self, "journal_error", None):
            session.warning = self.journal_error
        say = words(session.language)
        if self.deck_problem:
            not_used = say(DECK_NOT_USED, error=self.deck_problem)
            session.warning = "; ".join(w for w in (session.warning, not_used) if w)
        from ..rules import legal_faces
        from ..vision.tracker import LeadingCardTracker

        if not self.reader_ready:
            session.status = say(LOADING)
            self._waiting.append(session)
            return None
        detector = self.detector
        if detector is None:
            session.status = say(HAND_ONLY) if self.detector_error == HAND_ONLY else \
                say(NO_READING, error=self.detector_error)
            return None
        source, note = self._source(say)
        if source is None:
            session.status = note
            return None
        from ..vision.detector import RoiDetector

        tracker = LeadingCardTracker(prior=lambda: legal_faces(session.referee.state))
        if note:
            session.status = note
        if self.args.model != "truth":
            detector = RoiDetector(detector, tracker)
        return VisionWorker(source, detector, tracker, realtime=True).start()

    def _journal(self):  # type: ignore[no-untyped-def]
        from ..store import Journal

        path = self.args.journal
        if self.demo and not self.args.journal_given:
            path = str(Path(tempfile.mkdtemp(prefix="taki-demo-")) / "demo.db")
        return Journal(path)

    # ------------------------------------------------------------ app hooks

    def on_start(self, app: Any) -> None:
        from ..referee import Referee
        from ..vision.seats import SeatMap
        from ..referee.session import TableSession
        from ..store import JournalError

        a = self.args
        self.marks["window"] = time.time()
        if self.language.value != "en":
            app.set_language(self.language)
        if self.load_in_background:
            self.start_background_load()
        from kivy.clock import Clock

        from .memory import give_back

        Clock.schedule_interval(lambda _dt: give_back(), 15.0)
        if a.video is None and a.camera is None and not getattr(a, "no_camera", False):
            self.demo = a.demo or not _camera_present()
        try:
            self.journal = self._journal()
        except JournalError as e:  # refused, left untouched; the game runs without a journal
            self.journal_error = f"{e} (this game is not being saved)"
            print(self.journal_error)
            self.journal = None
            app.root.get_screen("setup").ids.message.text = self.journal_error
        if self.demo:
            from ..synth.demo import load_script

            script = load_script()
            ref = Referee.start(script.names, script.first, script.rules, journal=self.journal)
            self.voice = self._voice(language=self.language)
            s = TableSession(ref, self.voice, teaching=a.teaching, language=self.language,
                             seat_map=self.seat_map(len(script.names)))
            s.taps = list(script.taps)
            s.vision = self._vision(s)
            self.session = s
            app.use_session(s)
        elif a.players:
            from ..rules import RuleSet

            names = [n.strip() for n in a.players.split(",") if n.strip()]
            self.start_game(app, names, 0, RuleSet(tournament=a.tournament), a.teaching, 165, self.language)
        elif self.journal is not None and not a.new_game:
            try:
                ref = Referee.resume(self.journal)
            except JournalError as e:  # damaged pages: said, file left alone, a new game unsaved
                why = str(e)
                self.journal_error = f"{why[:1].upper()}{why[1:]}; the unfinished game cannot be resumed " \
                                     "(this game is not being saved)"
                print(self.journal_error)
                self.journal.close()
                self.journal, ref = None, None
                app.root.get_screen("setup").ids.message.text = self.journal_error
            if ref is not None:
                self.voice = self._voice(language=self.language)
                placed = self.journal.seats(ref.game_id) if ref.game_id is not None else None
                s = TableSession(ref, self.voice, teaching=a.teaching, language=self.language,
                                 seat_map=SeatMap(placed) if placed and len(placed) == ref.state.n_players
                                 else self.seat_map(ref.state.n_players))
                s.status = words(self.language)(RESUMED, game=ref.game_id)
                s.vision = self._vision(s)
                self.session = s
                app.use_session(s)
        if getattr(a, "board", None) and self.journal is not None:
            self.board_problem = self.join_board(a.board, a.event_key or "", str(a.table))
            if self.board_problem:  # said on the console and kept on the table screen
                print(f"event board not joined: {self.board_problem}")
        if getattr(a, "enrol", False):
            self.when_reader_ready(app.open_enrolment)
        if getattr(a, "ui_script", None):
            self._run_script(app, a.ui_script)
        if a.exit_after:
            from kivy.clock import Clock

            Clock.schedule_once(lambda _dt: self._finish(app), a.exit_after)

    @staticmethod
    def _run_script(app: Any, path: str) -> None:
        """Presses buttons on the table screen at set times, as a person would (tests)."""
        import json

        from kivy.clock import Clock

        table = app.root.get_screen("table")
        for t, action, *args in json.loads(Path(path).read_text()):
            Clock.schedule_once(lambda _dt, action=action, args=args: table.scripted(action, *args), float(t))

    def join_board(self, url: str, key: str, table: str) -> str | None:
        """Push this kiosk's journal to an event board (the journal is the outbox:
        refereeing never waits on it). Returns what is wrong with the entries, or None."""
        import socket

        if not url.startswith(("http://", "https://")):
            return words(self.language)(BOARD_URL)
        if not table.strip().isdigit() or not 1 <= int(table) <= 999:
            return words(self.language)(TABLE_NO)
        if self.journal is None:
            return words(self.language)(NOT_SAVED)
        from ..board.outbox import Outbox

        if getattr(self, "outbox", None) is not None:
            self.outbox.stop()
        from ..board.outbox import OutboxError

        n = int(table)
        try:
            self.outbox = Outbox(self.journal.path, url, key, f"{socket.gethostname()}-t{n}", n).start()
        except OutboxError as e:
            return str(e)
        return None

    def start_game(self, app: Any, names: list[str], first: int, rules: Any, teaching: bool, rate: float,
                   language: Any = None) -> None:
        from ..referee import Referee
        from ..referee.session import TableSession

        tid = self.journal.new_tournament("Tournament " + time.strftime("%Y-%m-%d")) \
            if rules.tournament and self.journal is not None else None
        ref = Referee.start(names, first, rules, journal=self.journal, tournament_id=tid, table_no=1 if tid else None)
        from ..voice.language import Language

        language = language or Language.ENGLISH
        self.voice = self._voice(rate, language)
        s = TableSession(ref, self.voice, teaching=teaching, language=language, seat_map=self.seat_map(len(names)))
        s.vision = self._vision(s)
        self.session = s
        app.use_session(s)

    def standings_lines(self, app: Any) -> list[str]:
        """The standings, one line a player, in the kiosk's language (logical order:
        the screen shapes them, a file keeps them as typed)."""
        from . import labels as L

        words = app.loc.words
        if app.session is None or app.session.referee.state is None:
            return [words(L.NO_GAME)]
        return [f"{r.place:2d}. {r.name}  " + (f"{words(L.STAGE, stage=r.stage)}  " if r.stage is not None else "")
                + words.plural(L.HOLDS, r.cards, digits=True) + (f"  {words(L.WINNER)}" if r.winner else "")
                for r in self.standing_rows(app)]

    def standing_rows(self, app: Any) -> list[Any]:
        """The rows the Standings screen shows and Export writes, in one order: the
        tournament's when this game is a tournament's table, else this game's."""
        from ..store.tournament import game_standings, standings

        ref = app.session.referee
        info = self.journal.game(ref.game_id) if self.journal is not None and ref.game_id is not None else None
        if info is not None and info.tournament_id is not None:
            return standings(self.journal, info.tournament_id)
        return game_standings(ref.state, ref.game_id, info.table_no if info else None)

    def standings_text(self, app: Any) -> str:
        return "\n".join(app.loc.text(line) for line in self.standings_lines(app))

    def export_standings(self, app: Any, fmt: str, folder: str | None = None) -> str:
        """The standings as a real CSV or JSON file (a tournament's, or this game's when
        it is not one) in ``folder`` (default ``--export-dir``); its full path."""
        from ..store.tournament import to_csv, to_json

        where = Path(folder or self.args.export_dir).expanduser().resolve()
        out = where / f"standings-game{app.session.referee.game_id or 0}.{fmt}"
        out.parent.mkdir(parents=True, exist_ok=True)
        rows = self.standing_rows(app)
        out.write_text(to_csv(rows) if fmt == "csv" else to_json(rows), encoding="utf-8")
        return str(out)

    # ------------------------------------------------------------ guided enrolment

    def _remembered_deck(self) -> str | None:
        """The deck profile chosen last time on the setup screen, if any."""
        try:
            text = (self.decks_dir() / "in-use.txt").read_text().strip()
        except (OSError, UnicodeDecodeError, TypeError):
            return None
        return text or None

    def decks_dir(self) -> Path:
        """Deck profiles live beside the journal unless --decks says where."""
        if getattr(self.args, "decks", None):
            return Path(self.args.decks)
        journal = getattr(self.args, "journal", None)
        if journal:
            return Path(journal).parent / "decks"
        return Path.home() / ".local" / "share" / "taki-companion" / "decks"

    def start_enrolment(self, app: Any) -> str | None:
        """Open the camera and the card finder for 'Learn a deck'; a reason when it cannot."""
        from ..training.guided import GuidedEnrolment
        from ..vision.cardfinder import CardFinder
        from ..vision.cardmask import shipped_masker
        from ..vision.sources import ImageFolderSource, SourceError, open_camera

        from . import labels as L

        if not self.reader_ready:
            return app.loc(L.STILL_LOADING)
        finder = getattr(self.detector, "detector", self.detector)
        if finder is None:
            return app.loc(L.NO_READER, error=self.detector_error)
        try:
            src = ImageFolderSource(self.args.enrol_from) if getattr(self.args, "enrol_from", None) else \
                open_camera(self.args.camera)
        except SourceError as e:
            return app.loc(L.NO_CAMERA, error=e)
        out = unfinished_deck(self.decks_dir()) or self.decks_dir() / time.strftime("deck-%Y%m%d-%H%M%S")
        speak = self.voice.speak if self.voice is not None else None
        finder_with_mask = CardFinder(finder, masker=shipped_masker())
        guide = GuidedEnrolment(finder_with_mask, out, speak=speak, words=app.loc.words)
        self.enrolment = EnrolWorker(src, guide).start()
        return None

    def deck_names(self) -> list[str]:
        from ..vision.deck import list_profiles

        return [d.path.name for d in list_profiles(self.decks_dir())]

    def current_deck_name(self) -> str | None:
        deck = getattr(self, "deck_in_use", None)
        return Path(deck).name if deck else None

    def choose_deck(self, name: str) -> None:
        """Read with the deck profile chosen on the setup screen (remembered for the
        next start); a profile that fails its check leaves the default reader and a
        lasting warning."""
        from ..vision.classifier import FaceClassifier, classifier_for
        from ..vision.deck import DeckError, load_profile
        from ..vision.detector import ModelError, backend_of
        from ..vision.runtime import RuntimeClassifier, RuntimeFinder, is_runtime_export

        if name == (self.current_deck_name() or "Default deck") or self.detector is None:
            return
        reader = self.detector
        runtime = isinstance(getattr(reader, "detector", None), RuntimeFinder)

        def classifier(path: Path):  # type: ignore[no-untyped-def]
            """The same kind of reader as the finder's: the runtime one never loads torch."""
            if not runtime:
                return FaceClassifier(path)
            if not is_runtime_export(path):
                raise ModelError(f"{path.parent} has no ONNX classifier for the torch-free reader; "
                                 f"learn the deck again (`taki-companion learn-deck`)")
            return RuntimeClassifier(path, threads=self.threads)
        try:
            if name == "Default deck":  # the classifier the app was started with (--classifier)
                path = None
                given = self.args.classifier
                default = classifier_for(reader.detector.path) if given in (None, "auto", "none") else Path(given)
                if default is None:
                    raise ModelError("no shipped face classifier for this reader")
                reader.classifier = classifier(default)
            else:
                path = self.decks_dir() / name
                profile = load_profile(path)
                if profile.prototypes_path is not None:  # read by its own pictures, torch-free
                    from ..vision.runtime import deck_classifier

                    reader.classifier = deck_classifier(path, self.threads)
                else:
                    reader.classifier = classifier(profile.classifier_for(backend_of(reader.detector.path)))
            self.deck_in_use = str(path) if path else None
            self.deck_problem = None
            remember = self.decks_dir() / "in-use.txt"
            remember.parent.mkdir(parents=True, exist_ok=True)
            remember.write_text(str(path or "") + "\n")
        except (DeckError, ModelError, OSError, AttributeError) as e:
            self.deck_problem = str(e)

    def stop_enrolment(self) -> None:
        worker = getattr(self, "enrolment", None)
        if worker is not None:
            worker.stop()
            self.enrolment = None

    def _finish(self, app: Any) -> None:
        from .app import dump_json, save_screenshot

        if self.args.screenshot:
            save_screenshot(self.args.screenshot)
        if self.args.dump:
            dump_json(app, self.args.dump)
        if getattr(self.args, "startup_log", None):
            import json

            rss = 0.0
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
            Path(self.args.startup_log).write_text(json.dumps({
                **self.marks, "rss_mib": rss,
                "torch_loaded": sys.modules.get("torch") is not None,
                "ultralytics_loaded": sys.modules.get("ultralytics") is not None}))
        app.stop()

    def on_stop(self, app: Any) -> None:
        loader = getattr(self, "_loader", None)
        if loader is not None and loader.is_alive():
            # Closed while the reader loads: let it finish, or the interpreter exits under
            # ONNX Runtime's threads and the process aborts instead of closing.
            loader.join(timeout=15)
        self.stop_enrolment()
        if getattr(self, "outbox", None) is not None:
            self.outbox.stop()
        s = self.session
        if s is not None and s.vision is not None:
            s.vision.stop()
        if self.voice is not None:
            self.voice.stop()
        if self.journal is not None:
            self.journal.close()


class EnrolWorker:
    """Feeds camera frames to the guided enrolment on a thread: finding a card
    takes longer than a frame, and the screen must keep drawing."""

    def __init__(self, source: Any, guide: Any) -> None:
        import threading

        self.source, self.guide = source, guide
        self.latest: tuple[Any, Any] = (None, guide.view())  # (frame image, EnrolView)
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="taki-enrol", daemon=True)

    def start(self) -> EnrolWorker:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except Exception as e:  # said on screen, retried; the faces taken so far are kept
                from dataclasses import replace

                from ..training.guided import CAMERA_ERROR

                with self.lock:
                    said = replace(self.guide.view(), message=self.guide.words(CAMERA_ERROR, error=type(e).__name__))
                    self.latest = (self.latest[0], said)
                self._stop.wait(1.0)
                continue
            if frame is None:
                self._stop.wait(0.05)
                continue
            with self.lock:
                view = self.guide.feed(frame.image)
                self.latest = (frame.image, view)

    def tap(self, what: str) -> None:
        with self.lock:
            view = self.guide.skip() if what == "skip" else self.guide.redo()
            self.latest = (self.latest[0], view)

    def view(self) -> tuple[Any, Any]:
        with self.lock:
            image, view = self.latest
            current = self.guide.view()
        # learning, learnt or failed: said even when no frame came since (the camera's
        # last view would hold the prompt from before "Learn the deck" was pressed)
        if current.learning or current.profile is not None or current.error:
            view = current
        return image, view

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.source.close()


def unfinished_deck(decks: Path) -> Path | None:
    """The newest deck folder whose learning never finished (faces taken, no deck.json):
    'Learn a deck' goes on with it rather than stranding the faces already taken."""
    if not decks.is_dir():
        return None
    started = [p for p in decks.iterdir() if p.is_dir() and not (p / "deck.json").exists()
               and any((p / "shots").glob("*.json"))]
    return max(started, key=lambda p: p.stat().st_mtime, default=None)


def needs_torch(args: argparse.Namespace, remembered_deck: str | None) -> bool:
    """Whether the reader asked for runs through ultralytics (torch): a .pt or OpenVINO
    model or classifier, or a deck profile that has no ONNX classifier."""
    if getattr(args, "no_camera", False) or args.model == "truth":
        return False
    from ..vision.deck import CLASSIFIERS
    from ..vision.runtime import runtime_reads

    deck = getattr(args, "deck", None) or remembered_deck
    return not runtime_reads(args.model, args.classifier, Path(deck) / CLASSIFIERS["onnx"] if deck else None)


def _camera_present() -> bool:
    return any(Path("/dev").glob("video*"))


def _check_source(args: argparse.Namespace) -> str | None:
    """A video or camera asked for by name that cannot be opened is said at once:
    the demo is never played into a real game in its place."""
    from ..vision.sources import SourceError, VideoFileSource, open_camera

    try:
        if args.video:
            VideoFileSource(args.video).close()
        elif args.camera is not None:
            open_camera(args.camera).close()
    except SourceError as e:
        tail = " (the demo is a separate game: start it with --demo)" if args.camera is not None else ""
        return f"{e}{tail}"
    except Exception as e:  # a driver that fails in its own way
        return f"camera {args.camera} could not be opened ({type(e).__name__}: {e})"
    return None


def run(args: argparse.Namespace, default_journal: str) -> int:
    args.journal_given = args.journal is not None
    args.journal = args.journal or default_journal
    problem = _check_source(args)
    if problem:
        print(f"taki-companion: {problem}", file=sys.stderr)
        return 2
    from .memory import limit_arenas

    limit_arenas()
    controller = Controller(args)
    if needs_torch(args, controller._remembered_deck()):
        controller.load_detector()  # before kivy: torch's native libraries clash with it otherwise
    else:
        controller.load_in_background = True  # no torch: the window shows first, then the reader loads
    _kivy_env(args)
    from .app import TakiApp

    TakiApp(controller).run()
    return 0
