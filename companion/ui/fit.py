"""Texts that fit their box: the font shrinks until the text does, a word never broken.

Why: the kiosk is drawn for 1280x800, but the Raspberry Pi's own touchscreen is
800x480, and a translation can be twice as long as the English. There Kivy's
labels spill over their neighbours ("Leading: green Stop" ran into the camera)
or break a word where the line ends ("Everyo / ne drew", "Standi / ngs").
A fitting label starts at its design size (``max_font_size``, what the kv file
asks for) and steps down until every word fits the line and the lines fit the
box, never below ``min_font_size``.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.factory import Factory
from kivy.metrics import dp, sp
from kivy.properties import NumericProperty
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.spinner import Spinner
from kivy.uix.togglebutton import ToggleButton

STEP = 0.92  # each try is this much smaller than the one before


class FitsText:
    """Mixin for a Label (or a Button, which is one): :meth:`fit` on every change of
    size, text or font."""

    max_font_size = NumericProperty(sp(22))
    min_font_size = NumericProperty(sp(9))
    fit_padding = NumericProperty(dp(8))  # left free across the box, as a button's edge

    def __init__(self, **kwargs: Any) -> None:
        if isinstance(self, Button):  # a wrapped button text stays in the middle, as an unwrapped one is
            kwargs.setdefault("halign", "center")
        super().__init__(**kwargs)
        trigger = Clock.create_trigger(self.fit, -1)
        for prop in ("size", "text", "max_font_size", "min_font_size", "font_name", "bold"):
            self.fbind(prop, trigger)

    def fit(self, *_: Any) -> None:
        width, height = self.width - self.fit_padding, self.height - dp(2)
        if width <= 0 or height <= 0 or not self.text:
            return
        wrap = not _right_to_left()
        size = float(self.max_font_size)
        while size * STEP >= self.min_font_size:
            if _widest_word(self, size) <= width:
                self.text_size = (width, None) if wrap else (None, None)
                self.font_size = size
                self.texture_update()
                if self.texture_size[0] <= width + 1 and self.texture_size[1] <= height:
                    return
            size *= STEP
        self.text_size = (width, None) if wrap else (None, None)
        self.font_size = size


def _widest_word(label: Label, size: float) -> float:
    """The widest word of the label's text at this font size, in its font and script
    (Telugu measured shaped, as it is drawn)."""
    probe = CoreLabel(font_size=size, font_name=label.font_name, bold=label.bold,
                      font_script_name=label.font_script_name)
    return max((probe.get_extents(w)[0] for w in label.text.split()), default=0)


def _right_to_left() -> bool:
    """Right-to-left text arrives shaped line by line (localise.py): Kivy must not wrap it
    again, from the wrong end, so it only shrinks."""
    from kivy.app import App

    loc = getattr(App.get_running_app(), "loc", None)
    return bool(loc is not None and loc.language.right_to_left)


class FitLabel(FitsText, Label):
    pass


class FitButton(FitsText, Button):
    pass


class FitToggleButton(FitsText, ToggleButton):
    pass


class FitSpinner(FitsText, Spinner):
    pass


def overflows(label: Label) -> bool:
    """Whether a label's text spills out of its box or has a word broken across lines
    (for the tests: any label, fitting or not). Markup is left out: its tags are no words."""
    if not label.text or label.markup or label.width <= 1 or label.height <= 1:
        return False
    label.texture_update()
    width = label.text_size[0] if label.text_size and label.text_size[0] else label.width
    wide = _widest_word(label, label.font_size)
    tw, th = label.texture_size
    return wide > width + 1 or tw > label.width + 1 or th > label.height + 1


for _cls in (FitLabel, FitButton, FitToggleButton, FitSpinner):
    Factory.register(_cls.__name__, cls=_cls)
