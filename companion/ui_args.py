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
    g.add_argument("--exit-after", type=float, default=None, help=argparse.SUPPRESS)
    g.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    g.add_argument("--dump", default=None, help=argparse.SUPPRESS)
