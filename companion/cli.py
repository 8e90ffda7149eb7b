"""The ``taki-companion`` command: sub-commands for each part of the project."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _selfplay(args: argparse.Namespace) -> int:
    from .rules.options import RuleSet
    from .rules.selfplay import POLICIES, play_game

    rules = RuleSet(tournament=args.tournament)
    wins = [0] * args.players
    events = 0
    for i in range(args.games):
        policies = [POLICIES[args.policy]() for _ in range(args.players)]
        result = play_game(args.players, args.seed + i, policies, rules)
        if result.winner is None:
            print(f"game {args.seed + i} did not finish in {result.events} events", file=sys.stderr)
            return 1
        wins[result.winner] += 1
        events += result.events
    print(f"{args.games} games, {args.players} players, {args.policy} policy, "
          f"{'tournament' if args.tournament else 'normal game'}: {events} events")
    for seat, w in enumerate(wins):
        print(f"  seat {seat + 1}: {w} wins")
    return 0


def _aspect(text: str) -> float:
    """A picture's shape: "16:9" or a number (width / height)."""
    try:
        w, _, h = text.partition(":")
        value = float(w) / float(h) if h else float(w)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a shape like 16:9 or 1.5") from None
    if not 0.2 <= value <= 5:
        raise argparse.ArgumentTypeError(f"{text!r}: a picture's shape must lie between 1:5 and 5:1")
    return value


def _dataset(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .synth.dataset import DatasetSpec, make_dataset

    counts = {k: v for k, v in (("train", args.train), ("val", args.val), ("test", args.test)) if v}
    if not counts:
        print("nothing to make: give --train, --val and/or --test counts", file=sys.stderr)
        return 2
    spec = DatasetSpec(Path(args.out), counts, args.seed, args.size,
                       Path(args.faces) if args.faces else None, styles=args.styles, outline=args.outline,
                       card_height=tuple(args.card_height) if args.card_height else None,
                       aspects=tuple(args.aspects))
    print(make_dataset(spec, workers=args.workers))
    return 0


def _faces(args: argparse.Namespace) -> int:
    from pathlib import Path

    import numpy as np

    from .synth.faces import export_faces, export_pdf
    from .synth.styles import PUBLISHED, sample_style

    out = Path(args.out)
    rng = np.random.default_rng(args.seed)
    style = {"published": PUBLISHED, "classic": None, "random": None, "held-out": None}[args.style]
    if args.style in ("random", "held-out"):
        style = sample_style(rng, held_out=args.style == "held-out")
    print(f"{len(export_faces(out, style=style))} faces in {out} ({args.style} style)")
    print(f"{export_pdf(out / 'taki-deck.pdf', style=style)} pages in {out / 'taki-deck.pdf'}")
    return 0


def _enrol(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from .training.deck_prototypes import write_profile
    from .training.enrol import enrol
    from .vision.detector import ModelError

    if not Path(args.src).is_dir():
        print(f"taki-companion enrol: no folder {args.src}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    deck = Path(args.out)
    if deck.exists() and not deck.is_dir():
        print(f"taki-companion enrol: --out {deck} is a file, not a folder: name a new folder", file=sys.stderr)
        return 2
    try:
        (deck / "faces").mkdir(parents=True, exist_ok=True)
        report = enrol(Path(args.src), deck / "faces")
    except ModelError as e:
        print(f"taki-companion enrol: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"taki-companion enrol: cannot write the deck profile at {deck} ({e.strerror or e})", file=sys.stderr)
        return 2
    print(f"{len(report.enrolled)} faces enrolled into {deck / 'faces'}")
    for what, why in report.failed.items():
        print(f"  {what}: {why}", file=sys.stderr)
    for what, why in (report.warnings or {}).items():
        print(f"  {what} (kept): {why}", file=sys.stderr)
    if not report.enrolled:
        if not report.failed:
            print(f"taki-companion enrol: {args.src} holds no photos or clips named by face "
                  f"(photos/R7.jpg, photos/R7/1.jpg, photos/red_7.mp4, ...)", file=sys.stderr)
        return 1
    if args.faces_only:
        return 0
    try:
        write_profile(deck, report.shots or {}, name=args.name, quality=report.quality or {},
                      retake=report.warnings or {})
    except ModelError as e:
        print(f"taki-companion enrol: {e}", file=sys.stderr)
        return 2
    print(f"deck profile ready in {time.monotonic() - t0:.0f} s: {deck} (use it with --deck {deck})")
    if args.fine_tune:
        return _learn(deck, args.name, report.quality or {}, 8, report.warnings or {})
    return 0


def _learn(deck, name, quality, epochs, retake=None) -> int:  # type: ignore[no-untyped-def]
    import time

    try:
        from .training.fewshot import LearnSpec, learn_deck
        import ultralytics  # noqa: F401
    except ImportError:
        print("taki-companion: the fine-tune needs the full install (pip install '.[train]'); "
              "the deck's prototypes read without it", file=sys.stderr)
        return 2
    t0 = time.monotonic()

    def progress(what: str, share: float) -> None:
        print(f"  [{100 * share:3.0f}%] {what} ({time.monotonic() - t0:.0f} s)", flush=True)

    learn_deck(deck / "faces", deck, name, LearnSpec(epochs=epochs), progress, quality, retake=retake)
    print(f"deck profile ready: {deck} (use it with --deck {deck})")
    return 0


def _learn_deck(args: argparse.Namespace) -> int:
    from pathlib import Path

    deck = Path(args.deck)
    if not (deck / "faces").is_dir():
        print(f"taki-companion learn-deck: {deck} has no faces/ folder (enrol the deck first)", file=sys.stderr)
        return 2
    return _learn(deck, args.name, {}, args.epochs)


def _train(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .training.train import TrainSpec, train

    spec = TrainSpec(Path(args.data), Path(args.run), arch=args.arch, epochs=args.epochs, imgsz=args.imgsz,
                     batch=args.batch, hours=args.hours, device=args.device, workers=args.workers,
                     lr0=args.lr0, warmup_epochs=args.warmup, single_cls=args.single_cls,
                     task="segment" if args.segment else "detect")
    print(train(spec))
    return 0


def _crops(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .rules.cards import FACES, Card, CardParseError
    from .synth.crops import make_crops, make_scene_crops
    from .synth.scene import SceneConfig
    from .training.evaluate import split_images
    from .vision.crops import CROP_SIZE

    size = args.crop_size or CROP_SIZE

    if args.scenes:
        try:
            faces = [FACES.index(Card.from_code(f)) for f in args.faces] if args.faces else None
        except CardParseError as e:
            print(f"--faces: {e}", file=sys.stderr)
            return 2
        config = SceneConfig.varied(args.size, args.styles, turned_69=args.turned_69)
        n = make_scene_crops(Path(args.out), args.splits[0], args.scenes, args.seed, config, args.per_image,
                             args.workers, faces, size)
        print(f"{args.splits[0]}: {n} crops from {args.scenes} new {args.styles}-style scenes into {args.out}")
        return 0
    if not args.data:
        print("give --data D/data.yaml (crops of a dataset's scenes) or --scenes N (new scenes)", file=sys.stderr)
        return 2
    if args.turned_69:
        print("--turned-69 draws new scenes' looks: give it with --scenes N (a dataset's scenes are drawn already)",
              file=sys.stderr)
        return 2
    for i, split in enumerate(args.splits):
        images = split_images(Path(args.data), split)
        n = make_crops(images, Path(args.out), split, seed=args.seed + i,
                       per_image=args.per_image if split == "train" else 1, size=size)
        print(f"{split}: {n} crops from {len(images)} scenes into {args.out}")
    return 0


def _train_classifier(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .training.train import ClassifierSpec, train_classifier

    spec = ClassifierSpec(Path(args.data), Path(args.run), arch=args.arch, lr0=args.lr0, epochs=args.epochs,
                          imgsz=args.imgsz,
                          batch=args.batch, device=args.device, workers=args.workers, hours=args.hours)
    print(train_classifier(spec))
    return 0


def default_journal() -> str:
    import os
    from pathlib import Path

    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return str(base / "taki-companion" / "journal.db")


def _open_journal(path: str):  # type: ignore[no-untyped-def]
    from pathlib import Path

    from .store import Journal, JournalError

    if not Path(path).exists():
        print(f"no journal at {path}", file=sys.stderr)
        return None
    if Path(path).is_dir():
        print(f"{path} is a folder, not a journal", file=sys.stderr)
        return None
    if Path(path).stat().st_size == 0:
        print(f"{path} is empty: it is not a journal (nothing was changed)", file=sys.stderr)
        return None
    try:
        return Journal(path)
    except JournalError as e:
        print(e, file=sys.stderr)
        return None


def _replay(args: argparse.Namespace) -> int:
    from .store import JournalError
    from .store.export import game_json, game_lines

    journal = _open_journal(args.db)
    if journal is None:
        return 2
    with journal:
        if args.game is None:
            for info in journal.games():
                state = "won by " + info.names[info.winner] if info.winner is not None else "unfinished"
                print(f"game {info.id}: {', '.join(info.names)} ({state})")
            return 0
        try:
            if args.json:
                text = game_json(journal, args.game)
                if args.json == "-":
                    print(text)
                else:
                    try:
                        with open(args.json, "w") as f:
                            f.write(text)
                    except IsADirectoryError:
                        print(f"--json {args.json} is a folder: name a file", file=sys.stderr)
                        return 2
                    except OSError as e:
                        print(f"cannot write {args.json} ({e.strerror or e})", file=sys.stderr)
                        return 2
                    print(f"game {args.game} written to {args.json}")
            else:
                for line in game_lines(journal, args.game):
                    print(line)
        except JournalError as e:
            print(e, file=sys.stderr)
            return 2
    return 0


def _standings(args: argparse.Namespace) -> int:
    from .store import JournalError
    from .store.tournament import standings, to_csv, to_json

    journal = _open_journal(args.db)
    if journal is None:
        return 2
    with journal:
        if args.tournament is None:
            for tid, name in journal.tournaments():
                print(f"tournament {tid}: {name}")
            return 0
        try:
            rows = standings(journal, args.tournament)
        except JournalError as e:
            print(e, file=sys.stderr)
            return 2
    print(to_json(rows) if args.format == "json" else to_csv(rows), end="")
    return 0


def _eval(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict
    from pathlib import Path

    from .training.evaluate import evaluate
    from .vision.deck import DeckError
    from .vision.detector import ModelError

    try:
        result = evaluate(args.model, Path(args.data), args.split, args.imgsz, classifier=args.classifier,
                          deck=args.deck, runtime=args.runtime)
    except (ModelError, DeckError, FileNotFoundError, ValueError) as e:
        print(f"taki-companion eval: {e}", file=sys.stderr)
        return 2
    print(result.report())
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(result), indent=1))
    return 0


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .training.export import export_all

    for fmt, path in export_all(Path(args.weights), Path(args.out), args.imgsz, name=args.name).items():
        print(f"{fmt:9s} {path}")
    return 0


def _seat_turns(seed: int, plays: int, seats: int) -> list[int]:
    """Whose turn each play is: round the table, with one play in eight out of turn."""
    import random

    rng, turns, seat = random.Random(seed), [], 0
    for _ in range(plays):
        turns.append(seat if rng.random() > 0.125 else rng.randrange(seats))
        seat = (turns[-1] + 1) % seats
    return turns


def _track_eval(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from .synth.scene import Compositor, SceneConfig
    from .training.track_eval import OracleDetector, evaluate
    from .synth.video import synth_video

    comp = Compositor(config=SceneConfig(size=args.size, photometric=False))
    videos = [synth_video(args.seed + i, plays=args.plays, size=args.size, compositor=comp, seats=args.seats,
                          turns=_seat_turns(args.seed + i, args.plays, args.seats) if args.seats else None,
                          second_hand_p=0.15 if args.seats else 0.0)
              for i in range(args.videos)]
    if args.model == "oracle":
        def make(v):  # type: ignore[no-untyped-def]
            return OracleDetector(v, seed=v.seed)
    else:
        from .vision.classifier import load_reader

        det = load_reader(args.model, args.classifier, imgsz=args.imgsz)

        def make(v):  # type: ignore[no-untyped-def]
            return det
    score = evaluate(videos, make, zoom=args.model != "oracle" and not args.no_zoom, seats=args.seats)
    print(score.report())
    if args.seat_json:
        Path(args.seat_json).write_text(json.dumps(score.seats_json(), indent=1))
    return 0


STYLE_MODES = ("random", "held-out", "published", "classic", "any-deck", "foreign-held-out")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="taki-companion", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A camera referee for real TAKI games. With no sub-command, opens the kiosk app "
                    "(the bundled demo when no camera is attached).")
    from . import __version__

    p.add_argument("--version", action="version", version=f"taki-companion {__version__}")
    _add_app_arguments(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    helps: dict[str, str] = {}
    add_parser = sub.add_parser

    def listed(name: str, **kw):  # type: ignore[no-untyped-def]
        """A command, listed in the epilog under its heading instead of argparse's one list."""
        helps[name] = kw.pop("help", "")
        return add_parser(name, description=kw.pop("description", helps[name]), **kw)

    sub.add_parser = listed  # type: ignore[method-assign]
    sp = sub.add_parser("selfplay", help="play seeded simulated games and print a summary")
    sp.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    sp.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="2..10",
                    help="players per game (default 4)")
    sp.add_argument("--policy", choices=("random", "greedy"), default="random",
                    help="how every seat chooses its move (default random)")
    sp.add_argument("--seed", type=int, default=0, help="the first game's seed; game k uses seed + k")
    sp.add_argument("--tournament", action="store_true",
                    help="play 8-stage tournaments (R-TOUR-1) instead of single games")
    sp.set_defaults(func=_selfplay)

    dp = sub.add_parser("dataset", help="generate a synthetic YOLO dataset of discard piles")
    dp.add_argument("--out", required=True, help="the dataset's folder (made if missing)")
    dp.add_argument("--train", type=int, default=0, help="training scenes")
    dp.add_argument("--val", type=int, default=0, help="validation scenes")
    dp.add_argument("--test", type=int, default=0, help="test scenes")
    dp.add_argument("--seed", type=int, default=0, help="the first scene's seed")
    dp.add_argument("--size", type=int, default=416, help="scene side in pixels (default 416)")
    dp.add_argument("--faces", help="folder of enrolled face PNGs to use instead of rendered faces")
    dp.add_argument("--workers", type=int, default=2, help="processes drawing scenes (default 2)")
    dp.add_argument("--styles", choices=STYLE_MODES, default="random",
                    help="face styles: a new random look per scene (default; never the held-out glyph family), "
                         "held-out (the published block style in the held-out family only), published, "
                         "or classic (the first renderer, one look, plain tables)")
    dp.add_argument("--outline", action="store_true",
                    help="label the top card's outline (four corners, segmentation) for the card outliner")
    dp.add_argument("--card-height", type=float, nargs=2, metavar=("LO", "HI"),
                    help="the top card's height as a share of the scene's side (default 0.35 0.72)")
    dp.add_argument("--aspects", type=_aspect, nargs="+", default=[1.0], metavar="W:H",
                    help="picture shapes, one drawn per picture (e.g. 1 4:3 16:9 3:4 9:16); default square")
    dp.set_defaults(func=_dataset)

    fp = sub.add_parser("faces", help="render the 57 faces as PNGs and a printable PDF deck")
    fp.add_argument("--out", default="deck", help="the folder for the PNGs and the PDF (default deck)")
    fp.add_argument("--style", choices=STYLE_MODES, default="published",
                    help="the published deck's look (default), the classic first renderer, "
                         "or one random look (--seed) / one in the held-out glyph family")
    fp.add_argument("--seed", type=int, default=0, help="the look's seed with --style random")
    fp.set_defaults(func=_faces)

    ep = sub.add_parser("enrol", help="learn a physical deck from photos or clips of each face")
    ep.add_argument("--src", required=True, help="folder with <CODE>/ photo folders or <CODE>.mp4 clips")
    ep.add_argument("--out", required=True, help="the deck profile folder to write")
    ep.add_argument("--name", default=None, help="the deck's name (default: the folder's)")
    ep.add_argument("--faces-only", action="store_true",
                    help="only cut the faces out (OUT/faces); learn later with `learn-deck OUT`")
    ep.add_argument("--fine-tune", action="store_true",
                    help="also fine-tune the classifier on the deck (minutes; the full install only)")
    ep.set_defaults(func=_enrol)

    lp = sub.add_parser("learn-deck", help="fine-tune the classifier on an enrolled deck's faces (minutes, "
                                           "CPU, the full install; optional: its prototypes read without it)")
    lp.add_argument("deck", help="deck profile folder with faces/")
    lp.add_argument("--name", default=None,
                    help="the deck's name shown in the kiosk (default: its folder's name)")
    lp.add_argument("--epochs", type=int, default=8, help="fine-tune epochs (default 8)")
    lp.set_defaults(func=_learn_deck)

    tp = sub.add_parser("train", help="train the YOLO detector offline (resumes a stopped run)")
    tp.add_argument("--data", required=True, help="data.yaml of a generated dataset")
    tp.add_argument("--run", default="runs/taki",
                    help="the run's folder: checkpoints and results (use runs/..., which git ignores)")
    tp.add_argument("--arch", default="yolov8n.yaml",
                    help="model .yaml, or .pt weights of ours to start from")
    tp.add_argument("--epochs", type=int, default=30, help="epochs at most (default 30)")
    tp.add_argument("--imgsz", type=int, default=192, help="input size in pixels (default 192)")
    tp.add_argument("--batch", type=int, default=16, help="batch size (default 16)")
    tp.add_argument("--hours", type=float, default=None,
                    help="stop after this many hours (the run resumes later)")
    tp.add_argument("--lr0", type=float, default=0.001, help="AdamW learning rate (lower to fine-tune)")
    tp.add_argument("--warmup", type=float, default=1.0, help="warm-up epochs")
    tp.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    tp.add_argument("--workers", type=int, default=2, help="data-loader processes (default 2)")
    tp.add_argument("--single-cls", action="store_true",
                    help="one class, the card: a face-agnostic finder for the two-stage reader")
    tp.add_argument("--segment", action="store_true",
                    help="train the card outliner (a dataset made with --outline; --arch a finder .pt to start from)")
    tp.set_defaults(func=_train)

    cp = sub.add_parser("crops", help="cut top-card crops from generated scenes, for the face classifier")
    cp.add_argument("--data", help="data.yaml of a generated dataset")
    cp.add_argument("--scenes", type=int, default=0,
                    help="instead of --data: make this many new scenes in memory and cut their top cards")
    cp.add_argument("--styles", choices=STYLE_MODES, default="random", help="face styles of --scenes")
    cp.add_argument("--size", type=int, default=416, help="scene size of --scenes")
    cp.add_argument("--faces", nargs="+", metavar="CARD",
                    help="with --scenes: only these top cards (e.g. R6 R9 BREAKER), the look-alikes to learn harder")
    cp.add_argument("--turned-69", type=float, default=0.0, metavar="SHARE",
                    help="with --scenes: this share of the random looks draw their 9 as their 6 turned round, so "
                         "only corner indices, the block's sides or an underline tell them apart")
    cp.add_argument("--workers", type=int, default=2, help="processes cutting crops (default 2)")
    cp.add_argument("--splits", nargs="+", default=["train", "val"], choices=["train", "val"],
                    help="which splits to cut (default train val)")
    cp.add_argument("--out", default="datasets/generated/crops",
                    help="the crops' folder (default datasets/generated/crops)")
    cp.add_argument("--per-image", type=int, default=2, help="jittered crops per training image")
    cp.add_argument("--crop-size", type=int, default=None,
                    help="pixels a side of each crop, at least the classifier's input size (default: the reader's "
                         "smallest cut, companion.vision.crops.CROP_SIZE)")
    cp.add_argument("--seed", type=int, default=11, help="jitter seed (val uses seed + 1)")
    cp.set_defaults(func=_crops)

    cl = sub.add_parser("train-classifier", help="train the face classifier (second stage) on crops")
    cl.add_argument("--data", default="datasets/generated/crops",
                    help="the crops' folder (default datasets/generated/crops)")
    cl.add_argument("--run", default="runs/taki-cls", help="the run's folder (default runs/taki-cls)")
    cl.add_argument("--epochs", type=int, default=20, help="epochs at most (default 20)")
    cl.add_argument("--imgsz", type=int, default=64, help="input size in pixels")
    cl.add_argument("--batch", type=int, default=64, help="batch size (default 64)")
    cl.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    cl.add_argument("--workers", type=int, default=2, help="data-loader processes (default 2)")
    cl.add_argument("--hours", type=float, default=None, help="stop after this long")
    cl.add_argument("--arch", default="yolov8n-cls.yaml",
                    help="model .yaml, or .pt weights of ours to start from")
    cl.add_argument("--lr0", type=float, default=0.002, help="AdamW learning rate (lower to fine-tune)")
    cl.set_defaults(func=_train_classifier)

    vp = sub.add_parser("eval", help="score a detector on a YOLO-format dataset: mAP and top-card accuracy")
    vp.add_argument("--model", default=None, help="default: the shipped model")
    vp.add_argument("--data", required=True, help="data.yaml")
    vp.add_argument("--split", default=None, help="default: test, else val")
    vp.add_argument("--imgsz", type=int, default=192, help="the finder's input size in pixels (default 192)")
    vp.add_argument("--json", help="also write the numbers to this JSON file")
    vp.add_argument("--classifier", default="auto",
                    help="face classifier behind the detector: auto (the shipped one), none, or a path")
    vp.add_argument("--deck", default=None, help="read with a deck profile's learnt classifier")
    vp.add_argument("--runtime", action="store_true",
                    help="read with the kiosk's torch-free reader (an .onnx or *_ncnn_model --model)")
    vp.set_defaults(func=_eval)

    xp = sub.add_parser("export", help="export trained weights to ONNX, OpenVINO and NCNN under models/")
    xp.add_argument("--weights", required=True, help="the trained weights (.pt) to export")
    xp.add_argument("--out", default="models", help="where the exports go (default models)")
    xp.add_argument("--imgsz", type=int, default=192, help="input size in pixels (default 192)")
    xp.add_argument("--name", default="taki-yolov8n",
                    help="file name stem (taki-cls-yolov8n for the classifier)")
    xp.set_defaults(func=_export)

    te = sub.add_parser("track-eval", help="score the tracker on synthesised videos")
    te.add_argument("--videos", type=int, default=20, help="how many videos (default 20)")
    te.add_argument("--plays", type=int, default=15, help="plays per video (default 15)")
    te.add_argument("--seed", type=int, default=50_000, help="first video seed (tuning used 1000-3999)")
    te.add_argument("--size", type=int, default=320, help="video side in pixels (default 320)")
    te.add_argument("--model", default=None, help="detector model, or 'oracle' for the ground truth")
    te.add_argument("--imgsz", type=int, default=192, help="the finder's input size in pixels (default 192)")
    te.add_argument("--no-zoom", action="store_true", help="detect on whole frames, not the pile's region")
    te.add_argument("--classifier", default="auto",
                    help="face classifier behind the detector: auto (the shipped one), none, or a path")
    te.add_argument("--seats", type=int, default=0,
                    help="players round the table (2-10): arms reach in from their seats; scores who played")
    te.add_argument("--seat-json", default=None,
                    help="with --seats: write every play's true and named seat, confidence and arm angle here")
    te.set_defaults(func=_track_eval)

    rp = sub.add_parser("replay", help="print a journalled game, or export it as JSON")
    rp.add_argument("game", type=int, nargs="?", help="game number (omit to list the games)")
    rp.add_argument("--db", default=default_journal(), help="the journal to read (default: the kiosk's)")
    rp.add_argument("--json", metavar="FILE", help="write JSON to FILE ('-' for the terminal)")
    rp.set_defaults(func=_replay)

    sp2 = sub.add_parser("standings", help="tournament standings as CSV or JSON")
    sp2.add_argument("tournament", type=int, nargs="?", help="tournament number (omit to list)")
    sp2.add_argument("--db", default=default_journal(), help="the journal to read (default: the kiosk's)")
    sp2.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default) or json")
    sp2.set_defaults(func=_standings)

    bp = sub.add_parser("board", help="the live tournament board for an event (needs the 'board' extra)")
    bp.add_argument("--db", default="board.db",
                    help="the board's SQLite file, or a PostgreSQL URL (postgresql://user@host/db) for larger events")
    bp.add_argument("--event-key", required=True,
                    help="the key a kiosk needs to join (8 characters or more) and the organiser page needs")
    bp.add_argument("--host", default="0.0.0.0", help="the address to listen on (default: every network)")
    bp.add_argument("--port", type=int, default=8080, help="the port to listen on (default 8080)")
    bp.add_argument("--certfile", default=None, help="serve HTTPS with this certificate (PEM)")
    bp.add_argument("--keyfile", default=None, help="the certificate's private key (PEM), with --certfile")
    bp.set_defaults(func=_board)
    at_table = ("enrol", "replay", "standings", "board")

    def section(title: str, names: list[str]) -> str:
        return title + "\n" + "\n".join(f"  {n:18s}{helps[n]}" for n in names)

    p.epilog = "\n\n".join([
        section("commands at the table:", list(at_table)),
        section("making and measuring models (the full install: pip install '.[train]'):",
                [n for n in helps if n not in at_table]),
        "'taki-companion COMMAND --help' shows a command's options."])
    return p


def _board(args: argparse.Namespace) -> int:
    try:
        from .board.server import serve
    except ImportError as e:
        print(f"taki-companion board: {e}; install with pip install '.[board]'", file=sys.stderr)
        return 2
    if len(args.event_key) < 8:
        print("taki-companion board: the event key must be at least 8 characters", file=sys.stderr)
        return 2
    from pathlib import Path

    from .board.store import Refused

    for flag, path in (("--certfile", args.certfile), ("--keyfile", args.keyfile)):
        if path is not None and not Path(path).is_file():
            print(f"taki-companion board: {flag} {path} is not a file", file=sys.stderr)
            return 2
    if args.keyfile and not args.certfile:
        print("taki-companion board: --keyfile needs --certfile", file=sys.stderr)
        return 2
    scheme = "https" if args.certfile else "http"
    print(f"board on {scheme}://{args.host}:{args.port}/ (kiosks: --board {scheme}://THIS-LAPTOP:{args.port} "
          f"--event-key ...; organiser: {scheme}://THIS-LAPTOP:{args.port}/admin)")
    try:
        serve(args.db, args.event_key, args.host, args.port, args.certfile, args.keyfile)
    except Refused as e:
        print(f"taki-companion board: {e}", file=sys.stderr)
        return 2
    return 0


def _add_app_arguments(p: argparse.ArgumentParser) -> None:
    # Kept free of kivy imports: the sub-commands must not start a window system.
    from .ui_args import add_app_arguments

    add_app_arguments(p, default_journal())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from .ui_args import app_argument_problem

        problem = app_argument_problem(args)
        if problem:
            parser.error(problem)  # one sentence, exit 2, before any window opens
        from .ui.main import run

        return run(args, default_journal())
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
