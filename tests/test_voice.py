"""Issue 5 voice: real speech to WAV (espeak-ng), a voice thread that never blocks the UI."""

import shutil
import threading
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.voice import Pyttsx3Speaker, RecordingSpeaker, VoiceWorker


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is installed by .ci/run")
def test_speech_renders_to_a_wav_that_is_not_silent(tmp_path: Path) -> None:
    path = Pyttsx3Speaker().render_wav("Dana, draw four: no last-card call", tmp_path / "s.wav")
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = np.frombuffer(frames, np.int16).astype(np.float64)
    assert seconds > 1.0
    assert np.sqrt((samples**2).mean()) > 300  # clearly audible, not a silent file


class _Engine:
    """A pyttsx3 engine stand-in: ``writes`` says whether save_to_file leaves a file."""

    def __init__(self, writes: bool) -> None:
        self.writes, self.path = writes, None

    def setProperty(self, name: str, value: object) -> None:  # noqa: N802 - pyttsx3's name
        pass

    def save_to_file(self, text: str, path: str) -> None:
        self.path = path

    def runAndWait(self) -> None:  # noqa: N802
        if self.writes:
            Path(self.path).write_bytes(b"RIFF" + bytes(200))


def test_an_engine_that_writes_no_sound_is_made_anew_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyttsx3 sometimes returns with no WAV written (its callback lost its engine):
    the speaker asks a fresh engine once more instead of going silent; twice is said."""
    import pyttsx3

    from companion.voice.speakers import SpeechUnavailable

    engines = iter([_Engine(False), _Engine(True)])
    monkeypatch.setattr(pyttsx3, "init", lambda driver=None: next(engines))
    wav = Pyttsx3Speaker().render_wav("Dana, draw two.", tmp_path / "said.wav")
    assert wav.stat().st_size > 44
    monkeypatch.setattr(pyttsx3, "init", lambda driver=None: _Engine(False))
    with pytest.raises(SpeechUnavailable, match="wrote no sound"):
        Pyttsx3Speaker().render_wav("Dana, draw two.", tmp_path / "again.wav")


def test_speaking_never_blocks_the_caller() -> None:
    """The UI thread enqueues and moves on while the speaker is still talking."""
    speaker = RecordingSpeaker(seconds=0.3)
    voice = VoiceWorker(speaker)
    voice.speak("Omer, draw two.")
    voice.speak("Noa is skipped.")
    assert speaker.busy.wait(2)  # speech started on the voice thread...
    assert speaker.said == []  # ...and the caller got control back before it finished
    assert voice.wait(5)
    assert speaker.said == ["Omer, draw two.", "Noa is skipped."]
    voice.stop()


def test_muted_voice_says_nothing() -> None:
    speaker = RecordingSpeaker()
    voice = VoiceWorker(speaker)
    voice.muted = True
    voice.speak("Dana, draw four.")
    assert voice.wait(2) and speaker.said == []
    voice.stop()


def test_broken_engine_is_reported_and_the_game_goes_on() -> None:
    told = threading.Event()
    messages: list[str] = []
    voice = VoiceWorker(RecordingSpeaker(fail=True), on_error=lambda m: (messages.append(m), told.set()))
    voice.speak("anything")
    assert told.wait(2) and "no speech engine" in messages[0] and voice.error
    voice.speak("more")  # dropped quietly, never raises
    assert voice.wait(2)
    voice.stop()


# ---------------------------------------------------------------- issue 13: speech that keeps up

from companion.voice import Priority  # noqa: E402
from companion.voice.wording import sentences, whole_sentence  # noqa: E402


def _hold(speaker: RecordingSpeaker, voice: VoiceWorker, first: str) -> None:
    """Start ``first`` and wait until the speaker is busy with it (the queue is then live)."""
    voice.speak(first, Priority.CALL)
    assert speaker.busy.wait(2)


def test_penalties_jump_the_queue_and_stale_instructions_are_dropped() -> None:
    speaker = RecordingSpeaker(seconds=0.3)
    voice = VoiceWorker(speaker, max_backlog_s=60)
    _hold(speaker, voice, "The red 5 leads. Dana starts.")
    voice.speak("Omer: plus two or King, or draw two.", Priority.INSTRUCTION)
    voice.speak("Noa, you can put down a plus two or a King.", Priority.HINT)
    voice.advance(1)  # the next card landed: both are about a moment that has passed
    voice.speak("Omer, draw two.", Priority.PENALTY)
    voice.speak("Noa is skipped.", Priority.INSTRUCTION)
    assert voice.wait(5)
    # the penalty cut the call off; the call, like the rest said before the card, is stale now
    assert speaker.cut == ["The red 5 leads. Dana starts."]
    assert speaker.said == ["Omer, draw two.", "Noa is skipped."]
    assert [d.split(": ", 1)[0] for d in voice.dropped] == ["stale", "stale"]


def test_a_cut_call_is_said_again_while_it_still_holds_and_a_win_always() -> None:
    speaker = RecordingSpeaker(seconds=0.3)
    voice = VoiceWorker(speaker, max_backlog_s=60)
    _hold(speaker, voice, "Omer, choose a colour.")
    voice.speak("Dana, draw four: no last-card call.", Priority.PENALTY)  # same moment: the call holds
    assert voice.wait(5)
    assert speaker.said == ["Dana, draw four: no last-card call.", "Omer, choose a colour."]
    voice.advance(2)  # both queued at an earlier moment: only the lasting one is said
    voice.speak("The colour is blue.", Priority.CALL, epoch=1)
    voice.speak("Dana wins the game!", Priority.CALL, epoch=1, lasting=True)
    assert voice.wait(5)
    assert speaker.said[2:] == ["Dana wins the game!"]


def test_a_new_penalty_cuts_a_long_hint() -> None:
    speaker = RecordingSpeaker(seconds=1.5)
    voice = VoiceWorker(speaker)
    voice.speak("Dana, match the green 7: a green card, the same symbol or any colourless card.", Priority.HINT)
    assert speaker.busy.wait(2)
    voice.speak("Dana, draw four: no last-card call.", Priority.PENALTY)
    assert voice.wait(2.6)  # the penalty's 1.5 s, not the hint's 1.5 s before it
    assert speaker.cut == ["Dana, match the green 7: a green card, the same symbol or any colourless card."]
    assert speaker.said == ["Dana, draw four: no last-card call."]


def test_the_queue_never_holds_more_than_three_seconds_of_speech_but_keeps_penalties() -> None:
    from companion.voice.worker import speech_seconds

    speaker = RecordingSpeaker(seconds=0.5)
    voice = VoiceWorker(speaker)
    _hold(speaker, voice, "Omer, choose a colour.")
    for i in range(6):
        voice.speak(f"Noa: red cards, then TAKI {i}.", Priority.INSTRUCTION)
        assert voice.backlog_seconds() <= 3.0  # instructions never pile up past three seconds
    voice.speak("Noa, draw two.", Priority.PENALTY)
    voice.speak("Eli, draw three.", Priority.PENALTY)
    assert voice.wait(10)
    assert "Noa, draw two." in speaker.said and "Eli, draw three." in speaker.said
    assert speech_seconds("Noa, draw two.") < 2
    assert any(d.startswith("backlog") for d in voice.dropped)


def test_over_three_seconds_sentences_are_said_short_before_anything_is_dropped() -> None:
    """The game's own long sentences (a card that cannot start the game, a refusal)
    fit the three seconds in their short form: said short when the queue is behind; a
    call that does not last is dropped only when shortening was not enough."""
    from companion.rules import Play, Reveal, apply, new_game
    from companion.rules.cards import Card
    from companion.voice.wording import sentences
    from companion.voice.worker import speech_seconds

    g = new_game(["Dana", "Omer", "Noa"])
    reveal = sentences(apply(g, Reveal(Card.from_code("GDIR"))))
    g = apply(g, Reveal(Card.from_code("R5"))).state
    refusal = sentences(apply(g, Play(Card.from_code("G7"))))  # does not match
    (again,), (wrong,) = reveal, refusal
    assert speech_seconds(again.text) > 3.0 and speech_seconds(wrong.text) > 3.0
    assert again.short == "Turn up another card." and wrong.short == "Dana, the green 7 does not match."

    speaker = RecordingSpeaker(seconds=0.5)
    voice = VoiceWorker(speaker)
    _hold(speaker, voice, "Omer, choose a colour.")
    voice.speak_all([again])
    assert voice.backlog_seconds() <= 3.0  # one long call alone is said short
    assert voice.wait(5)
    assert speaker.said[1:] == ["Turn up another card."]

    voice.speak("Omer, draw two.", Priority.PENALTY)  # a penalty being said...
    assert speaker.busy.wait(2)
    voice.speak("The colour is blue.", Priority.CALL)  # ...a call waiting...
    voice.speak_all([wrong])  # ...and a refusal: both in full would be 11 s
    assert voice.backlog_seconds() == speech_seconds(wrong.short or "", voice.per_word)  # only the short refusal
    assert voice.wait(10)
    assert speaker.said[2:] == ["Omer, draw two.", "Dana, the green 7 does not match."]
    assert "backlog: The colour is blue." in voice.dropped  # a call that does not last goes last


def test_a_short_queue_keeps_the_whole_sentence() -> None:
    from companion.voice import Line

    speaker = RecordingSpeaker(seconds=0.3)
    voice = VoiceWorker(speaker)  # nothing being said: the sentence starts at once, whole
    voice.speak_all([Line("Red TAKI, Dana: red cards, then closed TAKI.", short="Red TAKI, Dana.")])
    assert voice.wait(5)
    _hold(speaker, voice, "Omer, choose a colour.")  # one short sentence waiting: whole too
    voice.speak_all([Line("The colour is red, Dana.", short="Red.")])
    assert voice.wait(5)
    assert speaker.said == ["Red TAKI, Dana: red cards, then closed TAKI.", "Omer, choose a colour.",
                            "The colour is red, Dana."]
    assert not any(d.startswith("shortened") for d in voice.dropped)


def test_every_sentence_is_whole_with_numbers_in_words() -> None:
    """Wording fixes from the issue, one per sentence shape."""
    from companion.rules import CorrectCount, Draw, Play, Reveal, apply, new_game
    from companion.rules.cards import Card

    C = Card.from_code
    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(C("R5"))).state  # the first card turned up
    step = apply(g, CorrectCount(0, 1))
    assert [s.text for s in sentences(step)] == ["Dana now holds one card."]  # not "one cards"
    assert [s.text for s in sentences(apply(g, CorrectCount(0, 3)))] == ["Dana now holds three cards."]
    g2 = apply(apply(g, CorrectCount(0, 2)).state, Play(C("R7"))).state
    said = sentences(apply(g2, Draw()))  # Omer moves on; Dana had not called last card
    assert said[0][:2] == ("Dana, draw four: no last-card call.", Priority.PENALTY)
    for text, *_ in said:
        assert text.count(".") + text.count("!") + text.count("?") >= 1 and text[-1] in ".!?"
    plus = apply(apply(g, CorrectCount(0, 1)).state, Play(C("RPLUS")))  # Dana's last card is a Plus
    spoken = [s.text for s in sentences(plus)]
    assert "Dana, nobody finishes on a Plus: draw a card." in spoken
    assert not any("play another card" in t for t in spoken)
    stack = apply(g, Play(C("R+2")))
    assert ("Omer: plus two or King, or draw two.", Priority.INSTRUCTION) in [s[:2] for s in sentences(stack)]
    assert whole_sentence("a breaker played against no plus three") == "A breaker played against no plus three."


def test_an_out_of_turn_breaker_says_whose_turn_it_is() -> None:
    from companion.rules import Play, Reveal, apply, new_game
    from companion.rules.cards import Card

    C = Card.from_code
    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(C("R5"))).state
    g = apply(g, Play(C("+3"))).state  # Dana throws a +3: everyone else draws three unless broken
    step = apply(g, Play(C("BREAKER"), 2))  # Noa breaks it from across the table
    spoken = [s.text for s in sentences(step)]
    assert spoken[0] == "Broken! Dana, draw three."
    assert spoken[-1].endswith("your turn.")


def test_no_audio_output_is_said_once_and_a_penalty_cuts_playback(tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is installed by .ci/run")
    import os
    import time

    from companion.voice import SpeechUnavailable

    broken = tmp_path / "noplay"
    broken.write_text("#!/bin/sh\necho 'aplay: main:831: audio open error: No such file or directory' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(SpeechUnavailable, match="no audio output works"):
        Pyttsx3Speaker(player=(str(broken),)).say("Omer, draw two.")
    errors: list[str] = []
    voice = VoiceWorker(Pyttsx3Speaker(player=(str(broken),)), on_error=errors.append)
    voice.speak("Omer, draw two.", Priority.PENALTY)
    voice.speak("Noa is skipped.")
    assert voice.wait(20)
    assert len(errors) == 1 and "no audio output" in errors[0]  # said once; the rest quietly dropped
    slow = tmp_path / "slowplay"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    speaker = Pyttsx3Speaker(player=(str(slow),))
    t = threading.Timer(1.5, speaker.stop)
    t.start()
    t0 = time.monotonic()
    speaker.say("Dana, match the green 7: a green card, the same symbol or any colourless card.")
    assert time.monotonic() - t0 < 10 and os.path.exists(str(slow))  # stopped, not the 30 s


def test_a_plus_three_settled_replaces_its_announcement() -> None:
    """D-PLUS3-2 / R-BREAK-1: "Broken! Dana, draw three." says all the +3 window said,
    so it cuts the window's sentence off rather than waiting for its end."""
    from companion.rules import Play, Reveal, apply, new_game
    from companion.rules.cards import Card

    C = Card.from_code
    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(C("R5"))).state
    thrown = apply(g, Play(C("+3")))
    window = sentences(thrown)
    assert [(s.priority, s.topic) for s in window if "Plus three" in s.text] == [(Priority.PENALTY, "plus3")]
    broken = sentences(apply(thrown.state, Play(C("BREAKER"), 2)))
    assert broken[0].supersedes == "plus3" and broken[0].text.startswith("Broken!")

    speaker = RecordingSpeaker(seconds=1.5)
    voice = VoiceWorker(speaker)
    voice.speak_all(window)
    assert speaker.busy.wait(2)
    voice.speak_all(broken)
    assert voice.wait(4)  # 1.5 s each for the Breaker's two sentences, nothing of the window's rest
    assert speaker.cut == [window[0].text]
    assert speaker.said == [s.text for s in broken]

    queued = VoiceWorker(RecordingSpeaker(seconds=1.0))
    _hold(queued.speaker, queued, "Omer, choose a colour.")  # type: ignore[arg-type]
    queued.speak_all(window)  # still waiting when the +3 is settled: never said at all
    queued.speak_all(broken)
    assert queued.wait(6)
    assert window[0].text not in queued.speaker.said  # type: ignore[attr-defined]
    assert any(d.startswith("superseded") for d in queued.dropped)
    voice.stop(), queued.stop()


def test_one_cards_penalties_are_one_announcement() -> None:
    """R-BREAK-2 and R-CALL-LAST on one card: both said in one short utterance that
    starts at once, not the second queued as news behind the first."""
    from companion.rules import CorrectCount, Play, Reveal, apply, new_game
    from companion.rules.cards import Card

    C = Card.from_code
    g = apply(new_game(["Dana", "Omer", "Noa"]), Reveal(C("R5"))).state
    g = apply(apply(g, CorrectCount(0, 2)).state, Play(C("R7"))).state  # Dana down to one, no call
    said = sentences(apply(g, Play(C("BREAKER"))))  # Omer plays a Breaker against no +3
    penalties = [s for s in said if s.priority == Priority.PENALTY]
    assert len(penalties) == 1
    assert penalties[0].text == "Dana, draw four. Omer, draw three."  # the reasons are on the screen
    from companion.voice.worker import speech_seconds

    assert speech_seconds(penalties[0].text) <= 3.0


def test_a_newer_cards_penalty_waits_at_most_until_the_older_one_is_heard() -> None:
    """Penalties never wait long: a newer card's penalty cuts an older card's penalty
    once its first PENALTY_HEARD_S (who draws how many) are said; the newer is then said."""
    import time

    from companion.voice.worker import PENALTY_HEARD_S

    speaker = RecordingSpeaker(seconds=4.0)
    voice = VoiceWorker(speaker)
    voice.advance(1)
    t0 = time.monotonic()
    voice.speak("Dana, draw four: no last-card call, and the rest of a long reason.", Priority.PENALTY)
    assert speaker.busy.wait(2)
    voice.advance(2)  # the next card
    voice.speak("Omer, draw two.", Priority.PENALTY)
    deadline = time.monotonic() + 3.5
    while not speaker.cut and time.monotonic() < deadline:
        time.sleep(0.01)
    cut_after = time.monotonic() - t0
    assert speaker.cut == ["Dana, draw four: no last-card call, and the rest of a long reason."]
    assert PENALTY_HEARD_S - 0.1 <= cut_after <= PENALTY_HEARD_S + 0.4
    voice.stop()


def test_a_sentence_whose_moment_has_passed_is_cut_when_the_queue_is_behind() -> None:
    """The table moved on while an instruction is still being said ("Noa: any card, or
    end your turn." after Noa played): a new instruction that would wait past three
    seconds cuts it off instead of queueing behind it."""
    speaker = RecordingSpeaker(seconds=1.5)
    voice = VoiceWorker(speaker)
    voice.speak("Noa: any card, or end your turn.", Priority.INSTRUCTION, epoch=0)
    assert speaker.busy.wait(2)
    voice.advance(1)  # Noa played: the sentence being said is stale, but a short queue lets it end
    voice.speak("Eli may go on.", Priority.INSTRUCTION, epoch=1)
    assert voice.backlog_seconds() <= 3.0 and "cut, stale: Noa: any card, or end your turn." not in voice.dropped
    voice.speak("Omer: plus two or draw two.", Priority.INSTRUCTION, epoch=1)  # both would wait 4.9 s
    assert "cut, stale: Noa: any card, or end your turn." in voice.dropped
    assert voice.backlog_seconds() <= 3.0
    assert voice.wait(5)
    assert speaker.said == ["Eli may go on.", "Omer: plus two or draw two."]  # nothing new was dropped
