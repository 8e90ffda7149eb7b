"""The kiosk's command-line options (no kivy import here: the CLI loads it for every command)."""

from __future__ import annotations

import argparse


def add_app_arguments(p: argparse.ArgumentParser, default_journal: str) -> None:
    g = p.add_argument_group("the kiosk app (no sub-command)")
    g.add_argument("--camera", help="camera index, /dev/videoN, or picamera (the Raspberry Pi camera through "
                                    "picamera2); default: the first camera, else the demo")
    g.add_argument("--video", help="referee a video file instead of a camera")
    g.add_argument("--demo", action="store_true", help="run the bundled demo game")
    g.add_argument("--no-camera", action="store_true",
                   help="referee by hand: no camera, no model; enter each card with 'Enter a card'")
    g.add_argument("--model", default=None,
                   help="card finder model: .onnx (the default) or *_ncnn_model run without torch; "
                        ".pt or *_openvino_model through ultralytics")
    g.add_argument("--classifier", default="auto",
                   help="face classifier behind the detector: auto (the shipped one of the same backend), "
                        "none, or a path")
    g.add_argument("--threads", type=int, default=1,
                   help="CPU threads for the card reader (default 1: as fast as 2 on 2 cores, and less CPU)")
    g.add_argument("--deck", default=None,
                   help="a deck profile folder (from `taki-companion enrol --out DECK`): read with what it learnt")
    g.add_argument("--enrol", action="store_true", help="open 'Learn a deck' (guided enrolment) at start")
    g.add_argument("--decks", default=None, help="folder of deck profiles (default: beside the journal)")
    g.add_argument("--enrol-from", default=None, help=argparse.SUPPRESS)  # an image folder as the camera (tests)
    g.add_argument("--journal", default=None, help=f"game journal (default {default_journal})")
    g.add_argument("--new-game", action="store_true", help="do not resume an unfinished game")
    g.add_argument("--players", help="start at once with these players, comma-separated, youngest first")
    g.add_argument("--tournament", action="store_true", help="with --players: an 8-stage tournament")
    g.add_argument("--teaching", action="store_true", help="teaching mode for children")
    g.add_argument("--mute", action="store_true", help="no speech")
    g.add_argument("--seat-angles", default=None,
                   help="where the players sit, so the camera names who played each card from the arm's "
                        "direction: 'even' (the first player at the bottom of the picture, the others clockwise) "
                        "or one angle per player in degrees (0 right, 90 bottom), e.g. '90,180,270,0'")
    g.add_argument("--language", default="en", choices=["en", "he", "sr", "te", "ur", "gd"],
                   help="what the referee speaks and shows: English, Hebrew, Serbian, Telugu, Urdu or "
                        "Scottish Gaelic (also on the setup screen)")
    g.add_argument("--windowed", action="store_true", help="a window instead of full screen")
    g.add_argument("--size", default="1280x800", help="window size with --windowed")
    g.add_argument("--board", default=None, help="event mode: the board's URL (taki-companion board)")
    g.add_argument("--event-key", default=None, help="event mode: the event's key")
    g.add_argument("--table", type=int, default=1, help="event mode: this kiosk's table number")
    g.add_argument("--export-dir", default=".", help="where standings exports go")
    # JSON [[seconds, action, args...], ...] run on the table screen (headless tests)
    g.add_argument("--ui-script", default=None, help=argparse.SUPPRESS)
    g.add_argument("--startup-log", default=None, help=argparse.SUPPRESS)  # JSON of start-up times (benchmark)
    g.add_argument("--exit-after", type=float, default=None, metavar="SECONDS",
                   help="close the app after this many seconds (for scripted checks and screenshots)")
    g.add_argument("--screenshot", default=None, metavar="FILE.png",
                   help="with --exit-after: save the window as a PNG just before closing")
    g.add_argument("--dump", default=None, help=argparse.SUPPRESS)


def app_argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the kiosk's options, in one sentence, or None. Checked before
    any window opens, so a bad option is said on the console instead of a traceback
    (or a game quietly resumed) once the kiosk is up."""
    import math
    import re

    players = getattr(args, "players", None)
    n = None
    if players is not None:
        names = [p.strip() for p in players.split(",")]
        if not any(names):
            return "--players names nobody: give 2 to 10 names, comma-separated (or leave it out)"
        if any(not p for p in names):
            return f"--players {players!r} has an empty name between its commas"
        if not 2 <= len(names) <= 10:
            return f"TAKI is for 2 to 10 players: --players names {len(names)}"
        seen: set[str] = set()
        for p in names:
            if p.casefold() in seen:
                return f"--players names {p} twice: give each player a name of their own"
            seen.add(p.casefold())
        n = len(names)
    angles = getattr(args, "seat_angles", None)
    if angles is not None and angles.strip() != "even":
        try:
            values = [float(a) for a in angles.split(",")]
        except ValueError:
            return f"--seat-angles {angles!r} is not 'even' or a list of degrees (e.g. 90,180,270,0)"
        if not all(math.isfinite(v) for v in values):
            return f"--seat-angles {angles!r}: every angle must be a number of degrees"
        if n is not None and len(values) != n:
            return f"--seat-angles gives {len(values)} seats for {n} players"
    size = getattr(args, "size", None)
    if size is not None:
        m = re.fullmatch(r"\s*(\d{2,5})\s*[xX]\s*(\d{2,5})\s*", str(size))
        if not m or not (320 <= int(m.group(1)) <= 7680 and 240 <= int(m.group(2)) <= 4320):
            return f"--size {size!r} is not a window size: WIDTHxHEIGHT, e.g. 1280x800"
    if getattr(args, "board", None):
        if not str(args.board).startswith(("http://", "https://")):
            return f"--board {args.board!r} needs its scheme: http://{args.board}"
        if not 1 <= int(getattr(args, "table", 1)) <= 999:
            return f"--table {args.table} is not a table number (1 to 999)"
    return None
