"""The editor's state: the text, its file name and where it came from, read from a GET's query
(a library scenario, a what-if, a shared link) or from the posted form, every field bounded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, request, url_for
from flask_babel import gettext

from app.engine.authoring import MAX_CHARS, Preview
from app.engine.whatif import WhatIfError, decode, run_whatif
from app.engine.whatif.save import to_yaml
from app.web.author import share, shelf
from app.web.author.checking import Checker, digest, normal
from app.web.i18n import pick

VIEWS = ("overview", "transport", "transform", "output")
UNNAMED = "scenario.yaml"  # the file name of a text nobody named (its errors say it)
FORM_BYTES = 1024 * 1024  # a 64,000-character text, URL-encoded, is at most ~580 kB


def _(text: str, **values: object) -> str:
    return str(gettext(text, **values))


@dataclass
class Editor:
    """What the page shows: the text and its file name, where it came from, and its check."""

    text: str = ""
    name: str = UNNAMED
    whatif: str = ""  # the what-if the text was made from, while it is unchanged
    origin: str = ""  # digest of the text as it was made from the what-if
    version: str = ""
    transport: str = ""
    step: int = 1
    view: str = "overview"
    start_error: str = ""
    shown: Preview | None = None
    busy: bool = False

    @property
    def file(self) -> str:
        return self.name if shelf.NAME.fullmatch(self.name) else UNNAMED

    @property
    def steps(self) -> int:
        return len(self.shown.trace or []) if self.shown is not None else 0

    def share_link(self) -> tuple[str, str]:
        """(link, "") or ("", why there is none)."""
        if not self.text.strip():
            return "", ""
        if self.whatif and digest(self.text) == self.origin:
            return url_for("author.page", whatif=self.whatif, _external=True), ""
        try:
            value = share.encode(self.text)
        except share.ShareError as exc:
            return "", share_refusal(exc)
        return url_for("author.page", scenario=value, _external=True), ""


def checker() -> Checker:
    found: Checker = current_app.extensions["author"]
    return found


def share_refusal(exc: share.ShareError) -> str:
    if exc.key == "too-long":
        return _("Too long for a link: download the file and send it instead.")
    if exc.key == "format":
        return _("This link was made by another version of the lab and cannot be read here.")
    return _("This link is damaged or incomplete: it holds no scenario.")


def started(args: Any, lang: str) -> Editor:
    """The editor as a GET opens it: from a library scenario, a what-if or a shared text."""
    lab = current_app.extensions["lab"]
    editor = Editor()
    if args.get("from"):
        asked = str(args["from"])[:80]
        scenario = lab.library.scenarios.get(asked)
        try:
            with open(scenario.path, encoding="utf-8") as file:
                editor.text = file.read()
            editor.name = f"{scenario.id}.yaml"
        except (AttributeError, OSError):  # no such scenario, or no file behind it
            editor.start_error = _("There is no scenario %(id)s in the library.", id=asked)
    elif args.get("whatif"):
        _from_whatif(editor, str(args["whatif"]), lang)
    elif args.get("scenario"):
        try:
            editor.text = normal(share.decode(str(args["scenario"])))
        except share.ShareError as exc:
            editor.start_error = share_refusal(exc)
    return editor


def _from_whatif(editor: Editor, value: str, lang: str) -> None:
    """The YAML "Save as scenario" writes for the what-if `value` (its sentence if refused)."""
    lab = current_app.extensions["lab"]
    try:
        whatif = decode(value)
        scenarios = lab.library.scenarios
        base = None
        scenario = scenarios.get(whatif.scenario)
        seen = scenario is not None and whatif.version in scenario.versions
        if seen and whatif.transport in scenario.transports:  # the viewer's cached trace
            base = lab.trace(whatif.scenario, whatif.version, whatif.transport)
        # only the engine's run leaves the request's greenlet (no lock of the Lab in a thread)
        text = checker().call(lambda: to_yaml(run_whatif(whatif, scenarios, base)))
    except WhatIfError as exc:
        editor.start_error = pick(exc.text, lang)
        return
    if text is None:
        editor.busy = True
        return
    editor.text, editor.whatif, editor.origin = text, value, digest(text)
    first = text.split("\n", 1)[0]
    if first.startswith("id: "):
        editor.name = f"{first[4:].strip()}.yaml"


def posted() -> Editor:
    """The editor as the form posts it (a field past its bound is cut, a bad one defaulted)."""
    request.max_form_memory_size = FORM_BYTES
    form = request.form
    go = form.get("go") or form.get("at") or "1"
    return Editor(
        text=normal(form.get("text", ""))[: MAX_CHARS + 1],
        name=form.get("name", UNNAMED)[:100].strip() or UNNAMED,
        whatif=form.get("whatif", "")[: share.MAX_VALUE],
        origin=form.get("origin", "")[:64],
        version=form.get("version", "")[:20],
        transport=form.get("transport", "")[:10],
        step=int(go) if go.isdigit() and len(go) <= 7 else 1,
        view=form.get("view", "") if form.get("view") in VIEWS else "overview",
    )
