"""Issue 13, languages: the referee speaks and shows its rulings in six languages.

Catalogue completeness (every message of the code translated in every language,
with the same fields), every ruling kind and refusal said in every language,
each language's own plural rules, right-to-left shaping, and one real espeak-ng
render per language."""

from __future__ import annotations

import io
import re
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.rules import CorrectCount, Draw, Play, Reveal, apply, new_game
from companion.rules.cards import Card, Color
from companion.rules.engine import _REASONS
from companion.rules.rulings import Ruling, RulingKind
from companion.voice.catalog import LOCALE_DIR, Words, translations, words
from companion.voice.language import Language
from companion.voice.wording import DRAW_REASONS, PLURAL_REASONS, REASONS, say, sentences

ROOT = Path(__file__).resolve().parent.parent
OTHERS = [lang for lang in Language if lang is not Language.ENGLISH]
C = Card.from_code


def _fields(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def _catalog(lang: Language):  # type: ignore[no-untyped-def]
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / lang.value / "LC_MESSAGES" / "taki.po").open("rb") as f:
        return read_po(f)


def _messages_in_code() -> set[str | tuple[str, str]]:
    """What pybabel extracts from the code now (the .pot must match it)."""
    from babel.messages.extract import extract_from_dir

    found: set[str | tuple[str, str]] = set()
    for _file, _line, msg, _comments, _ctx in extract_from_dir(
            str(ROOT / "companion"), method_map=[("**.py", "python")], keywords={"tr": None, "trn": (1, 2)}):
        found.add(msg if isinstance(msg, str) else tuple(msg))
    return found


def test_the_template_is_up_to_date_with_the_code() -> None:
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / "taki.pot").open("rb") as f:
        pot = {m.id for m in read_po(f) if m.id}
    assert pot == _messages_in_code(), "run pybabel extract (see babel.cfg) and update the .po files"


@pytest.mark.parametrize("lang", OTHERS, ids=lambda lang: lang.value)
def test_every_message_is_translated_with_the_same_fields(lang: Language) -> None:
    cat = _catalog(lang)
    code = _messages_in_code()
    done = {m.id: m.string for m in cat if m.id}
    assert set(done) == code, f"{lang.name}: missing {sorted(map(str, code - set(done)))[:5]}"
    for msgid, string in done.items():
        forms = string if isinstance(string, tuple) else (string,)
        english = set().union(*map(_fields, msgid if isinstance(msgid, tuple) else (msgid,)))
        assert len(forms) == cat.num_plurals or not isinstance(msgid, tuple), (lang, msgid)
        for form in forms:
            assert form.strip(), f"{lang.name}: {msgid!r} is not translated"
            # a form may leave the count out ("one card" said as a word) but never adds a field
            assert _fields(form) <= english | {"count"}, (lang, msgid, form)
            if not isinstance(msgid, tuple):
                assert _fields(form) == english, (lang, msgid, form)
    bare = [re.sub(r"\{\w+\}|JSON|CSV|TAKI", "", s) for s in done.values() if isinstance(s, str)]
    letters = [s for s in bare if re.search(r"[A-Za-z]{4}", s)]
    if lang is not Language.GAELIC:  # Gaelic is written in Latin letters: the others must not be English
        assert len(letters) < 0.1 * len(done), letters[:5]


def _every_ruling() -> list[Ruling]:
    """One ruling of every kind, every refusal and every reason for a draw."""
    rulings = [Ruling(k, "R-X", 0, "Dana", n=3, card=C("R7"), color=Color.BLUE) for k in RulingKind
               if k is not RulingKind.ILLEGAL]  # refusals: each key below
    for key in REASONS:
        rulings.append(Ruling(RulingKind.ILLEGAL, "R-X", 0, "Dana", key=key,
                              args=(("turn", "Omer"), ("winner", "Noa"), ("card", C("G+2")), ("run", Color.RED),
                                    ("colour", Color.RED), ("lead", C("R4")), ("seat", "7"))))
    for key in PLURAL_REASONS:
        rulings += [Ruling(RulingKind.ILLEGAL, "R-X", 0, "Dana", key=key, args=(("n", n),)) for n in (1, 2, 5)]
    rulings += [Ruling(RulingKind.DRAW, "R-X", 0, "Dana", n=4, key=k) for k in DRAW_REASONS]
    return rulings


@pytest.mark.parametrize("lang", list(Language), ids=lambda lang: lang.value)
def test_every_ruling_is_said_as_one_whole_sentence_in_every_language(lang: Language) -> None:
    w, english = words(lang), words(Language.ENGLISH)
    for r in _every_ruling():
        text = say(r, w)
        assert text and "{" not in text and "}" not in text, (r, text)
        assert text[-1] in ".!?۔" and ".." not in text and "۔۔" not in text, (r, text)
        if "Dana" in say(r, english):  # whoever English names is named in every language
            assert "Dana" in text, (r, text)
        if lang is not Language.ENGLISH:
            assert text != say(r, english), f"{lang.name} says {text!r} in English"


def test_every_refusal_of_the_engine_has_wording() -> None:
    engine_keys = set(_REASONS)
    assert engine_keys <= set(REASONS) | set(PLURAL_REASONS)
    source = (ROOT / "companion" / "rules" / "engine.py").read_text()
    for key in re.findall(r'key="(\w+)"', source):
        assert key in REASONS or key in PLURAL_REASONS or key in DRAW_REASONS or key in (
            "no_finish_on_plus", "two_players_pass"), key


def test_a_real_game_is_said_in_every_language_with_the_rule_books_card_names() -> None:
    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(C("R5"))).state
    stack = apply(g, Play(C("R+2")))
    said = {lang: [s.text for s in sentences(stack, lang=lang)] for lang in Language}
    assert said[Language.ENGLISH] == ["Omer: plus two or King, or draw two."]
    assert said[Language.HEBREW] == ["Omer: פלוס שתיים או מלך, או לקחת שני קלפים."]
    assert said[Language.SERBIAN] == ["Omer: плус два или Кинг, или вуци две карте."]
    assert said[Language.URDU] == ["Omer: پلس دو یا کنگ، یا دو کارڈ اٹھائیں۔"]
    bad = apply(g, Play(C("B7")))  # a mismatch, refused with the colour and the symbol wanted
    assert "синя" not in sentences(bad, lang=Language.SERBIAN)[0][0]
    assert "плава 7" in sentences(bad, lang=Language.SERBIAN)[0][0]  # the card said in Serbian
    assert "7 כחול" in sentences(bad, lang=Language.HEBREW)[0][0]
    assert "7 gorm" in sentences(bad, lang=Language.GAELIC)[0][0]  # Gaelic puts the colour after


@pytest.mark.parametrize("n, serbian, gaelic, hebrew", [
    (1, "вуци једну карту", "tarraing aon chairt", "יש לקחת קלף"),
    (2, "вуци две карте", "tarraing dà chairt", "יש לקחת שני קלפים"),
    (3, "вуци три карте", "tarraing trì cairtean", "יש לקחת שלושה קלפים"),
    (5, "вуци пет карата", "tarraing còig cairtean", "יש לקחת חמישה קלפים"),
    (20, "вуци 20 карата", "tarraing 20 cairt", "יש לקחת 20 קלפים"),
])
def test_counts_follow_each_languages_plural_rules(n: int, serbian: str, gaelic: str, hebrew: str) -> None:
    r = Ruling(RulingKind.DRAW, "R-X", 0, "Dana", n=n, key="no_last_card")
    assert serbian in say(r, words(Language.SERBIAN))
    assert gaelic in say(r, words(Language.GAELIC))
    assert hebrew in say(r, words(Language.HEBREW))
    english = say(r, words(Language.ENGLISH))
    assert english == ("Dana, draw a card: no last-card call." if n == 1 else
                       f"Dana, draw {words(Language.ENGLISH).number(n)}: no last-card call.")


def test_right_to_left_text_is_put_in_display_order_and_urdu_letters_are_joined() -> None:
    from companion.ui.localise import shape

    assert shape("התור של Dana", Language.HEBREW) == "Dana לש רותה"  # Hebrew runs right to left
    assert shape("Dana's turn", Language.ENGLISH) == "Dana's turn"
    urdu = shape("آپ کی باری", Language.URDU)
    assert all(0xFB50 <= ord(ch) <= 0xFEFF or ch == " " for ch in urdu), urdu  # joined presentation forms
    assert shape("שורה\nשנייה", Language.HEBREW) == "הרוש\nהיינש"  # each line on its own


def test_a_missing_catalogue_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.voice import catalog

    monkeypatch.setattr(catalog, "LOCALE_DIR", tmp_path)
    catalog.translations.cache_clear()
    try:
        with pytest.raises(catalog.CatalogError, match="no Hebrew catalogue"):
            Words(Language.HEBREW)
    finally:
        catalog.translations.cache_clear()


def test_kv_files_use_only_catalogued_texts() -> None:
    from companion.ui.labels import FIXED

    for kv in (ROOT / "companion" / "ui").glob("*.kv"):
        for text in re.findall(r"text: '([^']*)'", kv.read_text()):
            text = text.encode().decode("unicode_escape")
            assert text in FIXED or not re.search("[A-Za-z]", text) or text == "English", (kv.name, text)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is installed by .ci/run")
@pytest.mark.parametrize("lang", list(Language), ids=lambda lang: lang.value)
def test_every_language_renders_to_audible_speech(lang: Language, tmp_path: Path) -> None:
    from companion.voice.speakers import Pyttsx3Speaker

    g = apply(new_game(["Dana", "Omer"]), Reveal(C("R5"))).state
    g = apply(g, CorrectCount(0, 2)).state
    text = sentences(apply(apply(g, Play(C("R7"))).state, Draw()), lang=lang)[0][0]  # a penalty
    wav = Pyttsx3Speaker(voice=lang.voice).render_wav(text, tmp_path / "said.wav")
    with wave.open(str(wav)) as f:
        samples = np.frombuffer(f.readframes(f.getnframes()), np.int16).astype(np.float64)
        seconds = f.getnframes() / f.getframerate()
    assert seconds > 0.5 and np.sqrt((samples ** 2).mean()) > 300, (lang, text, seconds)


def test_compiled_catalogues_match_their_sources() -> None:
    """A stale .mo is never used: the .po is read when it is newer."""
    from babel.messages.mofile import write_mo

    for lang in OTHERS:
        out = io.BytesIO()
        write_mo(out, _catalog(lang))
        t = translations(lang)
        for m in _catalog(lang):
            if m.id and isinstance(m.id, str):
                assert t.gettext(m.id) == m.string


@pytest.mark.parametrize("lang", list(Language), ids=lambda lang: lang.value)
def test_the_kiosks_font_draws_its_language_and_names_typed_in_latin_letters(lang: Language) -> None:
    """Kivy draws a label with one font file and no fallback, so the kiosk's font for a
    language must hold every letter of that language's messages and of a player's
    name typed on a Latin keyboard (Noto Sans Telugu alone drew "Dana" as four boxes)."""
    from fontTools.ttLib import TTFont

    from companion.ui.localise import font_for

    path = font_for(lang)
    if lang is Language.ENGLISH:
        assert path is None  # Kivy's own Roboto
        return
    if path is None:
        pytest.skip(f"the {lang.name.title()} font comes from the Debian packages .ci/run installs")
    cmap = TTFont(path).getBestCmap()
    letters = {ch for m in _catalog(lang) if m.id and m.string
               for text in ((m.string,) if isinstance(m.string, str) else m.string)
               for ch in re.sub(r"\{\w+\}", "", text) if ch.isalpha()}
    letters |= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789éáíóúèàòñüöäçšđčćž")
    missing = sorted(ch for ch in letters if ord(ch) not in cmap)
    assert not missing, (path, missing[:20])


def test_a_path_inside_right_to_left_text_stays_whole_and_left_to_right() -> None:
    """"Saved: /tmp/x.json" in Hebrew: the reordered line keeps the path as typed (it
    lost its leading slash to the line's far end), and other languages drop the marks."""
    from companion.ui.localise import left_to_right, shape

    path = "/tmp/out/standings-game1.json"
    line = shape("נשמר: " + left_to_right(path), Language.HEBREW)
    assert line.startswith(path + " ") and line.endswith("רמשנ"), line
    assert shape("Saved: " + left_to_right(path), Language.ENGLISH) == "Saved: " + path
    assert shape("(שמאלה)", Language.HEBREW) == "(הלאמש)"  # brackets still mirrored
