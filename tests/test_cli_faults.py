"""Issue 12: a source or model asked for that cannot be used is said in one line
(exit code 2), never a traceback, and the demo never stands in for a real game."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.vision.detector import MODELS_DIR


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "KIVY_NO_ARGS": "1"})


def test_a_missing_camera_is_said_and_no_demo_is_played_instead() -> None:
    done = _run("--camera", "7", "--windowed", "--mute")
    assert done.returncode == 2
    assert "no camera at 7" in done.stderr and "start it with --demo" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_missing_or_unreadable_video_is_said(tmp_path: Path) -> None:
    done = _run("--video", str(tmp_path / "gone.mp4"), "--windowed", "--mute")
    assert done.returncode == 2 and "no video file at" in done.stderr
    text = tmp_path / "notes.mp4"
    text.write_text("this is not a video")
    done = _run("--video", str(text), "--windowed", "--mute")
    assert done.returncode == 2 and "is not a video" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not (MODELS_DIR / "taki-yolov8n_ncnn_model").exists(), reason="no NCNN model shipped")
def test_a_damaged_ncnn_model_is_reported_not_raised(tmp_path: Path) -> None:
    from companion.ui.main import Controller

    model = tmp_path / "taki-yolov8n_ncnn_model"
    shutil.copytree(MODELS_DIR / "taki-yolov8n_ncnn_model", model)
    param = model / "model.ncnn.param"
    lines = param.read_text().splitlines()
    param.write_text("\n".join(lines[: len(lines) // 2]) + "\n")  # half the layers gone
    ctl = Controller(argparse.Namespace(model=str(model), classifier="auto", deck=None, video=None))
    ctl.load_detector()
    assert ctl.detector is None and ctl.detector_error


def test_a_real_game_without_a_camera_is_never_fed_the_demo() -> None:
    """The demo is decided before a game begins; a real game whose camera cannot be
    opened gets no camera reading and says so, rather than the demo clip's cards."""
    from companion.ui.main import Controller
    from companion.vision.sources import CameraSource, SourceError

    try:
        CameraSource(0).close()
        pytest.skip("this machine has a camera 0")
    except SourceError:
        pass
    ctl = Controller(argparse.Namespace(video=None, camera=None, demo=False))
    source, note = ctl._source()
    assert source is None and not ctl.demo
    assert "no camera at 0" in note and "cards are not read in this game" in note
