"""Benchmark: photos of a deck nobody drew -> deck profile -> reading its piles.

A deck in the held-out glyph family (one style, as a real deck has) is
photographed once per face (synthetic photos: one card on a varied table, tilted
up to 35 degrees, hard shadows), enrolled (the table's finder box, the deck's
prototypes: no training, no torch), and both readers (shipped, and with the
profile) read piles of that deck made from its true faces (not the photos).
Prints the faces enrolled, the seconds from photos to profile, and both
accuracies. ``--fine-tune`` adds the older fine-tuned classifier (minutes, torch).
``--busy`` keeps every core busy with another process while it enrols.

Run: python benchmarks/deck_learning.py [--style-seed 3] [--piles 228] [--blur 0] [--busy]
"""

from __future__ import annotations

import argparse
from collections import Counter
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from companion.rules.cards import FACES, file_stem
from companion.synth.scene import Compositor, SceneConfig
from companion.synth.styles import render_styled_face, sample_style
from companion.training.deck_prototypes import write_profile
from companion.training.enrol import default_card_finder, enrol
from companion.vision.runtime import load_runtime_reader, table_reader
from report import Report, add_json_argument


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--style-seed", type=int, default=3)
    ap.add_argument("--piles", type=int, default=228)
    ap.add_argument("--fine-tune", action="store_true", help="also time and read the fine-tuned classifier")
    ap.add_argument("--busy", action="store_true", help="another process keeps every core busy while it enrols")
    ap.add_argument("--model", default=None, help="the card finder (.onnx; default: the shipped one)")
    ap.add_argument("--blur", type=float, default=0.0,
                    help="every photo out of focus by a Gaussian of this many px (what soft photos cost)")
    add_json_argument(ap)
    args = ap.parse_args()
    rep = Report("deck_learning", f"Learning a deck from one photo per face: held-out style seed {args.style_seed}"
                 + (", every core kept busy" if args.busy else "") + (f", photos blurred {args.blur:g} px" if args.blur else ""))
    style = sample_style(np.random.default_rng(args.style_seed), held_out=True)
    faces = {c: render_styled_face(c, style, 300, 420) for c in FACES}
    work = Path(tempfile.mkdtemp(prefix="taki-deck-bench-"))
    photo_cfg = replace(SceneConfig.varied(640, "classic"), under_cards=(0, 0), hand_p=0.0,
                        card_height=(0.45, 0.7))
    photos = Compositor(faces, photo_cfg)
    truth = {}
    for c in FACES:
        scene = photos.scene(np.random.default_rng([args.style_seed, 1, c.index]), top=c)
        (work / "photos" / file_stem(c)).mkdir(parents=True)
        image = cv2.GaussianBlur(scene.image, (0, 0), args.blur) if args.blur else scene.image
        cv2.imwrite(str(work / "photos" / file_stem(c) / "1.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        truth[c.code] = scene
    busy = None
    if args.busy:
        import os
        import subprocess
        import sys

        burn = "import time\nt=time.time()\nwhile time.time()-t<600: pass"
        busy = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(os.cpu_count() or 2)]
    t0 = time.monotonic()
    report = enrol(work / "photos", work / "deck" / "faces", finder=default_card_finder(args.model))
    t_enrol = time.monotonic() - t0
    print(f"style: {style.glyphs.family} block, depth {style.depth:.3f}, hue {style.hue_shift:+.1f}")
    print(f"enrolled: {len(report.enrolled)}/57 faces from one photo each ({t_enrol:.1f} s)")
    for code, why in list(report.failed.items())[:8]:
        print(f"  {code}: {why}")
    hints = report.warnings or {}
    print(f"  {len(hints)} faces kept with a hint to retake them")
    for code, why in list(hints.items())[:8]:
        print(f"  {code} (kept): {why}")
    t1 = time.monotonic()
    write_profile(work / "deck", report.shots or {}, name="benchmark deck", quality=report.quality,
                  retake=report.warnings)
    t_learn = time.monotonic() - t1
    for p in busy or []:
        p.kill()
    print(f"photos -> deck profile: {t_enrol + t_learn:.1f} s (locate {t_enrol:.1f} s, prototypes {t_learn:.1f} s)"
          + (" with every core kept busy by another process" if busy else ""))
    readers = {"shipped reader": load_runtime_reader(args.model),
               "with the deck profile": table_reader(args.model, deck=work / "deck")}
    if args.fine_tune:
        from companion.training.fewshot import LearnSpec, learn_deck
        from companion.vision.classifier import load_reader

        tuned = work / "tuned"
        import shutil

        shutil.copytree(work / "deck" / "faces", tuned / "faces")
        learn_deck(tuned / "faces", tuned, "benchmark deck", LearnSpec(), None, report.quality)
        readers["fine-tuned (v1)"] = load_reader(deck=tuned)
    piles = Compositor(faces, SceneConfig.varied(416, "classic"))
    right = dict.fromkeys(readers, 0)
    spent: dict[str, list[float]] = {name: [] for name in readers}
    wrong: dict[str, Counter[str]] = {name: Counter() for name in readers}
    for i in range(args.piles):
        card = FACES[i % len(FACES)]
        image = piles.scene(np.random.default_rng([args.style_seed, 2, i]), top=card).image
        for name, reader in readers.items():
            t = time.perf_counter()
            dets = reader.detect(image)
            spent[name].append(time.perf_counter() - t)
            ok = bool(dets) and dets[0].card == card
            right[name] += ok
            if not ok:
                wrong[name][f"{card.code}->{dets[0].card.code if dets else 'nothing'}"] += 1
    rep.add("faces enrolled from one photo each", len(report.enrolled), "of 57", ">= 98%")
    rep.add("photos -> deck profile", round(t_enrol + t_learn, 1), "s", "<= 30 s on 2 cores")
    for name, n in right.items():
        rep.add(f"top card, {name}", round(100 * n / args.piles, 1), f"% of {args.piles} piles",
                ">= 99.5%" if name == "with the deck profile" else "")
    rep.write(args.json)
    for name, n in right.items():
        print(f"top card correct, {name:22s} {n}/{args.piles} = {100 * n / args.piles:.1f}% "
              f"(both stages {1000 * float(np.median(spent[name])):.1f} ms/pile median, ONNX Runtime, 1 thread)")
        print("  errors: " + (", ".join(f"{k} x{v}" for k, v in wrong[name].most_common()) or "none"))
    print(f"(work files in {work})")


if __name__ == "__main__":
    main()
