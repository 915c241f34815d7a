"""The what-if's pages: the viewer of a `whatif=` link, a move, undo, and Save as scenario.

- `/scenario/<id>?whatif=VALUE` (app.web.viewer hands it here): the viewer over the what-if's
  trace, its panel open. A value that cannot be read, or that the engine refuses, shows the
  scenario as written with the refusal's sentence in the student's language (status 400).
- `GET /scenario/<id>/whatif?whatif=&change=KIND&...&step=N` makes one move (the panel's
  forms; no state on the server, the result is a new link) and redirects to the what-if's page
  at the same step; `undo=1` drops the last move, `drop=N` move N. A refused move shows the page
  as it was with the refusal, and changes nothing.
- `GET /scenario/<id>/whatif.yaml?whatif=VALUE`: the what-if as a scenario file that
  `mcp-lab validate` accepts (app.engine.whatif.save).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import force_locale
from markupsafe import Markup
from werkzeug.wrappers.response import Response as Redirect

from app.engine.scenario import Scenario
from app.engine.whatif import WhatIf, WhatIfError, decode, encode
from app.engine.whatif.save import to_yaml
from app.web.i18n import pick, select_locale
from app.web.lab import Lab
from app.web.pacer import Pacer
from app.web.pages import page_html
from app.web.render import Viewer, gate, open_viewer, url_step
from app.web.whatif import forms
from app.web.whatif.panel import panel, start_of
from app.web.whatif.render import panel_html
from app.web.whatif.state import SEP, Explored, WhatIfLab, explore, opened

bp = Blueprint("whatif", __name__)

MAX_VALUE = 6000  # characters of a whatif= value the codec reads (it says so past that)


def _lab() -> Lab:
    lab: Lab = current_app.extensions["lab"]
    return lab


def _base(sid: str) -> Any:
    base = _lab().library.scenarios.get(sid)
    if base is None:
        abort(404)
    return base


def _value() -> str:
    return str(request.args.get("whatif") or "")[: MAX_VALUE + 1]


def _page(lab: Lab, v: Viewer, base: Any, shown: Explored | None, error: str = "") -> str:
    wanted = min(v.step, len(lab.trace(v.sid, v.version, v.transport)) - 1)
    v.step = 0
    v.step = gate(lab, v, wanted)
    trace = lab.trace(v.sid, v.version, v.transport)
    p = panel(base, shown, v.version, v.transport, v.step, trace, v.lang, error)
    with force_locale(v.lang):
        html = panel_html(p, v.lang)
    return page_html(lab, v, Pacer(), whatif_panel=Markup(html))


def _as_written(base: Any, error: str) -> str:
    """The scenario as written, with a refusal in the panel."""
    lab = _lab()
    v = open_viewer(base, request.args, select_locale())
    return _page(lab, v, base, None, error)


def _explored(shown: Explored, error: str = "") -> str:
    lab = WhatIfLab(_lab(), shown)  # keeps the run while the page is drawn
    v = open_viewer(shown, request.args, select_locale())
    return _page(lab, v, shown.base, shown, error)


def viewer_page(sid: str) -> ResponseReturnValue:
    """/scenario/<sid>?whatif=VALUE (an empty value: the scenario as written)."""
    base = _base(sid)
    value = _value()
    if not value:
        return _as_written(base, "")
    lang = select_locale()
    try:
        whatif = decode(value)
        if whatif.scenario != sid and whatif.scenario in _lab().library.scenarios:
            return redirect(url_for("viewer.page", sid=whatif.scenario, whatif=value))
        shown = explore(_lab(), whatif)
    except WhatIfError as exc:
        return _as_written(base, pick(exc.text, lang)), 400
    return _explored(shown)


def base_panel(v: Viewer) -> Markup:
    """The panel of a scenario as written (the viewer's own page mounts it)."""
    lab = _lab()
    base = lab.library.scenarios.get(v.sid)
    if not isinstance(base, Scenario):  # a recording, a watched session, a stand-in engine's
        return Markup("")
    trace = lab.trace(v.sid, v.version, v.transport)
    p = panel(base, None, v.version, v.transport, v.step, trace, v.lang)
    return Markup(panel_html(p, v.lang))


@bp.get("/scenario/<sid>/whatif/panel")
def panel_part(sid: str) -> ResponseReturnValue:
    """The panel alone, for a page whose language was switched over its socket."""
    base = _base(sid)
    lang = select_locale()
    said = ""
    try:
        whatif, shown = _current(base)
    except WhatIfError as exc:
        whatif, shown = start_of(base, base.default_version, base.transports[0]), None
        said = pick(exc.text, lang)
    lab = _lab()
    sid_shown = shown.id if shown is not None else base.id
    trace = lab.trace(sid_shown, whatif.version, whatif.transport)
    step = min(url_step(request.args.get("step")), len(trace) - 1)
    p = panel(base, shown, whatif.version, whatif.transport, step, trace, lang, said)
    with force_locale(lang):
        return panel_html(p, lang)


def _current(base: Any) -> tuple[WhatIf, Explored | None]:
    """The what-if the form was sent from, and its run (None: the scenario as written)."""
    value = _value()
    if value:
        shown = opened(_lab(), value)
        return shown.whatif, shown
    version = str(request.args.get("version") or "")
    transport = str(request.args.get("transport") or "")
    version = version if version in base.versions else base.default_version
    transport = transport if transport in base.transports else base.transports[0]
    return start_of(base, version, transport), None


def _landing(sid: str, whatif: WhatIf) -> Redirect:
    """The page of `whatif` at the step the form was sent from (or the scenario as written)."""
    query: dict[str, Any] = {
        "step": url_step(request.args.get("step")) + 1,
        "view": request.args.get("view") or "overview",
        "lang": select_locale(),
    }
    if whatif.changes:
        query["whatif"] = encode(whatif)
    else:
        query |= {"version": whatif.version, "transport": whatif.transport}
    return redirect(url_for("viewer.page", sid=sid, **query), 303)


@bp.get("/scenario/<sid>/whatif")
def change(sid: str) -> ResponseReturnValue:
    """One move, undo, or drop: a new link, or the page as it was with the refusal."""
    base = _base(sid)
    lang = select_locale()
    try:
        whatif, shown = _current(base)
    except WhatIfError as exc:
        return _as_written(base, pick(exc.text, lang)), 400
    try:
        if request.args.get("undo"):
            moved = whatif.undo()
        elif request.args.get("drop"):
            n = forms.Reader(request.args, "drop", 0).number("drop")
            if not isinstance(n, int) or not 1 <= n <= len(whatif.changes):
                abort(400)
            changes = whatif.changes[: n - 1] + whatif.changes[n:]
            moved = WhatIf(whatif.scenario, whatif.version, whatif.transport, changes)
        else:
            moved = whatif.with_change(forms.read(request.args, whatif.moves + 1))
        if moved.changes:
            explore(_lab(), moved)  # refused here, not on landing
    except WhatIfError as exc:
        page = (
            _explored(shown, pick(exc.text, lang))
            if shown
            else _as_written(base, pick(exc.text, lang))
        )
        return page, 422
    return _landing(sid, moved)


@bp.get("/scenario/<sid>/whatif.yaml")
def save(sid: str) -> ResponseReturnValue:
    """Save as scenario: the what-if as a scenario file, downloaded."""
    _base(sid)
    try:
        shown = opened(_lab(), _value())
    except WhatIfError as exc:
        return Response(pick(exc.text, select_locale()), 400, mimetype="text/plain")
    name = f"{shown.base.id}-what-if.yaml"
    return Response(
        to_yaml(shown.run),
        mimetype="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def socket_lab(lab: Lab, sid: str, args: Any) -> Lab:
    """The Lab a viewer's socket at /ws/scenario/<sid> serves: for a what-if's id, the shared
    Lab with that what-if (its URL holds the value); else the shared Lab itself."""
    value = str(args.get("whatif") or "")[: MAX_VALUE + 1]
    if SEP not in sid or not value:
        return lab
    try:
        shown = opened(lab, value)
    except WhatIfError:
        return lab  # the socket then finds no such scenario and closes
    return WhatIfLab(lab, shown) if shown.id == sid else lab
