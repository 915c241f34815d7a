"""Where the lab's files that are not Python live: templates/, static/, scenarios/ and docs/.

In a checkout (and an editable install) they sit beside the `app` package, so one tree serves
`make run`, the tests and a scenario author's edits. A wheel can only carry files inside its
packages, so the build (setup.py) copies them into `app/share/`; `ROOT` is that folder when it
exists, else the checkout. The rest of the lab asks this module and never counts parents.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SHARE = PACKAGE / "share"
ROOT = SHARE if SHARE.is_dir() else PACKAGE.parent

TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
SCENARIOS = ROOT / "scenarios"
STEP_SCHEMA = ROOT / "docs" / "step.schema.json"
