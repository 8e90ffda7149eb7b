"""Frame sources behind one interface: USB camera, video file, image folder, Pi camera.

A source's ``read()`` returns a :class:`Frame` or ``None`` (nothing now). A camera
that disappears mid-game is reported through ``status`` and re-opened every
``retry_s`` seconds; the game itself lives elsewhere and loses nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm"}


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray  # BGR
    t: float  # seconds since the source started (video time for files)
    index: int


class FrameSource(Protocol):
    name: str
    status: str  # "ok", "lost", "ended"

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class SourceError(RuntimeError):
    """A source that cannot be opened at all (bad path, no such device)."""


class _Reconnecting:
    """What both cameras share: status changes kept as timed events, and a lost
    device re-opened every ``retry_s`` seconds (``_dev`` is None while lost)."""

    status: str
    events: list[tuple[float, str]]
    clock: Callable[[], float]
    retry_s: float
    _t0: float
    _next_try: float
    _dev: object | None

    def _open(self) -> None: ...

    def close(self) -> None: ...

    def _set(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self.events.append((self.clock() - self._t0, status))

    def _connected(self, now: float) -> bool:
        """Whether a device is open, re-opening it first when a retry is due."""
        if self._dev is None and now >= self._next_try:
            self._next_try = now + self.retry_s
            self._open()
        return self._dev is not None

    def _lost(self, now: float) -> None:
        self.close()
        self._next_try = now + self.retry_s
        self._set("lost")


class CameraSource(_Reconnecting):
    """OpenCV VideoCapture on a device index or path, reconnecting when unplugged."""

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None,
                 fps: float | None = None, retry_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic,
                 opener: Callable[[int | str], cv2.VideoCapture] = cv2.VideoCapture) -> None:
        self.device, self.width, self.height, self.fps = device, width, height, fps
        self.retry_s, self.clock, self.opener = retry_s, clock, opener
        self.name = f"camera {device}"
        self.status = "lost"
        self.events: list[tuple[float, str]] = []  # (t, "lost" | "ok"), for the screen and log
        self._t0 = clock()
        self._index = 0
        self._dev: cv2.VideoCapture | None = None
        self._next_try = 0.0
        self._open()
        if self._dev is None:
            raise SourceError(f"no camera at {device!r}")

    def _open(self) -> None:
        cap = self.opener(self.device)
        if cap is None or not cap.isOpened():
            self._dev = None
            return
        for prop, value in ((cv2.CAP_PROP_FRAME_WIDTH, self.width), (cv2.CAP_PROP_FRAME_HEIGHT, self.height),
                            (cv2.CAP_PROP_FPS, self.fps)):
            if value:
                cap.set(prop, value)
        self._dev = cap
        self._set("ok")

    def read(self) -> Frame | None:
        now = self.clock()
        if not self._connected(now):
            return None
        assert self._dev is not None
        ok, img = self._dev.read()
        if not ok or img is None:
            self._lost(now)
            return None
        self._index += 1
        return Frame(img, now - self._t0, self._index - 1)

    def close(self) -> None:
        if self._dev is not None:
            self._dev.release()
            self._dev = None


class VideoFileSource:
    """Frames of a video file, timed by the file's own frame rate (or ``fps``)."""

    def __init__(self, path: str | Path, fps: float | None = None, loop: bool = False) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise SourceError(f"no video file at {self.path}")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"{self.path} is not a video OpenCV can read")
        self.fps = fps or self._cap.get(cv2.CAP_PROP_FPS) or 10.0
        self.loop = loop
        self.name = self.path.name
        self.status = "ok"
        self._index = 0
        self._offset = 0.0

    def read(self) -> Frame | None:
        if self.status == "ended":
            return None
        ok, img = self._cap.read()
        if not ok:
            if self.loop and self._index:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, img = self._cap.read()
            if not ok:
                self.status = "ended"
                return None
        f = Frame(img, self._index / self.fps, self._index)
        self._index += 1
        return f

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource:
    """The images of a folder in name order, as frames ``1/fps`` apart."""

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) \
            if self.folder.is_dir() else []
        if not self.files:
            raise SourceError(f"no images in {self.folder}")
        self.fps, self.name, self.status = fps, self.folder.name, "ok"
        self._i = 0

    def read(self) -> Frame | None:
        while self._i < len(self.files):
            p = self.files[self._i]
            self._i += 1
            img = cv2.imread(str(p))
            if img is not None:  # an unreadable file is skipped, not fatal
                return Frame(img, (self._i - 1) / self.fps, self._i - 1)
        self.status = "ended"
        return None

    def close(self) -> None:
        pass


class PiCameraSource(_Reconnecting):
    """The Raspberry Pi camera through picamera2, when it is installed.

    Like :class:`CameraSource`, a camera that stops delivering (ribbon cable
    loose, libcamera error) is reported "lost" and re-opened every ``retry_s``."""

    def __init__(self, width: int = 640, height: int = 480, retry_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as e:
            raise SourceError("picamera2 is not installed (it comes with Raspberry Pi OS)") from e
        self._factory, self.width, self.height = Picamera2, width, height
        self.retry_s, self.clock = retry_s, clock
        self.name, self.status = "pi camera", "lost"
        self.events: list[tuple[float, str]] = []
        self._t0, self._i, self._next_try = clock(), 0, 0.0
        self._dev = None
        self._open()
        if self._dev is None:
            raise SourceError("the Pi camera did not start (is it connected and enabled?)")

    def _open(self) -> None:
        try:
            cam = self._factory()
            # picamera2's "RGB888" is B, G, R in memory: what OpenCV expects.
            cam.configure(cam.create_preview_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"}))
            cam.start()
        except Exception:
            self._dev = None
            return
        self._dev = cam
        self._set("ok")

    def read(self) -> Frame | None:
        now = self.clock()
        if not self._connected(now):
            return None
        try:
            img = self._dev.capture_array()  # type: ignore[union-attr]
        except Exception:
            self._lost(now)
            return None
        self._i += 1
        return Frame(img, now - self._t0, self._i - 1)

    def close(self) -> None:
        cam, self._dev = self._dev, None
        if cam is not None:
            try:
                cam.stop()
                cam.close()
            except Exception:  # an unplugged camera may fail to stop; it is gone either way
                pass


def open_camera(spec: str | int | None = None) -> FrameSource:
    """The kiosk's ``--camera``: an index (default 0), a ``/dev/video*`` path, or
    ``picamera`` (the Raspberry Pi camera through picamera2)."""
    if spec is None:
        return CameraSource(0)
    if isinstance(spec, int) or str(spec).isdigit():
        return CameraSource(int(spec))
    if spec == "picamera":
        return PiCameraSource()
    return CameraSource(spec)


def open_source(spec: str, **kw: object) -> FrameSource:
    """``"0"``/``"/dev/video0"``: a camera; a video file; a folder of images; ``"picamera"``."""
    if spec == "picamera":
        return PiCameraSource()
    if spec.isdigit():
        return CameraSource(int(spec), **kw)  # type: ignore[arg-type]
    p = Path(spec)
    if p.is_dir():
        return ImageFolderSource(p)
    if p.suffix.lower() in VIDEO_SUFFIXES:
        return VideoFileSource(p)
    if spec.startswith("/dev/"):
        return CameraSource(spec, **kw)  # type: ignore[arg-type]
    raise SourceError(f"{spec!r} is no camera, video file or image folder")


def frames(source: FrameSource) -> Iterator[Frame]:
    """Every frame until the source ends (a lost camera just yields nothing meanwhile)."""
    while source.status != "ended":
        f = source.read()
        if f is not None:
            yield f
        elif source.status == "ended":
            return
        else:
            time.sleep(0.01)
