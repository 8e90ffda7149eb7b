"""Wording per language from gettext catalogues (``companion/locale/*/LC_MESSAGES/taki.po``).

Why gettext: translators work on ``.po`` files with the usual tools (Babel's
``pybabel extract/update/compile``); the code names messages by their English
text, and plural forms follow each language's own rules (Serbian has three,
Scottish Gaelic four). The ``.po`` files are compiled to ``.mo`` at build time
(``python -m companion.voice.compile_catalogs``, run by the build and CI); a
checkout without ``.mo`` files compiles the ``.po`` in memory when Babel is
installed.

Messages use ``{field}`` placeholders; :class:`Words` fills them, saying cards,
colours and counts in the language (the rule book's names for the cards).
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

from ..rules.cards import Card, Color, Kind
from .language import Language

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "taki"


class CatalogError(RuntimeError):
    """A language's catalogue is missing or unreadable."""


def tr(msgid: str) -> str:
    """Marks a message for extraction (``pybabel extract -k tr``); returns it unchanged."""
    return msgid


def trn(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with plural forms (``-k trn:1,2``): the English one and many."""
    return singular, plural


@lru_cache(maxsize=None)
def translations(lang: Language) -> gettext.NullTranslations:
    if lang is Language.ENGLISH:
        return gettext.NullTranslations()
    mo = LOCALE_DIR / lang.value / "LC_MESSAGES" / f"{DOMAIN}.mo"
    po = mo.with_suffix(".po")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    if not po.exists():
        raise CatalogError(f"no {lang.name.title()} catalogue at {po}")
    return gettext.GNUTranslations(io.BytesIO(_compile(po)))


def _compile(po: Path) -> bytes:
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        raise CatalogError(f"{po.with_suffix('.mo')} is not built and Babel is not installed to build it; "
                           f"run `python -m companion.voice.compile_catalogs`") from None
    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def compile_all() -> list[Path]:
    """Write every ``.mo`` beside its ``.po`` (the build step)."""
    written = []
    for lang in Language:
        po = LOCALE_DIR / lang.value / "LC_MESSAGES" / f"{DOMAIN}.po"
        if po.exists():
            mo = po.with_suffix(".mo")
            mo.write_bytes(_compile(po))
            written.append(mo)
    return written


_COLOURS = {Color.RED: tr("red"), Color.BLUE: tr("blue"), Color.GREEN: tr("green"), Color.YELLOW: tr("yellow")}
_KINDS = {
    Kind.STOP: tr("Stop"), Kind.PLUS2: tr("plus two"), Kind.CHANGE_DIRECTION: tr("Change Direction"),
    Kind.PLUS: tr("Plus"), Kind.TAKI: tr("TAKI"), Kind.SUPER_TAKI: tr("Super TAKI"), Kind.KING: tr("King"),
    Kind.PLUS3: tr("plus three"), Kind.BREAKER: tr("plus three Breaker"), Kind.CHANGE_COLOR: tr("Change Colour"),
}
#: Counts said as words up to twelve, in each language (one message, "|" between).
_NUMBERS = tr("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve")


class Words:
    """One language's wording: messages, plural forms, cards, colours and counts."""

    def __init__(self, lang: Language = Language.ENGLISH) -> None:
        self.language = lang
        self._t = translations(lang)
        self._numbers = self._t.gettext(_NUMBERS).split("|")

    def __call__(self, msgid: str, **fields: object) -> str:
        """The message in this language with its fields filled in."""
        return self._t.gettext(msgid).format(**fields)

    def plural(self, forms: tuple[str, str], n: int, digits: bool = False, **fields: object) -> str:
        """The message (:func:`trn`) for ``n`` in the language's plural form; ``{count}`` is n
        in words (spoken), or in digits (``digits``: a label on the screen)."""
        return self._t.ngettext(forms[0], forms[1], n).format(count=n if digits else self.number(n), **fields)

    def number(self, n: int) -> str:
        """A count in words up to twelve, digits beyond (as the English referee says it)."""
        return self._numbers[n] if 0 <= n < len(self._numbers) else str(n)

    def colour(self, c: Color | None) -> str:
        return self._t.gettext(_COLOURS[c]) if c is not None else ""

    def symbol(self, card: Card) -> str:
        """What a card shows, without its colour: '7', 'plus two', 'King'."""
        return str(card.number) if card.kind is Kind.NUMBER else self._t.gettext(_KINDS[card.kind])

    def card(self, card: Card | None) -> str:
        if card is None:
            return ""
        if card.color is None:
            return self.symbol(card)
        return self(tr("{colour} {symbol}"), colour=self.colour(card.color), symbol=self.symbol(card))


@lru_cache(maxsize=None)
def words(lang: Language = Language.ENGLISH) -> Words:
    return Words(lang)
