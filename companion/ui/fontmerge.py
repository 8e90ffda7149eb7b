"""Builds the kiosk's Telugu font: Noto Sans Telugu with Noto Sans' Latin letters added.

Why: Kivy draws a label with one font file and no fallback. Noto Sans Telugu has
no Latin letters, so in Telugu every player name typed on a Latin keyboard
("Dana's turn" became four boxes and "వంతు") was drawn as boxes. The merged file
has both scripts; it ships in ``companion/assets/fonts`` (SIL Open Font Licence
1.1, as its sources), so a Raspberry Pi needs no Noto package for it either.

Run (needs fonts-noto-core and fontTools): ``python -m companion.ui.fontmerge``
"""

from __future__ import annotations

import argparse
from pathlib import Path

NOTO = Path("/usr/share/fonts/truetype/noto")
OUT = Path(__file__).resolve().parent.parent / "assets" / "fonts"
#: Latin, Latin-1, Latin Extended-A/B (names such as Seán or Đorđe), general punctuation, the euro
LATIN = [*range(0x20, 0x250), *range(0x2000, 0x2070), 0x20AC]


def merged(weight: str, noto: Path = NOTO) -> "object":
    from fontTools.merge import Merger
    from fontTools.subset import Options, Subsetter
    from fontTools.ttLib import TTFont

    latin = TTFont(noto / f"NotoSans-{weight}.ttf")
    sub = Subsetter(Options(layout_features=["*"], name_IDs=["*"], notdef_outline=True))
    sub.populate(unicodes=LATIN)
    sub.subset(latin)
    work = OUT / f".latin-{weight}.ttf"
    latin.save(work)
    try:
        font = Merger().merge([str(noto / f"NotoSansTelugu-{weight}.ttf"), str(work)])
    finally:
        work.unlink()
    return font


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--noto", type=Path, default=NOTO, help="folder of the Noto Sans .ttf files")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for weight in ("Regular",):  # Kivy draws bold from it (the kiosk names one file per language)
        path = OUT / f"NotoSansTeluguLatin-{weight}.ttf"
        merged(weight, args.noto).save(path)  # type: ignore[attr-defined]
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
