"""The build step for the wording: compile every ``.po`` catalogue to its ``.mo``.

Run: ``python -m companion.voice.compile_catalogs`` (the wheel build and CI run it).
"""

from .catalog import compile_all

if __name__ == "__main__":
    for path in compile_all():
        print(path)
