"""Frame sources: files, folders, and a camera that is unplugged mid-game."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.sources import (
    CameraSource,
    ImageFolderSource,
    SourceError,
    VideoFileSource,
    frames,
    open_source,
)


class FakeCapture:
    """A VideoCapture stand-in: delivers frames while its cable is plugged in."""

    plugged = True

    def __init__(self, device: object) -> None:
        self.ok = FakeCapture.plugged

    def isOpened(self) -> bool:  # noqa: N802
        return self.ok

    def set(self, *a: object) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not FakeCapture.plugged:
            return False, None
        return True, np.zeros((48, 64, 3), np.uint8)

    def release(self) -> None:
        pass


def test_camera_unplugged_is_reported_and_reconnected() -> None:
    now = [0.0]
    FakeCapture.plugged = True
    cam = CameraSource(0, retry_s=1.0, clock=lambda: now[0], opener=FakeCapture)
    assert cam.read() is not None and cam.status == "ok"
    FakeCapture.plugged = False  # the cable comes out
    assert cam.read() is None and cam.status == "lost"
    now[0] = 0.5
    assert cam.read() is None  # waits before retrying
    FakeCapture.plugged = True
    now[0] = 1.6
    frame = cam.read()
    assert frame is not None and cam.status == "ok"
    assert [s for _, s in cam.events] == ["ok", "lost", "ok"]


def test_no_camera_at_all_is_an_error() -> None:
    FakeCapture.plugged = False
    with pytest.raises(SourceError):
        CameraSource(3, opener=FakeCapture)
    FakeCapture.plugged = True


def test_video_file_and_image_folder(tmp_path: Path) -> None:
    vw = cv2.VideoWriter(str(tmp_path / "v.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 5, (64, 48))
    for i in range(7):
        vw.write(np.full((48, 64, 3), i * 30, np.uint8))
    vw.release()
    got = list(frames(VideoFileSource(tmp_path / "v.mp4")))
    assert len(got) == 7 and got[-1].t == pytest.approx(6 / 5)
    folder = tmp_path / "imgs"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((20, 20, 3), i, np.uint8))
    (folder / "3.png").write_bytes(b"not an image")  # skipped, not fatal
    assert [f.index for f in frames(ImageFolderSource(folder))] == [0, 1, 2]
    assert isinstance(open_source(str(folder)), ImageFolderSource)
    with pytest.raises(SourceError):
        open_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(SourceError):
        open_source("what is this")
