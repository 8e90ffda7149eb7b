"""The kiosk app: Setup, Table and Standings screens over a TableSession.

Kivy rules kept: layout in one kv file per screen; OpenGL only on the main
thread (the camera worker hands frames over, the clock uploads them); state is
read from the session on each tick.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.graphics import Color as GColor, Ellipse, Line, Rectangle, Triangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.metrics import sp
from kivy.properties import ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.checkbox import CheckBox
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from ..referee import Question
from ..referee.session import TableSession
from ..voice.language import Language
from ..voice.wording import whole_sentence
from . import labels as L
from .fit import FitButton, FitLabel, overflows  # importing fit registers its Fit* widgets for the kv files
from .localise import Localiser, left_to_right
from ..rules import RuleSet
from ..rules.cards import Card, Color
from ..rules.options import OPTION_RULES
from ..rules.state import Pending

HERE = Path(__file__).resolve().parent
RGBA = {Color.RED: (0.92, 0.2, 0.2, 1), Color.YELLOW: (1, 0.82, 0.05, 1),
        Color.GREEN: (0.2, 0.72, 0.25, 1), Color.BLUE: (0.15, 0.42, 0.95, 1), None: (0.5, 0.5, 0.5, 1)}
OPTION_LABELS = {
    "first_lead_number": "First leading card must be a number",
    "may_draw_when_able": "May draw even when able to play",
    "reshuffle_discard": "Reshuffle the pile when the deck runs out",
    "no_finish_on_plus": "Nobody finishes on a Plus",
    "direction_2p_stops": "Two players: Change Direction acts as Stop",
    "taki_on_top_open": "A TAKI on top is always open",
    "open_run_no_effect": "Open run: the top card has no effect",
    "king_extra_optional": "King: the extra card is optional",
    "plus3_window": "+3: a window to break it",
    "breaker_on_breaker": "A Breaker can be broken",
    "colourless_keeps_colour": "Colourless cards keep the colour",
}


def _colorfmt(img: np.ndarray) -> str:
    return "bgra" if img.shape[2] == 4 else "bgr"


def _blit(tex: Texture, img: np.ndarray) -> None:
    """Copy a BGR(A) image into ``tex`` (flipped: Kivy's origin is bottom-left)."""
    tex.blit_buffer(np.ascontiguousarray(img[::-1]).tobytes(), colorfmt=tex.colorfmt, bufferfmt="ubyte")


def to_texture(img: np.ndarray) -> Texture:
    """A BGR(A) numpy image as a new Kivy texture."""
    tex = Texture.create(size=(img.shape[1], img.shape[0]), colorfmt=_colorfmt(img))
    _blit(tex, img)
    return tex


def show_frame(widget: Any, img: np.ndarray) -> None:
    """Put a camera frame on ``widget`` (an Image), into the texture it already has when
    the size fits. Why: a new texture ten times a second left the software GL's freed
    buffers to the allocator, and the kiosk's memory crept up by about 0.4 MiB a second."""
    tex = widget.texture
    if tex is None or tuple(tex.size) != (img.shape[1], img.shape[0]) or tex.colorfmt != _colorfmt(img):
        widget.texture = to_texture(img)
        return
    _blit(tex, img)
    widget.canvas.ask_update()


class ColorSwatch(Widget):
    rgba = ListProperty([0.5, 0.5, 0.5, 1])

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, rgba=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        with self.canvas:
            GColor(*self.rgba)
            d = min(self.width, self.height) * 0.9
            Ellipse(pos=(self.center_x - d / 2, self.center_y - d / 2), size=(d, d))


class SeatRing(Widget):
    """The seats round the table, whose turn it is, and an arrow for the direction."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.labels: list[Label] = []
        self.info: tuple[Any, ...] | None = None
        #: placing the seats: the angles tapped so far, and what to call with each tap
        self.placing: list[float] | None = None
        self.on_place: Any = None
        self.bind(pos=self._draw, size=self._draw)

    def show(self, names: tuple[str, ...], to_move: int, direction: int, counts: tuple[int, ...],
             stages: tuple[int, ...] | None, angles: tuple[float, ...] | None = None) -> None:
        """``angles``: where the players sit as the camera sees the table (degrees from
        the pile, image coordinates), drawn where they are; else evenly round the ring."""
        info = (names, to_move, direction, counts, stages, angles)
        if info != self.info:
            self.info = info
            self._draw()

    def on_touch_down(self, touch: Any) -> bool:
        if self.placing is not None and self.collide_point(*touch.pos):
            dx, dy = touch.x - self.center_x, touch.y - self.center_y
            self.tap_angle(math.degrees(math.atan2(-dy, dx)) % 360)  # screen y points up, the image's down
            return True
        return bool(super().on_touch_down(touch))

    def tap_angle(self, angle: float) -> None:
        """A seat placed at ``angle`` (a finger on the ring, or a --ui-script step)."""
        if self.placing is None:
            return
        self.placing.append(angle)
        if self.on_place is not None:
            self.on_place(list(self.placing))

    def _draw(self, *_: Any) -> None:
        if self.info is None:
            return
        names, to_move, direction, counts, stages, angles = self.info
        for lab in self.labels:
            self.remove_widget(lab)
        self.labels = []
        self.canvas.before.clear()
        n = len(names)
        cx, cy = self.center
        r = min(self.width, self.height) * 0.36
        with self.canvas.before:
            GColor(0.2, 0.45, 0.3, 1)
            Ellipse(pos=(cx - r * 0.62, cy - r * 0.62), size=(r * 1.24, r * 1.24))
            GColor(1, 1, 1, 0.9)
            # The arrow: an arc round the centre, its head pointing the way play goes.
            Line(circle=(cx, cy, r * 0.42, 40, 320), width=3)
            a = math.radians(90 - (320 if direction == 1 else 40))
            hx, hy = cx + r * 0.42 * math.cos(a), cy + r * 0.42 * math.sin(a)
            tx, ty = (math.sin(a), -math.cos(a)) if direction == 1 else (-math.sin(a), math.cos(a))
            s = r * 0.13
            Triangle(points=[hx + tx * s, hy + ty * s, hx - ty * s * 0.7, hy + tx * s * 0.7,
                             hx + ty * s * 0.7, hy - tx * s * 0.7])
        for i, name in enumerate(names):
            if angles and len(angles) == n:  # where they sit, seen from the camera (its y points down)
                ang = math.radians(-angles[i])
            else:
                ang = math.radians(90 - 360 * i / n)  # seat 1 at the top, then to the left (clockwise)
            x, y = cx + r * math.cos(ang), cy + r * math.sin(ang)
            stage = f" s{stages[i]}" if stages else ""
            loc = _loc()
            lab = FitLabel(text=f"{loc.text(name)}\n{loc.plural(L.HOLDS, counts[i])}{stage}", halign="center",
                           max_font_size=sp(17), font_name=loc.font or "Roboto", fit_padding=0,
                           bold=i == to_move, color=(1, 0.9, 0.2, 1) if i == to_move else (1, 1, 1, 1),
                           size=(r * 1.1, r * 0.6), center=(x, y))
            lab.fit()  # now, not next frame: the ring is drawn anew on every change
            if i == to_move:
                with self.canvas.before:
                    GColor(1, 0.85, 0.1, 0.35)
                    Rectangle(pos=(x - r * 0.5, y - r * 0.27), size=(r, r * 0.54))
            self.add_widget(lab)
            self.labels.append(lab)


class TableScreen(Screen):
    def tap(self, action: str, *args: Any) -> None:
        app = App.get_running_app()
        if app.session is None:
            return
        app.session.tap(action, *args)
        app.refresh()

    def toggle_mute(self) -> None:
        app = App.get_running_app()
        voice = app.session.voice if app.session else None
        if voice is not None:
            voice.muted = not voice.muted
            self.ids.mute.text = _loc()(L.UNMUTE if voice.muted else L.MUTE)

    def place_seats(self) -> None:
        """Tap the ring where each player sits, in seat order: from then on the camera's
        arm direction says who played a card (and the seats are kept with the game)."""
        app = App.get_running_app()
        if app.session is None:
            return
        names = app.session.referee.state.names
        ring = self.ids.ring
        loc = _loc()

        def placed(angles: list[float]) -> None:
            if len(angles) < len(names):
                app.session.status = loc.words(L.SEAT_PROMPT, name=names[len(angles)])
            else:
                ring.placing = ring.on_place = None
                app.session.place_seats(angles)
            app.refresh()

        ring.placing, ring.on_place = [], placed
        app.session.status = loc.words(L.SEAT_PROMPT, name=names[0])
        app.refresh()

    def ask_who(self, question: Question | None = None) -> None:
        app = App.get_running_app()
        s = app.session.referee.state
        q = question or app.session.referee.question
        box = BoxLayout(orientation="vertical", spacing=8, padding=8)
        loc = _loc()
        if q is None:
            box.add_widget(FitLabel(text=loc(L.NO_OWNER), max_font_size=sp(22)))
        else:  # the card in question, shown and named (the title already asks who)
            from kivy.uix.image import Image

            named = loc.words.card(q.card)
            said = loc(q.text) if q.text != L.WHO_TITLE else loc.text(named[:1].upper() + named[1:])
            shown = BoxLayout(spacing=8)
            shown.add_widget(Image(texture=app.face_texture(q.card), fit_mode="contain", size_hint_x=0.3))
            shown.add_widget(FitLabel(text=said, max_font_size=sp(22), halign="center"))
            box.add_widget(shown)
        popup = Popup(title=loc(L.WHO_TITLE), content=box, size_hint=(0.7, 0.6))
        if q:
            row = BoxLayout(spacing=6)
            for seat in q.seats:
                b = FitButton(text=loc.text(s.names[seat]), max_font_size=sp(24))
                b.bind(on_release=lambda _b, seat=seat: (self.tap("answer", seat), popup.dismiss()))
                row.add_widget(b)
            box.add_widget(row)
        close = Button(text=loc(L.CLOSE), size_hint_y=0.3)
        close.bind(on_release=popup.dismiss)
        box.add_widget(close)
        popup.open()

    def fix_count(self) -> None:
        app = App.get_running_app()
        s = app.session.referee.state
        box = BoxLayout(orientation="vertical", spacing=6, padding=8)
        loc = _loc()
        popup = Popup(title=loc(L.COUNT_TITLE), content=box, size_hint=(0.8, 0.8))
        self._count_fields: dict[int, tuple[TextInput, Button]] = {}
        note = FitLabel(text=loc(L.COUNT_NOTE), max_font_size=sp(18), halign="center",
                        color=(1, 0.85, 0.4, 1), size_hint_y=0.4)
        box.add_widget(note)
        self._count_steps: dict[tuple[int, int], Button] = {}
        for seat, name in enumerate(s.names):
            row = BoxLayout(spacing=6)
            row.add_widget(Label(text=loc.text(name), font_size="22sp"))
            field = TextInput(text=str(s.counts[seat]), input_filter="int", multiline=False, font_size="22sp")
            # a tap on - or + sets the count at once (no typing on a touchscreen); Set takes a typed one
            minus, plus = (self._count_button(seat, field, d, note) for d in (-1, +1))
            for widget in (minus, field, plus):
                row.add_widget(widget)
            ok = Button(text=loc(L.SET), font_size="22sp")
            # The text goes as typed: the session refuses "-" or "" with a message.
            ok.bind(on_release=lambda _b, seat=seat, field=field: self._set_count(seat, field.text, note))
            row.add_widget(ok)
            self._count_fields[seat] = (field, ok)
            box.add_widget(row)
        close = Button(text=loc(L.DONE), font_size="22sp")
        close.bind(on_release=popup.dismiss)
        box.add_widget(close)
        popup.open()


    def _count_button(self, seat: int, field: TextInput, delta: int, note: Label) -> Button:
        """The - (delta -1) or + (delta +1) beside a player's count."""
        b = Button(text="−" if delta < 0 else "+", font_size="28sp", size_hint_x=0.45)
        b.bind(on_release=lambda _b: self._step_count(seat, field, delta, note))
        self._count_steps[(seat, delta)] = b
        return b

    def _step_count(self, seat: int, field: TextInput, delta: int, note: Label) -> None:
        """- or +: one card fewer or more in that hand, set at once (never below none)."""
        app = App.get_running_app()
        if app.session is None:
            return
        n = max(0, app.session.referee.state.counts[seat] + delta)
        field.text = str(n)
        self._set_count(seat, str(n), note)

    def _set_count(self, seat: int, text: str, note: Label) -> None:
        """Set one count; a refusal is shown in the popup itself, where the eyes are."""
        app = App.get_running_app()
        if app.session is None:
            return
        step = app.session.tap("correct", seat, text)
        st = app.session.referee.state
        note.text = app.session.status if step is None else \
            _loc().plural(L.NOW_HOLDS, st.counts[seat], name=st.names[seat])
        app.refresh()

    def offer_save(self) -> None:
        """The journal stopped taking writes: offer to save the game elsewhere (once)."""
        app = App.get_running_app()
        problem = app.session.referee.journal_error if app.session else None
        if not problem or getattr(self, "_save_offered", None) == problem:
            return
        self._save_offered = problem
        default = str(Path(app.controller.args.export_dir).expanduser().resolve()
                      / time.strftime("taki-game-%Y%m%d-%H%M%S.db"))
        box = BoxLayout(orientation="vertical", spacing=8, padding=8)
        loc = _loc()
        note = FitLabel(text=loc(L.UNSAVED_NOTE, problem=problem), max_font_size=sp(20), halign="center")
        box.add_widget(note)
        path = TextInput(text=default, multiline=False, font_size="20sp", size_hint_y=None, height=48)
        box.add_widget(path)
        row = BoxLayout(spacing=8, size_hint_y=0.5)
        save = FitButton(text=loc(L.SAVE_THERE), max_font_size=sp(22))
        later = FitButton(text=loc(L.KEEP_UNSAVED), max_font_size=sp(22))
        popup = Popup(title=loc(L.UNSAVED_TITLE), content=box, size_hint=(0.8, 0.7))

        def do_save(_b: Any) -> None:
            said = app.session.save_elsewhere(path.text.strip())
            note.text = said
            if said.startswith("Saved"):
                popup.dismiss()
                app.session.status = said
                app.refresh()

        save.bind(on_release=do_save)
        later.bind(on_release=popup.dismiss)
        row.add_widget(save)
        row.add_widget(later)
        box.add_widget(row)
        self.save_popup, self._save_path, self._save_button = popup, path, save
        popup.open()

    def ask_missed(self) -> None:
        """After a camera outage the pile shows a new card: ask what was played meanwhile."""
        app = App.get_running_app()
        card = app.session.missed if app.session else None
        if card is None or getattr(self, "_missed_popup", None) is not None:
            return
        box = BoxLayout(orientation="vertical", spacing=8, padding=8)
        loc = _loc()
        named = loc.words.card(card)
        box.add_widget(FitLabel(text=loc(L.MISSED_NOTE, card=named), max_font_size=sp(22), halign="center"))
        popup = Popup(title=loc(L.MISSED_TITLE), content=box, size_hint=(0.75, 0.6),
                      auto_dismiss=False)
        row = BoxLayout(spacing=8)
        only = FitButton(text=loc(L.ONLY_THE, card=named), max_font_size=sp(22))
        enter = FitButton(text=loc(L.ONE_BY_ONE), max_font_size=sp(22))
        only.bind(on_release=lambda _b: (popup.dismiss(), self.tap("only_that")))
        enter.bind(on_release=lambda _b: (popup.dismiss(), self.enter_card()))
        row.add_widget(only)
        row.add_widget(enter)
        box.add_widget(row)
        popup.bind(on_dismiss=lambda *_: setattr(self, "_missed_popup", None))
        self._missed_popup = popup
        popup.open()

    def enter_card(self) -> None:
        """Put a card into the game by hand: the camera missed it, or there is none."""
        app = App.get_running_app()
        if app.session is None:
            return
        st = app.session.referee.state
        loc = _loc()
        title = loc(L.PICK_FIRST) if st.phase.value == "setup" else loc(L.PICK_PUT)
        self._open_picker(title, loc(L.PICK_NOTE), st, lambda card: self.tap("card", card))

    def fix_card(self) -> None:
        """The camera misread the last card: pick the card it really was."""
        app = App.get_running_app()
        if app.session is None:
            return
        r = app.session.referee
        last = r.last_card_event()
        if last is None:
            app.session.status = _loc().words(L.NO_FIX)
            app.refresh()
            return
        loc = _loc()
        self._open_picker(loc(L.FIX_TITLE, card=loc.words.card(last.card)), loc(L.FIX_NOTE),
                          r.history[-1], lambda card: self.tap("fix", card))

    def _open_picker(self, title: str, note: str, state: Any, on_pick: Any) -> None:
        from .picker import CardPicker

        app = App.get_running_app()
        loc = _loc()
        self.picker = CardPicker(title, note, state, app.face_texture, on_pick, cancel_text=loc(L.CANCEL),
                                 font_name=loc.font or "Roboto")
        self.picker.open()

    def scripted(self, action: str, *args: Any) -> None:
        """One step of a --ui-script: the same widgets a finger would press."""
        if action == "pick":
            self.picker.press(str(args[0]))
        elif action == "type_count":
            field, ok = self._count_fields[int(args[0])]
            field.text = ""
            field.insert_text(str(args[1]))  # through the field's input filter, as typing is
            ok.dispatch("on_release")
        elif action == "count_step":  # the - or + beside a player's count (seat, -1 or +1)
            self._count_steps[(int(args[0]), int(args[1]))].dispatch("on_release")
        elif action == "jam_journal":  # the journal file turns read-only under the game
            App.get_running_app().session.referee.journal.db.execute("PRAGMA query_only=ON")
        elif action == "save_as":
            self._save_path.text = str(args[0])
            self._save_button.dispatch("on_release")
        elif action == "setup":  # type into a setup screen field (id, text)
            App.get_running_app().root.get_screen("setup").ids[str(args[0])].text = str(args[1])
        elif action == "start_setup":  # press "Start the game"
            App.get_running_app().start_from_setup()
        elif action == "tap_ring":  # a finger on the seat ring at this angle (degrees, as the camera sees)
            self.ids.ring.tap_angle(float(args[0]))
        elif action == "seen_from_next":  # the camera reads this card laid from the next player's seat
            app = App.get_running_app()
            st = app.session.referee.state
            app.session.card_seen(Card.from_code(str(args[0])), seat=(st.to_move + 1) % st.n_players)
            app.refresh()
        elif action == "standings":  # the Standings button, then Export CSV/JSON when a format is given
            app = App.get_running_app()
            app.show_standings()
            if args:
                app.export_standings(str(args[0]))
        elif action == "learn_deck":  # "Learn the deck" on the Learn a deck screen
            App.get_running_app().enrol_learn()
        elif action == "close":  # the open popups, as their Close/Done buttons do
            from kivy.uix.modalview import ModalView

            for w in list(Window.children):
                if isinstance(w, ModalView):
                    w.dismiss()
        else:
            getattr(self, action)(*args)


class SetupScreen(Screen):
    def on_kv_post(self, base_widget: Any) -> None:
        self.name_inputs = [TextInput(text=n, multiline=False, font_size="20sp") for n in
                            ("Dana", "Omer", "Noa", "Eli", "Maya", "Yoni", "Tal", "Gil", "Roni", "Adi")]
        self.rule_boxes: dict[str, CheckBox] = {}
        default = RuleSet()
        for name in RuleSet.option_names():
            if name == "tournament":
                continue
            row = BoxLayout(spacing=4)
            cb = CheckBox(active=getattr(default, name), size_hint_x=0.12)
            self.rule_boxes[name] = cb
            row.add_widget(cb)
            row.add_widget(FitLabel(text=f"{OPTION_LABELS[name]} ({OPTION_RULES[name]})", max_font_size=sp(15),
                                    halign="left"))
            self.ids.rules.add_widget(row)
        self.ids.board_url.hint_text = "http://laptop:8080"  # an address, the same in every language
        self.show_names()

    def show_names(self) -> None:
        grid = self.ids.names
        grid.clear_widgets()
        for field in self.name_inputs[: int(self.ids.n_players.text)]:
            grid.add_widget(field)

    def choices(self) -> tuple[list[str], int, RuleSet, bool, float]:
        n = int(self.ids.n_players.text)
        names = [f.text.strip() or f"Player {i + 1}" for i, f in enumerate(self.name_inputs[:n])]
        first = min(n, int(self.ids.first.text)) - 1
        rules = RuleSet().with_changes(**{k: cb.active for k, cb in self.rule_boxes.items()},
                                       tournament=self.ids.tournament.state == "down")
        return names, first, rules, self.ids.teaching.state == "down", float(self.ids.rate.value)


class StandingsScreen(Screen):
    pass


class EnrolScreen(Screen):
    """Learn a deck: the live camera, the face wanted (in words and as a picture),
    a green outline on a steady card, automatic capture, skip, redo, progress."""


class TakiApp(App):
    title = "TAKI Table Companion"

    def __init__(self, controller: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.controller = controller  # companion.ui.main.Controller: builds sessions, owns IO
        self.session: TableSession | None = None
        self._faces: dict[Card, Texture] = {}
        self._shown_log = -1
        self.loc = Localiser()

    def build(self) -> ScreenManager:
        for kv in ("setup.kv", "table.kv", "standings.kv", "enrol.kv"):
            Builder.load_file(str(HERE / kv))
        sm = ScreenManager(transition=NoTransition())
        sm.add_widget(SetupScreen(name="setup"))
        sm.add_widget(TableScreen(name="table"))
        sm.add_widget(StandingsScreen(name="standings"))
        sm.add_widget(EnrolScreen(name="enrol"))
        return sm

    def on_start(self) -> None:
        self.show_decks()
        self.controller.on_start(self)
        Clock.schedule_interval(self._tick, 1 / 15)

    def on_stop(self) -> None:
        self.controller.on_stop(self)

    # ------------------------------------------------------------ actions

    def start_from_setup(self) -> None:
        scr = self.root.get_screen("setup")
        names, first, rules, teaching, rate = scr.choices()
        url = scr.ids.board_url.text.strip()
        if url:  # event mode from the setup screen, as --board URL --event-key KEY --table N
            problem = self.controller.join_board(url, scr.ids.event_key.text, scr.ids.table_no.text)
            if problem:
                scr.ids.message.text = problem
                return
        self.controller.choose_deck(scr.ids.deck.text)
        self.controller.start_game(self, names, first, rules, teaching, rate, self.loc.language)

    def set_language(self, lang: Language | str) -> None:
        """Speak and show in ``lang`` (an enum, or a name from the setup screen's list)."""
        if isinstance(lang, str):
            lang = Language.parse(lang)
        self.loc = Localiser(lang)
        self.loc.make_default()
        self.loc.dress(self.root)
        self.root.get_screen("setup").ids.language.text = lang.name.title()
        if self.session is not None:
            self.session.language = lang
            self._shown_log = -1
            self.refresh()

    def show_decks(self) -> None:
        """The deck profiles the app knows (the one in use first), on the setup screen."""
        names = self.controller.deck_names()
        spinner = self.root.get_screen("setup").ids.deck
        spinner.values = ["Default deck", *names]
        spinner.text = self.controller.current_deck_name() or "Default deck"

    def use_session(self, session: TableSession) -> None:
        self.session = session
        session.on_change = lambda: None  # the clock refreshes; nothing to do from other callers
        self._shown_log = -1
        self.root.current = "table"
        self.refresh()

    def show_standings(self) -> None:
        scr = self.root.get_screen("standings")
        scr.ids.table.text = self.controller.standings_text(self)
        scr.ids.title.text = self.loc("Standings")  # not the last export's "Saved: ..."
        if not scr.ids.export_dir.text:
            scr.ids.export_dir.text = str(Path(self.controller.args.export_dir).expanduser().resolve())
        self.root.current = "standings"

    def export_standings(self, fmt: str) -> None:
        ids = self.root.get_screen("standings").ids
        title = ids.title
        try:
            path = self.controller.export_standings(self, fmt, ids.export_dir.text)
        except OSError as e:  # --export-dir a file, a full or read-only disk: said, the kiosk stays up
            title.text = self.loc(L.NOT_SAVED_STANDINGS, error=left_to_right(f"{e.strerror or e}: {e.filename or ''}"))
            return
        title.text = self.loc(L.SAVED, path=left_to_right(path))

    # ------------------------------------------------------------ guided enrolment

    def open_enrolment(self) -> None:
        self._enrol_back = self.root.current if self.root.current != "enrol" else "setup"
        scr = self.root.get_screen("enrol")
        problem = self.controller.start_enrolment(self)
        scr.ids.message.text = problem or ""
        self.root.current = "enrol"

    def close_enrolment(self) -> None:
        self.controller.stop_enrolment()
        self.show_decks()
        self.root.current = getattr(self, "_enrol_back", "setup")

    def enrol_tap(self, what: str) -> None:
        worker = getattr(self.controller, "enrolment", None)
        if worker is not None:
            worker.tap(what)

    def enrol_learn(self) -> None:
        worker = getattr(self.controller, "enrolment", None)
        if worker is None:
            return
        try:
            worker.guide.learn()  # a worker thread: the screen keeps drawing its progress
        except ValueError as e:
            self.root.get_screen("enrol").ids.message.text = self.loc.text(str(e))

    def _enrol_tick(self) -> None:
        worker = getattr(self.controller, "enrolment", None)
        if worker is None:
            return
        ids = self.root.get_screen("enrol").ids
        image, view = worker.view()
        if image is not None:
            img = image.copy()
            if view.corners is not None:
                colour = (60, 220, 60) if view.steady else (0, 200, 255)
                cv2.polylines(img, [view.corners.astype(np.int32)], True, colour, 5, cv2.LINE_AA)
            show_frame(ids.camera, img)
        loc = self.loc
        ids.prompt.text = loc.text(view.prompt)
        if view.wanted is not None:
            ids.face.texture = self.face_texture(view.wanted)
        if view.learning or view.profile is not None:
            ids.progress.value = view.learn_share
            ids.message.text = loc.text(view.learn_text, ids.message) if view.learning else \
                loc(L.SAVED_AS, profile=left_to_right(str(view.profile)))
        else:
            ids.progress.value = view.progress
            ids.message.text = loc.text(view.error or view.message, ids.message)
        ids.counts.text = loc(L.FACES_DONE, done=view.done, total=view.total, taken=len(worker.guide.taken),
                              skipped=len(worker.guide.skipped))
        ids.learn.disabled = view.learning

    # ------------------------------------------------------------ drawing

    def _tick(self, _dt: float) -> None:
        if self.root.current == "enrol":
            self._enrol_tick()
            return
        s = self.session
        if s is None:
            return
        video_t = s.vision.snapshot.t if s.vision is not None else None
        s.poll(time.monotonic(), video_t)
        if s.missed is not None:
            self.root.get_screen("table").ask_missed()
        if s.referee.journal_error:
            self.root.get_screen("table").offer_save()
        self.refresh()
        if s.vision is not None and s.vision.snapshot.image is not None:
            snap = s.vision.snapshot
            img = snap.image.copy()
            if snap.box is not None:
                x1, y1, x2, y2 = (int(v) for v in snap.box)
                cv2.rectangle(img, (x1, y1), (x2, y2), (0, 255, 255), 3)
                if snap.card is not None:
                    cv2.putText(img, snap.card.code, (x1, max(20, y1 - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                                0.8, (0, 255, 255), 2, cv2.LINE_AA)
            show_frame(self.root.get_screen("table").ids.camera, img)
            self.controller.marks.setdefault("first_frame", time.time())

    def face_texture(self, card: Card) -> Texture:
        if card not in self._faces:
            from ..synth.faces import render_face

            self._faces[card] = to_texture(render_face(card, 248, 346))
        return self._faces[card]

    def refresh(self) -> None:
        if self.session is None:
            return
        st = self.session.referee.state
        ids = self.root.get_screen("table").ids
        loc = self.loc
        if st.is_over and st.winner is not None:
            ids.turn.text = loc(L.WINS, name=st.names[st.winner])
        elif st.phase.value == "setup":
            ids.turn.text = loc(L.FIRST_CARD)
        else:
            ids.turn.text = loc(L.TURN, name=st.names[st.to_move])
        ids.direction.text = loc(L.CLOCKWISE if st.direction == 1 else L.ANTICLOCKWISE)
        seats = self.session.seat_map
        ids.ring.show(st.names, st.to_move, st.direction, st.counts, st.stages, seats.angles if seats else None)
        top = st.top
        if top is not None:
            ids.lead.texture = self.face_texture(top)
            ids.lead_name.text = loc(L.LEADING, card=loc.words.card(top))
        ids.swatch.rgba = list(RGBA[st.color])
        ids.pending.text = pending_text(st, loc)
        voice = self.session.voice
        speech = loc(L.NO_SPEECH, error=voice.error) if voice and voice.error else ""
        box = getattr(self.controller, "outbox", None)
        board = getattr(self.controller, "board_problem", None) or ""
        if box is not None and box.refused:  # retrying cannot fix it (a wrong event key): no "sent later"
            board = f"The board refuses this kiosk ({box.refused})."
        elif box is not None and box.offline_since is not None:
            since = time.strftime("%H:%M", time.localtime(time.time() - (time.monotonic() - box.offline_since)))
            board = f"Board offline since {since} ({box.status}); the game is kept and sent later."
        # each part its own sentence: a warning never runs into the status after it
        ids.status.text = " ".join(whole_sentence(m) for m in (speech, self.session.warning, board,
                                                                self.session.status) if m)
        self._teaching_strip(ids, st)
        if len(self.session.log) != self._shown_log:
            self._shown_log = len(self.session.log)
            lines = [(f"[s][color=8a8f98]{loc.text(ln.text, ids.history)}[/color][/s]" if ln.undone
                      else f"[color=ff7766]{loc.text(ln.text, ids.history)}[/color]" if ln.penalty
                      else loc.text(ln.text, ids.history)) for ln in self.session.log[-60:]]
            ids.history.text = "\n".join(lines)
            ids.history_scroll.scroll_y = 0

    def _teaching_strip(self, ids: Any, st: Any) -> None:
        """Teaching mode: pictures of the cards the player to move could put down."""
        strip = ids.hint_strip
        if not self.session.teaching or st.phase.value != "playing":
            strip.height, strip.opacity = 0, 0
            return
        if getattr(self, "_strip_for", None) is st:
            return
        self._strip_for = st
        from kivy.uix.image import Image

        from ..rules import legal_faces

        strip.clear_widgets()
        faces = legal_faces(st)
        strip.add_widget(FitLabel(text=self.loc(L.CAN_PLAY, name=st.names[st.to_move]), max_font_size=sp(15),
                                  size_hint_x=None, width=90, halign="center", font_name=self.loc.font or "Roboto"))
        for card in faces[:12]:
            strip.add_widget(Image(texture=self.face_texture(card), fit_mode="contain"))
        if len(faces) > 12:
            strip.add_widget(Label(text=f"+{len(faces) - 12}", font_size="18sp", size_hint_x=None, width=40))
        strip.height, strip.opacity = 90, 1

    def dump(self) -> dict[str, Any]:
        """What the table screen shows and where (window pixels), for the headless tests."""
        if self.root.current == "enrol":
            e = self.root.get_screen("enrol").ids
            worker = getattr(self.controller, "enrolment", None)
            return {"screen": "enrol", "window": [Window.width, Window.height], "prompt": e.prompt.text,
                    "overflowing": overflowing(self.root.get_screen("enrol")),
                    "message": e.message.text, "counts": e.counts.text, "progress": e.progress.value,
                    "taken": sorted(c.code for c in worker.guide.taken) if worker else [],
                    "out": str(worker.guide.out) if worker else ""}
        if self.root.current == "standings":
            st = self.root.get_screen("standings")
            return {"screen": "standings", "window": [Window.width, Window.height], "title": st.ids.title.text,
                    "table": st.ids.table.text, "overflowing": overflowing(st)}
        if self.root.current == "setup":
            setup = self.root.get_screen("setup")
            return {"screen": "setup", "window": [Window.width, Window.height], "message": setup.ids.message.text,
                    "version": setup.ids.version.text, "overflowing": overflowing(setup),
                    "rule_rows": [[*r.to_window(*r.pos), r.width, r.height] for r in setup.ids.rules.children],
                    "start_rect": [*setup.ids.start.to_window(*setup.ids.start.pos), *setup.ids.start.size]}
        ids = self.root.get_screen("table").ids

        def rect(w: Widget) -> list[float]:
            x, y = w.to_window(*w.pos)
            return [x, y, w.width, w.height]

        table = self.root.get_screen("table")
        picker = getattr(table, "picker", None)
        shown = picker is not None and picker.parent is not None  # open on the window
        return {
            "picker": {"title": picker.title, "faces": [c for c in picker.buttons],
                       "first_rect": rect(next(iter(picker.buttons.values()))),
                       "rects": {c: rect(b) for c, b in picker.buttons.items()},
                       "bright": [c for c, b in picker.buttons.items() if b.color[0] > 0.9]} if shown else None,
            "window": [Window.width, Window.height],
            "popups": [_popup_texts(w) for w in Window.children if isinstance(w, Popup)],
            "overflowing": overflowing(table) + [t for w in Window.children if isinstance(w, Popup)
                                                 for t in overflowing(w)],
            "turn": ids.turn.text, "turn_rect": rect(ids.turn),
            "direction": ids.direction.text, "direction_rect": rect(ids.direction),
            "ring_rect": rect(ids.ring), "lead_rect": rect(ids.lead), "lead": ids.lead_name.text,
            "pending": ids.pending.text, "status": ids.status.text, "history": ids.history.text,
            "hint_faces": len(ids.hint_strip.children) - 1 if ids.hint_strip.opacity else 0,
            "state": _state_line(self.session),
            "seats": list(self.session.seat_map.angles) if self.session and self.session.seat_map else None,
            "ring_names": [[lab.text.split("\n")[0], *lab.to_window(*lab.center)] for lab in ids.ring.labels],
            "ring_center": list(ids.ring.to_window(*ids.ring.center)),
        }


def _state_line(session: TableSession) -> str:
    from ..rules.notation import to_text

    return to_text(session.referee.state)


def pending_text(st: Any, loc: Localiser | None = None) -> str:
    loc = loc or Localiser()
    if st.stack:
        return loc.plural(L.STACK, 2 * st.stack, name=st.names[st.to_move])
    if st.plus3_by is not None:
        return loc(L.PLUS3)
    if st.pending is Pending.COLOR:
        return loc(L.CHOOSE, name=st.names[st.to_move])
    if st.pending is Pending.PLUS:
        return loc(L.PLUS)
    if st.pending is Pending.KING:
        return loc(L.KING)
    if st.run is not None:
        text = loc(L.RUN_OPEN if st.run.seat is None else L.RUN_GOING, colour=loc.words.colour(st.run.color))
        return text[:1].upper() + text[1:]
    if st.last_due is not None:
        return loc(L.LAST, name=st.names[st.last_due])
    return ""


def save_screenshot(path: str) -> str:
    """Window.screenshot appends a counter to the name; move it to ``path``."""
    made = Window.screenshot(name=path)
    if made and made != path:
        Path(made).replace(path)
    return path


def overflowing(root: Widget) -> list[str]:
    """The texts under ``root`` that spill out of their box or break a word (fit.py)."""
    out, stack = [], [root]
    while stack:
        w = stack.pop()
        stack.extend(w.children)
        if isinstance(w, Label) and w.opacity > 0 and overflows(w):
            out.append(w.text)
    return out


def _popup_texts(popup: Popup) -> dict[str, Any]:
    """An open popup's title and every text on it (labels and buttons)."""
    texts, stack = [], [popup.content]
    while stack:
        w = stack.pop()
        stack.extend(reversed(w.children))
        if isinstance(w, Label):
            texts.append(w.text)
    return {"title": popup.title, "texts": texts}


def dump_json(app: TakiApp, path: str) -> None:
    Path(path).write_text(json.dumps(app.dump(), indent=1))


def _loc() -> Localiser:
    """The running app's localiser (English before the app runs)."""
    app = App.get_running_app()
    return getattr(app, "loc", None) or Localiser()
