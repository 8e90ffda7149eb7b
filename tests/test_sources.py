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


class FakePicamera2:
    """picamera2.Picamera2 stand-in: frames while the ribbon cable is seated."""

    seated = True

    def __init__(self) -> None:
        if not FakePicamera2.seated:
            raise RuntimeError("Camera __init__ sequence did not complete.")
        self.config: dict | None = None

    def create_preview_configuration(self, main: dict) -> dict:
        return {"main": main}

    def configure(self, config: dict) -> None:
        self.config = config

    def start(self) -> None:
        pass

    def capture_array(self) -> np.ndarray:
        if not FakePicamera2.seated:
            raise RuntimeError("Failed to capture: device lost")
        w, h = self.config["main"]["size"]  # type: ignore[index]
        return np.zeros((h, w, 3), np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_pi_camera_through_picamera2_reports_and_recovers(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    from companion.vision.sources import PiCameraSource

    now = [0.0]
    FakePicamera2.seated = True
    cam = open_source("picamera")
    assert isinstance(cam, PiCameraSource)
    cam = PiCameraSource(320, 240, retry_s=1.0, clock=lambda: now[0])
    frame = cam.read()
    assert frame is not None and frame.image.shape == (240, 320, 3) and cam.status == "ok"
    FakePicamera2.seated = False
    assert cam.read() is None and cam.status == "lost"
    now[0] = 1.2
    assert cam.read() is None and cam.status == "lost"  # retried, still out
    FakePicamera2.seated = True
    now[0] = 2.5
    assert cam.read() is not None and cam.status == "ok"
    assert [s for _, s in cam.events] == ["ok", "lost", "ok"]
    FakePicamera2.seated = False
    with pytest.raises(SourceError, match="did not start"):
        PiCameraSource()
    FakePicamera2.seated = True


def test_no_picamera2_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    with pytest.raises(SourceError, match="picamera2 is not installed"):
        open_source("picamera")


def test_a_camera_driver_that_raises_does_not_kill_the_vision_worker() -> None:
    """Issue 12: one exception from a source used to end the vision thread for good
    while the screen looked alive. Now it is said, retried, and frames flow again."""
    import time

    from companion.referee.session import VisionWorker
    from companion.vision.sources import Frame

    class Flaky:
        status, name = "ok", "flaky"

        def __init__(self) -> None:
            self.calls = 0

        def read(self) -> Frame | None:
            self.calls += 1
            if self.calls == 3:
                raise OSError("USB transfer failed")
            return Frame(np.zeros((64, 64, 3), np.uint8), self.calls / 100, self.calls)

        def close(self) -> None:
            pass

    class NoCards:
        def detect(self, image: np.ndarray) -> list:  # type: ignore[type-arg]
            return []

    class Tracker:
        last_reading = None

        def __init__(self) -> None:
            self.frames = 0

        def update(self, image, t, dets):  # type: ignore[no-untyped-def]
            self.frames += 1
            return []

    source, tracker = Flaky(), Tracker()
    worker = VisionWorker(source, NoCards(), tracker, realtime=False).start()
    deadline = time.monotonic() + 5
    while tracker.frames < 10 and time.monotonic() < deadline:
        time.sleep(0.02)
    worker.stop()
    assert tracker.frames >= 10  # it carried on after the error
    said = []
    while not worker.out.empty():
        said.append(worker.out.get()[1])
    assert any("Camera error (OSError)" in str(m) for m in said) and "ok" in said


def test_a_failing_card_reader_is_said_once_not_once_a_frame() -> None:
    """Issue 12: the reader raising on every frame is one message on screen (then 'ok'
    when it reads again), not a message and an 'ok' flickering each frame."""
    import time

    from companion.referee.session import VisionWorker
    from companion.vision.sources import Frame

    class Steady:
        status, name = "ok", "steady"

        def __init__(self) -> None:
            self.i = 0

        def read(self) -> Frame:
            self.i += 1
            return Frame(np.zeros((64, 64, 3), np.uint8), self.i / 100, self.i)

        def close(self) -> None:
            pass

    class Broken:
        calls = 0

        def detect(self, image: np.ndarray) -> list:  # type: ignore[type-arg]
            Broken.calls += 1
            if Broken.calls <= 20:
                raise RuntimeError("model file damaged")
            return []

    class Tracker:
        last_reading = None
        frames = 0

        def update(self, image, t, dets):  # type: ignore[no-untyped-def]
            Tracker.frames += 1
            return []

    worker = VisionWorker(Steady(), Broken(), Tracker(), realtime=False).start()
    deadline = time.monotonic() + 5
    while Tracker.frames < 30 and time.monotonic() < deadline:
        time.sleep(0.02)
    worker.stop()
    said = []
    while not worker.out.empty():
        said.append(worker.out.get()[1])
    assert said == ["ok", "Card reader error (RuntimeError): the game is kept; enter cards by hand if need be.",
                    "ok"]


def test_the_kiosk_camera_option_opens_the_pi_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    """`taki-companion --camera picamera` (Raspberry Pi guide): picamera2, not V4L2."""
    import sys
    import types

    from companion.vision.sources import PiCameraSource, SourceError, open_camera

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    FakePicamera2.seated = True
    cam = open_camera("picamera")
    assert isinstance(cam, PiCameraSource) and cam.read() is not None
    cam.close()
    with pytest.raises(SourceError):
        open_camera("7")  # no such camera: said, not the demo in its place
