"""Generate the synthetic TAKI discard-pile dataset (YOLO format).

    python datasets/make_dataset.py --out datasets/generated/taki --train 3000 --val 300 --seed 1
    python datasets/make_dataset.py --out datasets/generated/test --test 1000 --seed 777

Also `taki-companion dataset ...`. Generated images are never committed
(datasets/generated/ is git-ignored).
"""

from companion.cli import main

if __name__ == "__main__":
    import sys

    raise SystemExit(main(["dataset", *sys.argv[1:]]))
