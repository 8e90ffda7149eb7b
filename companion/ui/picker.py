"""The card picker: the 57 faces as pictures, to enter a card by hand or fix a misread.

Why: with no camera, no model, or a camera that missed or misread a card, the game
must still go on. Every face has a fixed place, one row per colour and a row of the
colourless cards, so a hand learns where the blue 3 is and it is there next turn too
(a picker that put the playable cards first moved them every turn: a tap where the
blue 3 had been gave the yellow 8). The cards that may be played now are bright; the
rest are dimmed but still pickable (an illegal card is judged and answered, as if the
camera had seen it). All 57 fit on the screen at once, 800x480 included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.metrics import dp, sp
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.popup import Popup
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from ..rules import FACES, legal_faces
from ..rules.cards import Card
from ..rules.state import GameState
from .fit import FitLabel

FACE_W, FACE_H = dp(92), dp(128)  # a finger-sized face, card-shaped


class FaceButton(ButtonBehavior, Image):  # type: ignore[misc]
    """One face; ``card`` says which."""

    def __init__(self, card: Card, **kw: Any) -> None:
        super().__init__(**kw)
        self.card = card


def picker_rows() -> list[list[Card]]:
    """The faces' fixed places: a row per colour (in the rules' order: numbers, then the
    action cards), then the colourless cards. The same whatever the game's state."""
    rows: dict[object, list[Card]] = {}
    for c in FACES:
        rows.setdefault(c.color, []).append(c)
    return list(rows.values())


def playable(state: GameState) -> set[Card]:
    """The faces to show bright: those legal now (every face before play begins)."""
    return set(legal_faces(state)) if state.phase.value == "playing" else set(FACES)


class CardPicker(Popup):  # type: ignore[misc]
    """``on_pick(card)`` is called with the face tapped, then the picker closes."""

    def __init__(self, title: str, note: str, state: GameState, texture: Callable[[Card], Any],
                 on_pick: Callable[[Card], None], cancel_text: str = "Cancel", font_name: str = "Roboto",
                 **kw: Any) -> None:
        box = BoxLayout(orientation="vertical", spacing=dp(6), padding=dp(6))
        super().__init__(title=title, content=box, size_hint=(0.96, 0.96), title_size="22sp", title_font=font_name,
                         **kw)
        self.on_pick = on_pick
        box.add_widget(FitLabel(text=note, max_font_size=sp(18), halign="center", font_name=font_name,
                                size_hint_y=None, height=dp(30)))
        rows, legal = picker_rows(), playable(state)
        from kivy.core.window import Window

        cols = max(len(r) for r in rows)
        # the faces shrink to fit every row on the screen: nothing scrolls, nothing moves
        face_w = min(FACE_W, (Window.width * 0.96 - dp(12) - dp(4) * cols) / cols)
        face_h = min(FACE_H, (Window.height * 0.96 - dp(30 + 56 + 90) - dp(4) * len(rows)) / len(rows))
        grid = GridLayout(cols=cols, spacing=dp(4), size_hint_y=None, row_default_height=face_h,
                          row_force_default=True, col_default_width=face_w, col_force_default=True)
        grid.bind(minimum_height=grid.setter("height"))
        self.buttons: dict[str, FaceButton] = {}
        for row in rows:
            for card in row:
                b = FaceButton(card, texture=texture(card), fit_mode="contain",
                               color=(1, 1, 1, 1) if card in legal else (0.35, 0.35, 0.35, 1))
                b.bind(on_release=self._picked)
                grid.add_widget(b)
                self.buttons[card.code] = b
            for _ in range(cols - len(row)):  # the colourless row is shorter: its places stay empty
                grid.add_widget(Widget())
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(grid)
        box.add_widget(scroll)
        cancel = Button(text=cancel_text, font_size="22sp", font_name=font_name, size_hint_y=None, height=dp(56))
        cancel.bind(on_release=self.dismiss)
        box.add_widget(cancel)

    def _picked(self, button: FaceButton) -> None:
        self.dismiss()
        self.on_pick(button.card)

    def press(self, code: str) -> None:
        """Tap the face ``code`` as a finger would (the headless tests' way in)."""
        self.buttons[Card.from_code(code).code].dispatch("on_release")
