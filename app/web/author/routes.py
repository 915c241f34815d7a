"""/author: write a scenario in the browser, see `mcp-lab validate`'s errors as you type, step
through a preview of its trace in the four views, download it, share it as a link, and (an
instructor) save it into the library folder.

- GET /author: the editor, empty or started from `from=ID` (a scenario of the library, its file
  as written), `whatif=VALUE` (a what-if, as "Save as scenario" writes it) or `scenario=VALUE`
  (a shared text, app.web.author.share). It is checked and previewed on the server, so the page
  is whole without JavaScript.
- POST /author: the same page for the text posted (the form's own action without JavaScript).
- POST /author/check: only the result (errors or preview at step `go`), what the page's htmx
  asks for after a pause in typing and for each step of the preview.
- POST /author/download: the text as `<id>.yaml`.
- POST /author/save: into LAB_SCENARIOS_DIR (app.web.author.shelf says who and where).

Every POST has passed the guard (app.web.security) before it gets here. Nothing typed is
trusted: the engine bounds the text and caps its runs, the checks queue (app.web.author.
checking), every text reaches the page through Jinja's escaping, and a refusal is a sentence in
the reader's language.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import gettext
from htmx_flask import request as hx_request

from app.engine.authoring import MAX_CHARS
from app.web.author import shelf
from app.web.author.checking import Checker
from app.web.author.drawing import preview_views
from app.web.author.editor import UNNAMED, Editor, checker, posted, started
from app.web.i18n import select_locale
from app.web.lab import Lab

bp = Blueprint("author", __name__)


def _(text: str, **values: object) -> str:
    return str(gettext(text, **values))


def _check(editor: Editor) -> Editor:
    if editor.text.strip():
        shown = checker().check(
            editor.text, editor.file, editor.version or None, editor.transport or None
        )
        editor.shown, editor.busy = shown, shown is None
    if editor.shown is not None and editor.shown.trace:
        editor.step = max(1, min(editor.step, len(editor.shown.trace)))
        editor.version = editor.shown.version or ""
        editor.transport = editor.shown.transport or ""
    return editor


def _context(editor: Editor, lang: str) -> dict[str, Any]:
    link, no_link = editor.share_link()
    views = ""
    if editor.shown is not None and editor.shown.trace:
        views = preview_views(editor.shown, editor.text, editor.step, lang)
    return {
        "lang": lang,
        "e": editor,
        "link": link,
        "no_link": no_link,
        "views": views,
        "max_chars": MAX_CHARS,
        "library": sorted(current_app.extensions["lab"].library.scenarios.values(), key=_order),
    }


def _order(scenario: Any) -> tuple[int, str]:
    return (getattr(scenario, "order", 1000), scenario.id)


@bp.get("/author")
def page() -> str:
    lang = select_locale()
    return render_template(
        "author/editor.html", **_context(_check(started(request.args, lang)), lang)
    )


@bp.post("/author")
def page_posted() -> str:
    lang = select_locale()
    return render_template("author/editor.html", **_context(_check(posted()), lang))


@bp.post("/author/check")
def check() -> ResponseReturnValue:
    lang = select_locale()
    editor = _check(posted())
    if hx_request.htmx:
        return render_template("author/_result.html", fragment=True, **_context(editor, lang))
    return render_template("author/editor.html", **_context(editor, lang))


@bp.post("/author/download")
def download() -> ResponseReturnValue:
    editor = posted()
    if len(editor.text) > MAX_CHARS:
        return Response(_("The text is too long to be a scenario."), 413, mimetype="text/plain")
    return Response(
        editor.text,
        mimetype="application/yaml",
        headers={"Content-Disposition": f'attachment; filename="{editor.file}"'},
    )


@bp.post("/author/save")
def save() -> ResponseReturnValue:
    lang = select_locale()
    editor = posted()
    key = request.form.get("key", "")[:200]
    saved, refused, status = "", "", 200
    try:
        if not shelf.may_save(
            request.remote_addr,
            dict(request.headers.items()),
            key,
            current_app.config.get("INSTRUCTOR_KEY", ""),
        ):
            raise shelf.SaveRefused("rights")
        sid = _id_of(editor)
        if editor.name == UNNAMED:  # a text not named yet is saved under its id
            editor.name = f"{sid}.yaml"
        shelf.check_name(editor.name, sid)
        replace = request.form.get("replace") == "1"
        shelf.save(current_app.config["SCENARIOS_DIR"], editor.name, editor.text, replace=replace)
    except shelf.SaveRefused as exc:
        if exc.status >= 500:
            current_app.logger.warning("author: save refused: %s", exc)
        refused, status = save_refusal(exc), exc.status
    else:
        current_app.extensions["lab"].clear()  # the library reads its folder again
        saved = editor.name.removesuffix(".yaml")
    if hx_request.htmx:
        return render_template(
            "author/_saved.html", lang=lang, saved=saved, refused=refused
        ), status
    context = _context(_check(editor), lang) | {"saved": saved, "refused": refused}
    return render_template("author/editor.html", **context), status


def _id_of(editor: Editor) -> str:
    """The id of the text, once `mcp-lab validate` would accept it; SaveRefused otherwise."""
    if not editor.text.strip():
        raise shelf.SaveRefused("invalid")
    shown = checker().check(editor.text, editor.file)
    if shown is None:
        raise shelf.SaveRefused("busy")
    if shown.errors or shown.scenario is None:
        raise shelf.SaveRefused("invalid")
    return shown.scenario.id


def save_refusal(exc: shelf.SaveRefused) -> str:
    texts = {
        "rights": _(
            "Only the instructor can save into the library: open the lab on its own machine "
            "(127.0.0.1), or give the instructor's key."
        ),
        "invalid": _("Only a scenario without errors can be saved: fix the errors listed first."),
        "name": _(
            "A file name is the scenario's id and .yaml: lower-case letters, digits and dashes."
        ),
        "id": _("The file name must be the scenario's id followed by .yaml."),
        "outside": _("That name points outside the library folder; nothing was saved."),
        "exists": _("The library already has a file of that name: tick Replace to overwrite it."),
        "busy": _("The lab is busy checking other scenarios: try again in a moment."),
    }
    return texts.get(exc.key, _("The library folder cannot be written; nothing was saved."))


def init_app(app: Any) -> None:
    app.extensions["author"] = Checker()
    drafts = Lab(app.config)
    drafts.kept = 4_000_000  # characters of markup: a few previews, not the library's share
    app.extensions["author-lab"] = drafts
    app.register_blueprint(bp)
