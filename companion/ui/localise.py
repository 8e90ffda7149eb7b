"""The kiosk in the players' language: translated labels, right-to-left text, fonts with the glyphs.

Why here: Kivy's default text provider draws characters left to right, one
glyph per character, from one font. So Hebrew and Urdu are put in display
order with python-bidi, Urdu's letters are joined first with arabic-reshaper,
and each language gets a font that has its letters and Latin ones too (player
names): DejaVu Sans for Hebrew, Serbian and Gaelic, FreeSerif for Urdu, Noto
Sans Telugu for Telugu (Debian's fonts-dejavu-core, fonts-freefont-ttf and
fonts-noto-core; the README's set-up installs them).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from ..voice.catalog import Words, words
from ..voice.language import Language
from .labels import FIXED

_SHIPPED = Path(__file__).resolve().parent.parent / "assets" / "fonts"
_FONTS = {
    Language.HEBREW: ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                      "/usr/share/fonts/truetype/freefont/FreeSans.ttf"),
    Language.URDU: ("/usr/share/fonts/truetype/freefont/FreeSerif.ttf",),
    # shipped: Noto Sans Telugu alone has no Latin letters, and names are often typed in them (fontmerge.py)
    Language.TELUGU: (str(_SHIPPED / "NotoSansTeluguLatin-Regular.ttf"),),
    Language.SERBIAN: ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",),
    Language.GAELIC: ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",),
}


#: The script HarfBuzz shapes each language's text as (Kivy's ``font_script_name``). Without
#: it Telugu's conjuncts and vowel signs were drawn apart ("కార్డు" as its letters one by
#: one, a virama showing); Hebrew and Urdu arrive shaped and reordered (:func:`shape`).
_SCRIPTS = {Language.TELUGU: "Telu"}


def script_for(lang: Language) -> str:
    return _SCRIPTS.get(lang, "Latn")


def _shape_new_fonts_as(script: str) -> bool:
    """SDL_ttf's default script for the fonts it opens from now on (``TTF_SetScript``).

    Why: Kivy gives SDL_ttf a label's script only when it draws, but measures the
    text with the font as it was opened; a Telugu word was measured unshaped and
    drawn shaped, wider, and its last letter cut off. A font opened after this
    call measures as it draws. False where SDL_ttf has no HarfBuzz or is not found
    (the text is then drawn as before)."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            path = next((line.split()[-1] for line in maps if "libSDL2_ttf" in line), None)
        if path is None:
            return False
        tag = int.from_bytes(script.encode("ascii"), "big")  # HB_TAG('T','e','l','u')
        return int(ctypes.CDLL(path).TTF_SetScript(ctypes.c_int(tag))) == 0
    except (OSError, AttributeError, ValueError):
        return False


def font_for(lang: Language) -> str | None:
    """A font file with the language's letters, or None for Kivy's own (Roboto)."""
    return next((f for f in _FONTS.get(lang, ()) if Path(f).exists()), None)


LTR_ISOLATE, END_ISOLATE = "\u2066", "\u2069"
_FIELD = re.compile(f"{LTR_ISOLATE}(.*?){END_ISOLATE}")
_SLOT = 0xE000  # private-use characters (strong left-to-right) hold a field's place while a line is reordered


def left_to_right(field: str) -> str:
    """A field (a file's path, an address) kept left to right, whole, inside
    right-to-left text (:func:`shape`): "/tmp/x.json" inside Hebrew lost its leading
    slash to the far end of the line."""
    return f"{LTR_ISOLATE}{field}{END_ISOLATE}"


def shape(text: str, lang: Language) -> str:
    """Text in the order and letter forms Kivy must draw: right-to-left lines
    reordered (each line on its own; a :func:`left_to_right` field kept as it is),
    Urdu's letters joined."""
    if not text:
        return text
    if not lang.right_to_left:
        return _FIELD.sub(r"\1", text)
    from bidi.algorithm import get_display

    if lang is Language.URDU:
        import arabic_reshaper

        text = arabic_reshaper.reshape(text)
    fields: list[str] = []

    def hold(m: re.Match[str]) -> str:
        fields.append(m.group(1))
        return chr(_SLOT + len(fields) - 1)

    lines = [get_display(line, base_dir="R") for line in _FIELD.sub(hold, text).split("\n")]
    out = "\n".join(lines)
    for i, field in enumerate(fields):
        out = out.replace(chr(_SLOT + i), field)
    return out


_ROBOTO: tuple[str, ...] | None = None  # Kivy's own default font files, kept to switch back


class Localiser:
    """Says the kiosk's words in one language and dresses widgets for it."""

    def __init__(self, lang: Language = Language.ENGLISH) -> None:
        self.language = lang
        self.words: Words = words(lang)
        self.font = font_for(lang)
        self.script = script_for(lang)

    def __call__(self, msgid: str, **fields: object) -> str:
        return shape(self.words(msgid, **fields), self.language)

    def plural(self, forms: tuple[str, str], n: int, **fields: object) -> str:
        return shape(self.words.plural(forms, n, digits=True, **fields), self.language)

    def text(self, text: str, label: Any = None) -> str:
        """Text already in the language (rulings, names), shaped. With ``label``
        (one that wraps), right-to-left text is broken into lines first, in
        reading order: Kivy would wrap the reordered line from its wrong end."""
        if label is not None and self.language.right_to_left and text:
            width = (label.text_size[0] or label.width) if label.text_size else label.width
            per_line = max(12, int(width / (float(label.font_size) * 0.5)))
            text = "\n".join(textwrap.fill(line, per_line) for line in text.split("\n"))
        return shape(text, self.language)

    def make_default(self) -> None:
        """New widgets (popups, the picker) draw with this language's font too:
        Kivy's default font name is pointed at it (and back to Roboto for English)."""
        from kivy.core.text import DEFAULT_FONT, LabelBase

        global _ROBOTO
        if _ROBOTO is None:
            _ROBOTO = tuple(LabelBase._fonts[DEFAULT_FONT])  # type: ignore[attr-defined]
        files = (self.font,) * 4 if self.font else _ROBOTO
        LabelBase.register(DEFAULT_FONT, *files)
        from kivy.uix.label import Label

        Label.font_script_name.defaultvalue = self.script  # every label made from now on
        _shape_new_fonts_as(self.script)

    def dress(self, root: Any) -> None:
        """Every widget under ``root``: its fixed English text translated, the
        language's font, right-aligned for right-to-left languages."""
        from kivy.uix.label import Label
        from kivy.uix.textinput import TextInput

        stack = [root]
        while stack:
            w = stack.pop()
            stack.extend(w.children)
            if hasattr(w, "screens"):
                stack.extend(w.screens)
            if not isinstance(w, (Label, TextInput)):
                continue
            if not hasattr(w, "_msgid"):  # remember what the kv file said, in English
                w._msgid = w.text if w.text in FIXED else None
                w._font, w._halign = w.font_name, getattr(w, "halign", None)
            if w._msgid:
                w.text = self(w._msgid)
            w.font_name = self.font or w._font
            if isinstance(w, Label):
                w.font_script_name = self.script
            if w._halign == "left":  # lines of text start on the reading side
                w.halign = "right" if self.language.right_to_left else "left"
