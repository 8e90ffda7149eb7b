"""Writes models/README.md from eval JSONs (held-out glyph family, in-distribution,
per backend), a speed benchmark's output and the runs' args.

    python -m companion.training.modelcard --heldout held.json --test test.json \
        --backend onnx=held-onnx.json --speed speed.txt --run runs/det-v2 --cls-run runs/cls-v2
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import yaml

LOOKALIKES = [(f"{c}{a}", f"{c}{b}") for a, b in ((6, 9), (1, 7), (5, 8)) for c in "RYGB"] + [
    ("+3", "BREAKER"), ("SUPER", "COLOR"), ("RPLUS", "R+2"), ("BPLUS", "B+2")]


def _kind_accuracy(per_face: dict[str, float]) -> list[tuple[str, float]]:
    """Accuracy per kind of face (numbers by digit), from per-face accuracies."""
    from ..rules.cards import Card

    groups: dict[str, list[float]] = {}
    for code, acc in per_face.items():
        c = Card.from_code(code)
        key = f"number {c.number}" if c.number is not None else c.kind.name.lower().replace("_", " ")
        groups.setdefault(key, []).append(acc)
    return sorted(((k, sum(v) / len(v)) for k, v in groups.items()), key=lambda kv: kv[1])


def card(heldout_json: Path, test_json: Path, speed: Path, run: Path, history: str, cls_run: Path | None = None,
         cls_data: str = "", backend_jsons: dict[str, Path] | None = None, data: str = "",
         runtime_jsons: dict[str, Path] | None = None, limits: str = "",
         previous: Path = Path("models/README.md"), framing_json: Path | None = None) -> str:
    held = json.loads(heldout_json.read_text())
    test = json.loads(test_json.read_text())
    kept = None
    if (run / "args.yaml").exists():
        args = yaml.safe_load((run / "args.yaml").read_text())
        rows = list(csv.DictReader((run / "results.csv").open()))
        last = {k.strip(): v for k, v in rows[-1].items()} if rows else {}
    else:  # the finder was not retrained and its run is gone: its section is kept from the last card
        args, rows, last = {"imgsz": 192}, [], {}
        kept = _section(previous, "## Training the card finder") or \
            "## Training the card finder\n\n- its run is not on disk, and no earlier card says how it was trained\n"
    confusions = {(t, p): n for t, p, n in held["confusions"]}
    lines = [
        "# Shipped models: card finder `taki-yolov8n`, face classifier `taki-cls-yolov8n`",
        "",
        "The reader of the leading card (top of the discard pile) has two stages. The",
        "**card finder** (a YOLOv8n detector with one class: a card, whatever its face) finds",
        "the top card. The **face classifier** (YOLOv8n-cls, 57 classes in",
        "`companion.rules.FACES` order) then reads the card alone, cut from the",
        "full-resolution frame (`companion/vision/crops.py`), and its face is the one",
        "reported (`companion/vision/classifier.py`). The finder never learns what a face",
        "looks like, so a deck in a style nobody drew is still found; only the classifier",
        "has to generalise, and an enrolled deck only has to teach the classifier.",
        "Both nets were trained offline (where, each training section says); the app",
        "pairs each finder with the classifier of the same backend.",
        "",
        "| finder | classifier | backend |",
        "| --- | --- | --- |",
        "| `taki-yolov8n.pt` | `taki-cls-yolov8n.pt` | PyTorch |",
        "| `taki-yolov8n.onnx` | `taki-cls-yolov8n.onnx` | ONNX Runtime |",
        "| `taki-yolov8n_openvino_model/` | `taki-cls-yolov8n_openvino_model/` | OpenVINO |",
        "| `taki-yolov8n_ncnn_model/` | `taki-cls-yolov8n_ncnn_model/` | NCNN (exported with `pnnx` from PyPI) |",
        "",
        "Deck enrolment also uses the card masker `taki-cardmask.onnx`, which finds the",
        "outline of the card in an enrolment photo; it has its own card, `models/cardmask.md`.",
        "",
        "## Data: faces in many styles",
        "",
        "Synthetic only. Faces (`companion/synth/styles.py`, `glyphs.py`) come in three",
        "families: **block**, the published deck's look (white card, no frame, one big",
        "symbol as an isometric 3D block with a black outline and darker extruded sides,",
        "flat corner indices in all four corners); **flat** (coloured symbols, optional",
        "frame); and **classic**, the project's first renderer. Every scene draws a new",
        "look: glyph family (drawn block numerals and letters, or one of the installed",
        "font families), stroke weight and width, extrusion depth and direction, outline",
        "width, hue/saturation/value shifts per colour, violet/orange or darker-same sides,",
        "gloss, print wear, paper tint, a coloured frame or none, 0/2/4 corner indices,",
        "symbol size. Scenes (`companion/synth/scene.py`, `SceneConfig.varied`): older",
        "cards under the top card, wood, cloth, checked cloth, bright laminate, tiles,",
        "noise and photo tables, hands, a camera tilted up to 35 degrees, warm light,",
        "hard shadows of heads and arms, colour temperature (as a white-balancing camera",
        "records it), glare, motion blur, noise, JPEG.",
        "",
        f"- {data}" if data else "",
        "",
        "### What is held out",
        "",
        "The glyph family **`urw-gothic`** (URW Gothic Demi, from Debian's fonts-urw-base35)",
        "is never used by any training or validation picture (`glyphs.HELD_OUT_FAMILY`;",
        "`sample_style` refuses it). The generalisation test renders the published block",
        "style with that family's numerals and letters only (`--styles held-out`), on",
        "seeds never used: the proxy for a deck nobody drew. No setting was tuned on it.",
        "",
        *(kept.splitlines() if kept else [
            "## Training the card finder",
            "",
            f"- one class (`single_cls`), image size {args['imgsz']}, batch {args['batch']}, optimizer "
            f"{args['optimizer']} lr0 {args['lr0']} (cosine), warm-up {args['warmup_epochs']} epoch, "
            f"mosaic {args['mosaic']}, fliplr {args['fliplr']}",
            f"- {len(rows)} epochs (time-limited to {args.get('time')} h on 2 CPU cores); {history}",
            f"- last epoch on val: mAP50-95 {float(last.get('metrics/mAP50-95(B)', 0)):.3f}, "
            f"mAP50 {float(last.get('metrics/mAP50(B)', 0)):.3f} (finding the card)",
            ""]),
        *(_classifier_lines(cls_run, cls_data)
          or (_section(previous, "## Training the face classifier") or "").splitlines()),
        "## Results (`taki-companion eval`)",
        "",
        "| test set | images | top card correct | finder mAP50-95 | no detection |",
        "| --- | --- | --- | --- | --- |",
        f"| held-out glyph family, published block style (seed 778, `v2-heldout-cam`) | {held['images']} | "
        f"**{100 * held['top_card_accuracy']:.1f}%** | {held['map50_95']:.3f} | {held['missed']} |",
        f"| in-distribution random styles (seed 779, `v2-test-cam`) | {test['images']} | "
        f"**{100 * test['top_card_accuracy']:.1f}%** | {test['map50_95']:.3f} | {test['missed']} |",
        *_framing_row(framing_json),
        "",
        "Targets: held-out family >= 95%, in-distribution >= 99.5%. The sets are made under the room's",
        "light as a camera that white-balances records it (session 26, `companion/synth/light.py`,",
        "`datasets/README.md`); the same piles under the lights before are compared in Limits.",
        "",
    ]
    if backend_jsons:
        lines += ["Held-out family, by backend (the same images):", "",
                  "| backend | top card correct | same top card as PyTorch |", "| --- | --- | --- |"]
        lines.append(f"| pytorch | {100 * held['top_card_accuracy']:.1f}% | |")
        for name, path in backend_jsons.items():
            ev = json.loads(path.read_text())
            lines.append(f"| {name} | {100 * ev['top_card_accuracy']:.1f}% | {_same(ev, held)} |")
        lines.append("")
    if runtime_jsons:
        lines += ["The kiosk's torch-free runtime reader (`companion/vision/runtime.py`, `eval --runtime`) "
                  "against ultralytics reading the same export, held-out family:", "",
                  "| export | runtime top card correct | ultralytics | same top card |", "| --- | --- | --- | --- |"]
        for name, path in runtime_jsons.items():
            ev = json.loads(path.read_text())
            ref = json.loads(backend_jsons[name].read_text()) if backend_jsons and name in backend_jsons else held
            lines.append(f"| {name} | {100 * ev['top_card_accuracy']:.1f}% | {100 * ref['top_card_accuracy']:.1f}% "
                         f"| {_same(ev, ref)} |")
        lines.append("")
    kinds = _kind_accuracy(held.get("per_face_accuracy", {}))
    if kinds:
        lines += ["Held-out family, accuracy by kind of face (weakest first): "
                  + ", ".join(f"{k} {100 * a:.0f}%" for k, a in kinds), ""]
    lines += ["Look-alike faces, errors on the held-out family (true -> predicted):", "",
              "| pair | a -> b | b -> a |", "| --- | --- | --- |"]
    for a, b in LOOKALIKES:
        lines.append(f"| {a} / {b} | {confusions.get((a, b), 0)} | {confusions.get((b, a), 0)} |")
    top = ", ".join(f"{t}->{p} x{n}" for t, p, n in held["confusions"][:12]) or "none"
    top_in = ", ".join(f"{t}->{p} x{n}" for t, p, n in test["confusions"][:12]) or "none"
    lines += ["", f"Per-face errors, held-out family: {top}.", "",
              f"Per-face errors, in-distribution: {top_in}.", "",
              f"## Inference speed on this machine (2 cores, whole predict calls; {args['imgsz']} px finder,",
              f"{_cls_imgsz(cls_run)} px classifier)", "", "```", speed.read_text().strip(), "```", "",
              "## Limits", "", limits.strip(), ""]
    return "\n".join(lines)


def _same(ev: dict, ref: dict) -> str:
    """The share of pictures where two readers give the same top card ("n/a" when
    either JSON lacks the per-picture reads)."""
    a, b = ev.get("predictions", []), ref.get("predictions", [])
    if not a or len(a) != len(b):
        return "n/a"
    return f"{100 * sum(x == y for x, y in zip(a, b)) / len(a):.1f}%"


def _framing_row(path: Path | None) -> list[str]:
    """The results row of the framing test set: held-out style, the card 0.12-0.8 of the
    picture's side, square, 4:3, 16:9 and tall pictures (`dataset --card-height --aspects`)."""
    if path is None:
        return []
    ev = json.loads(path.read_text())
    return [f"| held-out family, small to large cards in square, 4:3, 16:9, 3:4 and 9:16 pictures (seed 781, `framing-heldout-cam`) | "
            f"{ev['images']} | **{100 * ev['top_card_accuracy']:.1f}%** | {ev['map50_95']:.3f} | {ev['missed']} |"]


def _section(path: Path, heading: str) -> str | None:
    """A section of an earlier card (its heading to the next one), as it was."""
    if not path.exists():
        return None
    text = path.read_text()
    start = text.find(heading + "\n")
    if start < 0:
        return None
    end = text.find("\n## ", start + len(heading))
    return text[start: end + 1 if end >= 0 else len(text)]


def _cls_imgsz(run: Path | None, shipped: Path | None = None) -> int:
    """The classifier's input size: from its run, or (the run gone) from the shipped
    export's metadata, which says what it reads."""
    if run is not None and (run / "args.yaml").exists():
        return int(yaml.safe_load((run / "args.yaml").read_text()).get("imgsz", 64))
    from ..vision.detector import MODELS_DIR

    shipped = shipped or MODELS_DIR / "taki-cls-yolov8n_openvino_model" / "metadata.yaml"
    if shipped.exists():
        size = yaml.safe_load(shipped.read_text()).get("imgsz", [64])
        return int(size[0] if isinstance(size, list) else size)
    return 64


def _classifier_lines(run: Path | None, data: str) -> list[str]:
    if run is None or not (run / "args.yaml").exists():
        return []
    args = yaml.safe_load((run / "args.yaml").read_text())
    rows = list(csv.DictReader((run / "results.csv").open()))
    last = {k.strip(): v for k, v in rows[-1].items()} if rows else {}
    limit = f", time-limited to {args['time']} h" if args.get("time") else ""
    where = ("on 2 CPU cores" if str(args.get("device", "cpu")) == "cpu"
             else "on a lent GPU machine (one GPU, 16 cores; `datasets/gpu_classifier.sh`)")
    return [
        "## Training the face classifier",
        "",
        f"- data: {data}" if data else "- data: top-card crops of generated scenes (`taki-companion crops`)",
        f"- image size {args['imgsz']}, batch {args['batch']}, optimizer {args['optimizer']} lr0 {args['lr0']}"
        f" (cosine), {len(rows)} epochs {where}{limit}, from the weights shipped before it;"
        " no flips (a mirrored 7 is no card), little hue jitter",
        f"- last epoch on val crops: top-1 {float(last.get('metrics/accuracy_top1', 0)):.4f}, "
        f"top-5 {float(last.get('metrics/accuracy_top5', 0)):.4f}",
        "",
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heldout", required=True, help="eval JSON on the held-out-family test set (PyTorch)")
    ap.add_argument("--test", required=True, help="eval JSON on the in-distribution test set")
    ap.add_argument("--framing", default=None, help="eval JSON on the framing test set (small cards, wide pictures)")
    ap.add_argument("--backend", nargs="*", default=[], help="NAME=eval.json on the held-out set, per backend")
    ap.add_argument("--speed", required=True)
    ap.add_argument("--run", default="runs/taki")
    ap.add_argument("--history", default="")
    ap.add_argument("--cls-run", default="runs/taki-cls")
    ap.add_argument("--cls-data", default="")
    ap.add_argument("--data", default="")
    ap.add_argument("--runtime", nargs="*", default=[], help="NAME=eval.json of `eval --runtime` on the held-out set")
    ap.add_argument("--limits", default=None, help="a markdown file: the Limits section's text")
    ap.add_argument("--out", default="models/README.md")
    a = ap.parse_args()
    backends = {k: Path(v) for k, v in (b.split("=", 1) for b in a.backend)}
    runtimes = {k: Path(v) for k, v in (b.split("=", 1) for b in a.runtime)}
    limits = Path(a.limits).read_text() if a.limits else "- Trained on rendered faces only."
    Path(a.out).write_text(card(Path(a.heldout), Path(a.test), Path(a.speed), Path(a.run), a.history,
                                Path(a.cls_run), a.cls_data, backends, a.data, runtimes, limits,
                                previous=Path(a.out), framing_json=Path(a.framing) if a.framing else None))


if __name__ == "__main__":
    main()
