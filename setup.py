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


#: Commands that only write metadata or sources: no need to run mypyc for them
#: (pip calls egg_info and dist_info before every build, editable or not).
_NO_BUILD = {"egg_info", "dist_info", "sdist"}


def ext_modules() -> list:
    want = os.environ.get("TAKI_MYPYC")
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    editable = command in ("editable_wheel", "develop")
    if want == "0" or command in _NO_BUILD or (want is None and editable):
        return []
    from mypyc.build import mypycify

    from companion.buildcore import sources

    return mypycify(sources(), opt_level="3")


setup(ext_modules=ext_modules())
