"""The referee's languages: English, Hebrew, Serbian, Telugu, Urdu, Scottish Gaelic.

Why these: TAKI is an Israeli game (Hebrew), and its rule book is published in
Telugu, Urdu, Serbian and Scottish Gaelic; espeak-ng has a voice for each.
"""

from __future__ import annotations

from enum import Enum


class Language(Enum):
    ENGLISH = "en"
    HEBREW = "he"
    SERBIAN = "sr"
    TELUGU = "te"
    URDU = "ur"
    GAELIC = "gd"

    @property
    def native(self) -> str:
        """The language's own name, as the setup screen lists it."""
        return _NATIVE[self]

    @property
    def voice(self) -> str:
        """The espeak-ng voice that speaks it."""
        return self.value

    @property
    def right_to_left(self) -> bool:
        return self in (Language.HEBREW, Language.URDU)

    @classmethod
    def parse(cls, text: str) -> Language:
        """A language from its code ("he") or its own or English name ("עברית", "Hebrew")."""
        t = text.strip()
        for lang in cls:
            if t.lower() in (lang.value, lang.name.lower()) or t == lang.native:
                return lang
        raise ValueError(f"unknown language {text!r}; use one of {', '.join(lang.value for lang in cls)}")


_NATIVE = {
    Language.ENGLISH: "English",
    Language.HEBREW: "עברית",
    Language.SERBIAN: "Српски",
    Language.TELUGU: "తెలుగు",
    Language.URDU: "اردو",
    Language.GAELIC: "Gàidhlig",
}
