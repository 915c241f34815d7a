"""The library page: one card per scenario, and the files that failed validation.

Each card links to the scenario's own URL (/scenario/<id>) in the current language. A scenario
file that fails validation is listed as unavailable with its `file:line: field: message` error,
and the other scenarios keep working. The language switch is a set of plain links (`?lang=`),
which also set the remembering cookie (see i18n).
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from app.web.i18n import select_locale

bp = Blueprint("library", __name__)


@bp.get("/")
def index() -> str:
    lab = current_app.extensions["lab"]
    library = lab.library
    return render_template(
        "library.html",
        lang=select_locale(),
        scenarios=list(library.scenarios.values()),
        errors=list(library.errors),
    )
