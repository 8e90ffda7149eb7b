"""The text a ruling is spoken as, which is not always the text it is shown as.

Why: espeak-ng's Hebrew voice says nothing at all for a digit, so "Dana, 6 כחול לא
מתאים" lost the card that did not match. The screen keeps the digit (a family reads
"6" faster than "שש"); the speech engine is given the number in words. The other
voices (en, sr, te, ur, gd) read digits as words themselves, which the tests check
from espeak-ng's own phoneme output.
"""

from __future__ import annotations

import re

#: espeak-ng voices that say nothing for a digit, and num2words' language for each.
SILENT_DIGITS = {"he": "he"}
_NUMBER = re.compile(r"\d+")


def number_words(n: int, voice: str) -> str:
    """``n`` in words in the voice's language (digits where the voice reads them)."""
    lang = SILENT_DIGITS.get(voice)
    if lang is None:
        return str(n)
    from num2words import num2words

    return str(num2words(n, lang=lang))


def for_speech(text: str, voice: str | None) -> str:
    """``text`` as the speech engine is given it for ``voice``: every number in words
    where the voice would skip digits."""
    if voice not in SILENT_DIGITS:
        return text
    return _NUMBER.sub(lambda m: number_words(int(m.group()), str(voice)), text)
