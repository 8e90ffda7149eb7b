"""Builds the wheel with the rules core compiled by mypyc (companion/buildcore.py).

Editable installs stay pure Python so that edits to the sources take effect.
TAKI_MYPYC=0 builds a pure-Python wheel; TAKI_MYPYC=1 compiles even for an
editable install (then rebuild after every edit of companion/rules).
"""

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

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


class build_py_with_catalogs(build_py):
    """Also compiles the wording catalogues (companion/locale/*/LC_MESSAGES/taki.po) to .mo."""

    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path("companion/locale").glob("*/LC_MESSAGES/*.po"):
            mo = Path(self.build_lib) / po.with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as f, mo.open("wb") as out:
                write_mo(out, read_po(f))


setup(ext_modules=ext_modules(), cmdclass={"build_py": build_py_with_catalogs})
