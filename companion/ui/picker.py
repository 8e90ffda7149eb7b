"""The card picker: the 57 faces as pictures, to enter a card by hand or fix a misread.

Why: with no camera, no model, or a camera that missed or misread a card, the game
must still go on. The cards that may be played now come first and bright; the rest
follow, dimmed but still pickable (an illegal card is judged and answered, as if
the camera had seen it). Buttons are large enough for a child's finger.
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


def picker_order(state: GameState) -> tuple[list[Card], set[Card]]:
    """All faces, those legal now first (in FACES order within each group), and the legal set."""
    legal = set(legal_faces(state)) if state.phase.value == "playing" else set(FACES)
    return [c for c in FACES if c in legal] + [c for c in FACES if c not in legal], legal


class CardPicker(Popup):  # type: ignore[misc]
    """``on_pick(card)`` is called with the face tapped, then the picker closes."""

    def __init__(self, title: str, note: str, state: GameState, texture: Callable[[Card], Any],
                 on_pick: Callable[[Card], None], **kw: Any) -> None:
        box = BoxLayout(orientation="vertical", spacing=dp(6), padding=dp(6))
        super().__init__(title=title, content=box, size_hint=(0.96, 0.96), title_size="22sp", **kw)
        self.on_pick = on_pick
        box.add_widget(FitLabel(text=note, max_font_size=sp(18), halign="center", size_hint_y=None,
                                height=dp(30)))
        order, legal = picker_order(state)
        from kivy.core.window import Window

        cols = max(3, int((Window.width * 0.96 - dp(24)) // (FACE_W + dp(6))))  # fill the width
        grid = GridLayout(cols=cols, spacing=dp(6), size_hint_y=None, row_default_height=FACE_H,
                          row_force_default=True, col_default_width=FACE_W, col_force_default=True)
        grid.bind(minimum_height=grid.setter("height"))
        self.buttons: dict[str, FaceButton] = {}
        for card in order:
            b = FaceButton(card, texture=texture(card), fit_mode="contain",
                           color=(1, 1, 1, 1) if card in legal else (0.5, 0.5, 0.5, 1))
            b.bind(on_release=self._picked)
            grid.add_widget(b)
            self.buttons[card.code] = b
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(grid)
        box.add_widget(scroll)
        cancel = Button(text="Cancel", font_size="22sp", size_hint_y=None, height=dp(56))
        cancel.bind(on_release=self.dismiss)
        box.add_widget(cancel)

    def _picked(self, button: FaceButton) -> None:
        self.dismiss()
        self.on_pick(button.card)

    def press(self, code: str) -> None:
        """Tap the face ``code`` as a finger would (the headless tests' way in)."""
        self.buttons[Card.from_code(code).code].dispatch("on_release")
