"""A lesson as a SCORM package: `/scenario/<id>/scorm.zip` and what `mcp-lab package` writes.

`?scorm=1.2|2004&lang=&version=&transport=` choose the package; the lab's address inside it is
LAB_PUBLIC_URL when set, else the address this request came to, so a package downloaded from
the lab served to a school names the address its students reach. `package` makes the bytes in
an app context (the CLI opens a request context of its own, with the address it was given),
rendering the launch page through the lab's own catalogs in the lesson's language.

Only the library's scenarios are packaged: an uploaded recording lives in one server's memory
and would leave an LMS with an empty frame once it is gone. A choice the scenario does not
have is refused with a sentence in the author's language (400); the viewer's own links never
ask for one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request
from flask_babel import force_locale, gettext

from app.scorm.manifest import EDITIONS, edition
from app.scorm.package import Lesson, build
from app.web.course import questions
from app.web.i18n import pick, select_locale

bp = Blueprint("scorm", __name__)


class Refused(ValueError):
    """A package that cannot be made as asked; the message is for the author, translated."""


def packable(sid: str) -> bool:
    """True for a scenario of the library (what the viewer offers a package for)."""
    return sid in current_app.extensions["lab"].library.scenarios


def embed_src(lab: str, sid: str, lang: str, version: str, transport: str) -> str:
    """The lesson's /embed address on the lab at `lab` (its public address, maybe with a path)."""
    query = urlencode({"version": version, "transport": transport, "lang": lang})
    return f"{lab}/embed/{quote(sid, safe='')}?{query}"


def package(
    sid: str, scorm: str, lang: str, version: str | None, transport: str | None, lab: str
) -> tuple[Lesson, bytes]:
    """The package of a library scenario; LookupError if there is none, Refused for bad choices."""
    labs = current_app.extensions["lab"]
    scenario = labs.library.scenarios.get(sid)
    if scenario is None:
        raise LookupError(sid)
    with force_locale(lang):
        if scorm not in EDITIONS:
            raise Refused(gettext("A package is SCORM 1.2 or SCORM 2004: scorm=1.2 or scorm=2004."))
        version = version or scenario.default_version
        transport = transport or scenario.transports[0]
        if version not in scenario.versions:
            raise Refused(
                gettext(
                    "This scenario does not run under protocol version %(version)s; "
                    "it runs under %(versions)s.",
                    version=version,
                    versions=", ".join(scenario.versions),
                )
            )
        if transport not in scenario.transports:
            raise Refused(
                gettext(
                    "This scenario does not run over %(transport)s; it runs over %(transports)s.",
                    transport=transport,
                    transports=", ".join(scenario.transports),
                )
            )
        lesson = Lesson(sid, pick(scenario.title, lang), lang, version, transport, edition(scorm))
        asked = questions(labs.trace(sid, version, transport))
        html = render_template(
            "scorm/launch.html",
            lang=lang,
            title=lesson.title,
            edition=scorm,
            lab=lab,
            sid=sid,
            src=embed_src(lab, sid, lang, version, transport),
            questions={q["key"]: pick(q["checkpoint"]["question"], lang) for q in asked},
        )
    return lesson, build(lesson, html)


@bp.get("/scenario/<sid>/scorm.zip")
def scorm_zip(sid: str) -> Any:
    lang = select_locale()
    lab = str(current_app.config.get("PUBLIC_URL") or request.url_root).rstrip("/")
    args = request.args
    try:
        lesson, data = package(
            sid, args.get("scorm", ""), lang, args.get("version"), args.get("transport"), lab
        )
    except LookupError:
        abort(404)
    except Refused as refused:
        with force_locale(lang):
            return render_template("scorm/refused.html", lang=lang, message=str(refused)), 400
    return Response(
        data,
        mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{lesson.filename}"'},
    )


def init_app(app: Flask) -> None:
    app.jinja_env.globals["scorm_packable"] = packable
    app.register_blueprint(bp)
