"""The library page: one card per scenario, and the files that failed validation.

Each card links to the scenario's own URL (/scenario/<id>) in the current language. A scenario
file that `mcp-lab validate` rejects (app.engine.library.validate) is one unavailable card
listing all its errors, one `file:line: field: message` a line, and the other scenarios keep
working. The language switch is a set of plain links (`?lang=`),
which also set the remembering cookie (see i18n).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, current_app, render_template

from app.engine.challenge import Challenge, challenge_of
from app.web.i18n import select_locale

bp = Blueprint("library", __name__)


@dataclass
class Unavailable:
    """One broken file, with every error `mcp-lab validate` finds in it, one per line."""

    file: str
    errors: list[Any]

    def __str__(self) -> str:
        return "\n".join(map(str, self.errors))


def unavailable(errors: list[Any]) -> list[Any]:
    """The library's errors as one entry per file (errors without a file stay as they are)."""
    grouped: dict[str, Unavailable] = {}
    loose: list[Any] = []
    for error in errors:
        name = getattr(error, "file", None)
        if name is None:
            loose.append(error)
        else:
            grouped.setdefault(name, Unavailable(name, [])).errors.append(error)
    return [*grouped.values(), *loose]


def challenge(scenario: Any) -> Challenge | None:
    """The scenario's challenge (a goal to reach with a few moves), or None for a lesson."""
    return challenge_of(scenario) if isinstance(getattr(scenario, "data", None), dict) else None


@bp.get("/")
def index() -> str:
    lab = current_app.extensions["lab"]
    library = lab.library
    every = list(library.scenarios.values())
    challenges = [(s, c) for s in every if (c := challenge(s)) is not None]
    return render_template(
        "library.html",
        lang=select_locale(),
        scenarios=[s for s in every if challenge(s) is None],
        challenges=challenges,
        errors=unavailable(list(library.errors)),
    )
