"""Builds the wheel with the rules core compiled by mypyc (companion/buildcore.py).

Editable installs stay pure Python so that edits to the sources take effect.
TAKI_MYPYC=0 builds a pure-Python wheel; TAKI_MYPYC=1 compiles even for an
editable install (then rebuild after every edit of companion/rules).
"""

import os
import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))


def ext_modules() -> list:
    want = os.environ.get("TAKI_MYPYC")
    editable = any("editable" in arg or arg == "develop" for arg in sys.argv)
    if want == "0" or (want is None and editable):
        return []
    from mypyc.build import mypycify

    from companion.buildcore import sources

    return mypycify(sources(), opt_level="3")


setup(ext_modules=ext_modules())
