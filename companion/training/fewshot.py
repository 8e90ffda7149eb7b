"""Few-shot deck learning: one picture per face to a deck profile in minutes.

No multi-hour retrain: the shipped face classifier already knows what TAKI
faces are; a short fine-tune on this deck's own faces, composited onto varied
tables (tilt, light, blur, shadows, hands, older cards under them), teaches it
the deck's drawing. Faces the deck lacks are shown in a new random style in
every picture, as the shipped classifier learnt them, so it still names all 57.
The fine-tuned weights are then blended halfway back towards the shipped ones
(:func:`blend_weights`), which keeps more of what the shipped classifier knew.
The result is a deck profile folder (``companion/vision/deck.py``) that the app
and ``eval`` read with ``--deck``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import cv2
import numpy as np

from ..rules.cards import FACES, Card, file_stem
from ..vision.crops import crop_side
from ..vision.deck import CLASSIFIERS, FORMAT, VERSION
from ..vision.detector import MODELS_DIR
from ..voice.catalog import Words, tr, words as words_for
from .train import on_every_core

Progress = Callable[[str, float], None]  # what is happening, share done (0..1)
#: A round of the fine-tune, as progress says it
ROUND = tr("learning the deck's faces (round {done} of {total})")


@dataclass(frozen=True, slots=True)
class LearnSpec:
    scenes_per_face: int = 24  # training crops per enrolled face
    val_per_face: int = 3
    epochs: int = 8
    imgsz: int | None = None  # None: the size the base classifier was trained at
    base: Path = MODELS_DIR / "taki-cls-yolov8n.pt"
    lr0: float = 0.0005
    seed: int = 0
    minutes: float = 3.5  # the fine-tune's time limit (photos to profile stay within 5 minutes)
    export_onnx: bool = True
    keep: float = 0.5  # how much of the fine-tune's change to the shipped weights is kept (1: all of it)


def _crops(faces: dict[Card, np.ndarray] | tuple[Card, ...], out: Path, split: str, per_face: int,
           seed: int, size: int) -> int:
    """``per_face`` jittered crops of each face as the top card of a pile on a varied
    table: the given pictures of the faces, or (cards alone) a new random style drawn
    for every pile, as the shipped classifier learnt them; ``size`` pixels a side."""
    from ..synth.crops import face_folders, jittered_crop
    from ..synth.scene import Compositor, SceneConfig

    if isinstance(faces, dict):  # the deck's own faces
        comp = Compositor(faces, replace(SceneConfig.varied(320), styles="classic"))
    else:
        comp = Compositor(config=SceneConfig.varied(320))
    n = 0
    face_folders(out, split)
    for card in faces:
        for k in range(per_face):
            rng = np.random.default_rng([seed, card.index, k])
            scene = comp.scene(rng, top=card)
            crop = jittered_crop(scene.image, scene.box, rng, size)
            cv2.imwrite(str(out / split / file_stem(card) / f"{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            n += 1
    return n


def learn_deck(faces_dir: Path, out: Path, name: str | None = None, spec: LearnSpec | None = None,
               progress: Progress | None = None, quality: dict[str, float] | None = None,
               words: Words | None = None, retake: dict[str, str] | None = None) -> Path:
    """Build the deck profile ``out`` from enrolled faces in ``faces_dir``; ``progress``
    is told what is happening in ``words``' language (English by default). ``retake``:
    faces kept from a poor photo, and why (kept in deck.json to show later)."""
    from ..synth.dataset import load_faces
    from ..vision.yolo_env import YOLO

    spec = spec or LearnSpec()
    told = progress or (lambda what, share: None)
    w = words or words_for()

    def say(msgid: str, share: float, **fields: object) -> None:
        told(w(msgid, **fields), share)
    t0 = time.monotonic()
    enrolled = load_faces(faces_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faces").mkdir(exist_ok=True)
    for card, img in enrolled.items():
        cv2.imwrite(str(out / "faces" / f"{file_stem(card)}.png"), img)
    # Faces the deck lacks (or that were skipped) keep what the shipped classifier knew
    # of them: a new random style for every picture, as it learnt them. (One random
    # style for them all taught, say, any Breaker to be read as +3 unless it looked
    # like that one stand-in.)
    lacking = tuple(c for c in FACES if c not in enrolled)
    work = out / ".learn"
    shutil.rmtree(work, ignore_errors=True)
    model = YOLO(spec.base, task="classify")
    imgsz = spec.imgsz or int(model.model.args.get("imgsz", 64))
    size = crop_side(imgsz)
    say(tr("making pictures of the deck on tables"), 0.0)
    _crops(enrolled, work / "crops", "train", spec.scenes_per_face, spec.seed, size)
    _crops(lacking, work / "crops", "train", spec.scenes_per_face, spec.seed + 3, size)
    _crops(enrolled, work / "crops", "val", spec.val_per_face, spec.seed + 1, size)
    # ultralytics wants every class in val: one picture of each face the deck lacks.
    _crops(lacking, work / "crops", "val", 1, spec.seed + 2, size)
    say(tr("learning the deck's faces"), 0.35)

    def on_epoch(trainer) -> None:  # type: ignore[no-untyped-def]
        done = min(trainer.epoch + 1, trainer.epochs)  # a time-limited run re-plans its rounds
        say(ROUND, 0.35 + 0.55 * done / max(1, trainer.epochs), done=done, total=trainer.epochs)

    model.add_callback("on_fit_epoch_end", on_epoch)
    on_every_core(model)  # both cores: more rounds in the same minutes
    model.train(data=str(work / "crops"), epochs=spec.epochs, imgsz=imgsz, batch=32, device="cpu",
                workers=0, project=str(work.resolve()), name="run", exist_ok=True, pretrained=True,
                plots=False, amp=False, seed=spec.seed, deterministic=False, verbose=False, val=True,
                fliplr=0.0, scale=0.1, erasing=0.0, auto_augment=None, hsv_h=0.01, optimizer="AdamW",
                lr0=spec.lr0, warmup_epochs=0.0, cos_lr=True, time=spec.minutes / 60, patience=100)
    best = work / "run" / "weights" / "best.pt"
    if not best.exists():
        best = work / "run" / "weights" / "last.pt"
    blend_weights(spec.base, best, out / CLASSIFIERS["pytorch"], spec.keep)
    accuracy = _val_accuracy(work / "run") if spec.keep >= 1.0 else \
        _blend_accuracy(out / CLASSIFIERS["pytorch"], work / "crops", imgsz)
    if spec.export_onnx:
        say(tr("preparing the fast reader"), 0.92)
        from .export import export_all

        made = export_all(out / CLASSIFIERS["pytorch"], work / "export", imgsz, name="classifier",
                          formats=("onnx",))
        shutil.copyfile(made["onnx"], out / CLASSIFIERS["onnx"])
    meta = {
        "format": FORMAT, "version": VERSION, "name": name or out.name,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "enrolled": [c.code for c in FACES if c in enrolled],
        "missing": [c.code for c in FACES if c not in enrolled],
        "quality": quality or {},
        "retake": retake or {},
        "accuracy": accuracy,
        "learn_seconds": round(time.monotonic() - t0, 1),
        "base": Path(spec.base).name, "imgsz": imgsz, "keep": spec.keep,
    }
    try:  # a profile made by enrolment keeps what it said (its prototypes, their classifier)
        before = json.loads((out / "deck.json").read_text())
    except (OSError, ValueError):
        before = {}
    if isinstance(before, dict):
        meta = {**before, **{k: v for k, v in meta.items() if k not in ("enrolled", "missing") or not before}}
    (out / "deck.json").write_text(json.dumps(meta, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    say(tr("ready"), 1.0)
    return out


def blend_weights(base: Path, tuned: Path, out: Path, keep: float) -> Path:
    """The classifier whose every weight lies ``keep`` of the way from the shipped
    classifier's to the fine-tuned one's (weight-space ensembling, "WiSE-FT").

    Why: one photo per face teaches the fine-tune that photo's blur, tint and
    perspective as much as the deck's drawing, and it forgets some of what the
    shipped classifier knew. Halfway was chosen on two held-out-family decks
    (benchmarks/deck_learning.py --piles 570, style seeds 3 and 5: the fine-tune alone
    96.8% and 96.8%, shipped 98.1% and 96.5%, halfway 97.7% and 97.2%) and then
    checked on a third (seed 7: fine-tune alone 97.9%, shipped 96.3%, halfway 97.9%).
    """
    import torch

    if keep >= 1.0:
        shutil.copyfile(tuned, out)
        return out
    start = torch.load(base, map_location="cpu", weights_only=False)
    ckpt = torch.load(tuned, map_location="cpu", weights_only=False)
    if start["model"].names != ckpt["model"].names:
        raise ValueError(f"{base} and {tuned} name different faces: they cannot be blended")
    half = next(ckpt["model"].parameters()).dtype == torch.float16
    model = ckpt["model"].float()  # loaded just now: changed in place
    a, b = start["model"].float().state_dict(), model.state_dict()
    model.load_state_dict({k: (1 - keep) * a[k] + keep * v if v.is_floating_point() else v for k, v in b.items()})
    ckpt["model"] = model.half() if half else model
    ckpt["ema"] = None
    torch.save(ckpt, out)
    return out


def _blend_accuracy(weights: Path, crops: Path, imgsz: int) -> float | None:
    """The blended classifier's top-1 on the held-back pictures of this deck."""
    from ..vision.yolo_env import YOLO

    try:
        result = YOLO(weights, task="classify").val(data=str(crops), split="val", imgsz=imgsz, batch=32,
                                                    device="cpu", workers=0, plots=False, verbose=False)
    except (RuntimeError, OSError, ValueError):
        return None
    return round(float(result.top1), 4)


def _val_accuracy(run: Path) -> float | None:
    import csv

    try:
        rows = list(csv.DictReader((run / "results.csv").open()))
    except OSError:
        return None
    if not rows:
        return None
    last = {k.strip(): v for k, v in rows[-1].items()}
    try:
        return round(float(last["metrics/accuracy_top1"]), 4)
    except (KeyError, ValueError):
        return None
