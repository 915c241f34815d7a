"""Build hook: a wheel of the lab carries everything it needs at run time.

The metadata is in pyproject.toml; this file only extends `build_py`. templates/, static/ (with
the npm-built vendor files), scenarios/ and docs/step.schema.json live beside the `app` package
in the repository, where a wheel cannot take them, so they are copied into `app/share/`
(`app.paths` looks there first), and the translation catalogs are compiled to .mo files, which
are not kept in git. An editable install (`make`'s venv) reads the checkout and needs neither.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHARED = ("templates", "static", "scenarios", "docs/step.schema.json")
# Served by the lab; axe.min.js (650 KB) is only injected by the accessibility tests.
VENDOR = ("htmx.min.js", "htmx-ext-ws.min.js")
LEFT_OUT = shutil.ignore_patterns("axe.min.js", ".stamp", "__pycache__")


def vendor_files() -> None:
    """The front-end libraries come from npm (pinned by package-lock.json): `make assets`."""
    if all((HERE / "static" / "vendor" / name).exists() for name in VENDOR):
        return
    try:
        subprocess.run(["make", "--no-print-directory", "assets"], cwd=HERE, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(
            f"static/vendor/ is missing and `make assets` failed ({exc}): the lab's pages need "
            "htmx from npm. Install Node.js with npm and make, then install again."
        ) from None


def compile_catalogs(translations: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in translations.glob("*/LC_MESSAGES/*.po"):
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parent.parent.name)
        with po.with_suffix(".mo").open("wb") as target:
            write_mo(target, catalog, use_fuzzy=True)  # as the Makefile's `pybabel compile -f`


class BuildWithFiles(build_py):  # type: ignore[misc]
    def run(self) -> None:
        if not self.editable_mode:
            # pip builds in the tree: build/ may hold modules since moved or deleted, which
            # would be installed again beside their new homes.
            shutil.rmtree(Path(self.build_lib) / "app", ignore_errors=True)
        super().run()
        if self.editable_mode:
            return
        vendor_files()
        share = Path(self.build_lib) / "app" / "share"
        for name in SHARED:
            source, target = HERE / name, share / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, ignore=LEFT_OUT)
            else:
                shutil.copy2(source, target)
        compile_catalogs(Path(self.build_lib) / "app" / "translations")


setup(cmdclass={"build_py": BuildWithFiles})
