"""The lab as an LTI 1.3 tool: a learning management system launches a lesson and gets its score.

pylti1p3 (its Flask adapter) does the protocol: it validates the OIDC login initiation, the
launch's id_token (signature from the platform's JWKS, nonce, state, deployment), builds the
deep-linking response JWT and posts scores through Assignment and Grade Services with a signed
client assertion. This module only maps a launch to a scenario and a lesson to a score:

- GET|POST /lti/login: OIDC login initiation; redirects the browser to the platform.
- POST /lti/launch: a resource-link launch opens the scenario named by the link's custom
  parameter `scenario` (or `?scenario=` in its target link); a deep-linking launch shows the
  scenario picker.
- POST /lti/deep-link: the instructor's pick, sent back to the platform as an LtiResourceLink
  with a line item (out of 100), so the platform makes the link's gradebook column.
- POST /lti/score: the viewer reports the first answers of a completed lesson; the score is
  recomputed here from the trace (questions right on the first try) and sent to the gradebook.
- GET /lti/jwks: the tool's public keys, which the platform uses to check our signatures.

Registration comes from LAB_LTI_CONFIG, a pylti1p3 tool configuration file (JSON, one entry per
platform issuer, with the tool's key files relative to it). Launch data are kept on the server
keyed by the launch id (an id_token does not fit in a cookie), in the lab's store
(app.web.lti_store): Redis with LAB_REDIS_URL, so launches survive a restart and work with
--workers; else this process's memory.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import force_locale, gettext
from pylti1p3.contrib.flask import FlaskMessageLaunch, FlaskOIDCLogin, FlaskRequest
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.grade import Grade
from pylti1p3.launch_data_storage.cache import CacheDataStorage
from pylti1p3.lineitem import LineItem
from pylti1p3.tool_config import ToolConfJsonFile

from app.bounded_json import JsonRefused, read_json
from app.web.classroom.errors import StoreUnavailable
from app.web.course import questions
from app.web.i18n import select_locale
from app.web.lti_store import LaunchCache, open_cache

bp = Blueprint("lti", __name__, url_prefix="/lti")

CUSTOM = "https://purl.imsglobal.org/spec/lti/claim/custom"
TARGET = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"


class LaunchStore(CacheDataStorage[Any]):
    """pylti1p3's cache-backed launch data storage over the app's cache (lti_store.py)."""

    def __init__(self, cache: LaunchCache) -> None:
        super().__init__()
        self._cache = cache  # type: ignore[assignment]  # pylti1p3 declares it None


def _tool() -> tuple[ToolConfJsonFile, LaunchStore]:
    path = current_app.config.get("LTI_CONFIG")
    if not path:
        abort(404)  # not an LTI tool unless configured
    return ToolConfJsonFile(str(path)), LaunchStore(current_app.extensions["lti-cache"])


def _refuse(message: str, code: int = 400) -> tuple[str, int]:
    lang = select_locale()
    with force_locale(lang):
        return render_template("lti/error.html", lang=lang, message=message), code


@bp.errorhandler(StoreUnavailable)
def _unavailable(exc: StoreUnavailable) -> tuple[str, int]:
    current_app.logger.warning("LTI: the launch store is unavailable: %s", exc)
    with force_locale(select_locale()):
        return _refuse(gettext("The lab's store is not answering. Launch again in a moment."), 503)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    conf, store = _tool()
    target = request.values.get("target_link_uri") or url_for("lti.launch", _external=True)
    if urlsplit(target).netloc != request.host:  # never send a launch to somewhere else
        return _refuse("target_link_uri is not this tool")
    try:
        oidc = FlaskOIDCLogin(FlaskRequest(), conf, launch_data_storage=store)
        return oidc.redirect(target)
    except (LtiException, OIDCException) as exc:  # a login without `iss` is an OIDCException
        return _refuse(str(exc))


def _launch(conf: ToolConfJsonFile, store: LaunchStore, launch_id: str | None = None) -> Any:
    if launch_id is None:
        return FlaskMessageLaunch(FlaskRequest(), conf, launch_data_storage=store)
    return FlaskMessageLaunch.from_cache(launch_id, FlaskRequest(), conf, launch_data_storage=store)


def scenario_of(data: dict[str, Any]) -> str | None:
    """The scenario a resource link opens: its custom `scenario`, else `?scenario=` of its URL."""
    custom = data.get(CUSTOM) or {}
    if isinstance(custom, dict) and isinstance(custom.get("scenario"), str):
        return str(custom["scenario"])
    found = parse_qs(urlsplit(str(data.get(TARGET) or "")).query).get("scenario")
    return found[0] if found else None


@bp.post("/launch")
def launch() -> Any:
    conf, store = _tool()
    try:
        message = _launch(conf, store)
        data = message.get_launch_data()
    except LtiException as exc:
        return _refuse(str(exc), 401)
    lab, lang = current_app.extensions["lab"], select_locale()
    if message.is_deep_link_launch():
        with force_locale(lang):
            return render_template(
                "lti/pick.html",
                lang=lang,
                launch_id=message.get_launch_id(),
                scenarios=list(lab.library.scenarios.values()),
            )
    sid = scenario_of(data)
    if not sid or lab.scenario(sid) is None:
        return _refuse(f"no scenario {sid!r} in this lab", 404)
    return redirect(url_for("viewer.page", sid=sid, lang=lang, lti=message.get_launch_id()), 303)


@bp.post("/deep-link")
def deep_link() -> Any:
    conf, store = _tool()
    lab, lang = current_app.extensions["lab"], select_locale()
    scenario = lab.scenario(request.form.get("scenario", ""))
    try:
        message = _launch(conf, store, request.form.get("launch_id", ""))
        if scenario is None or not message.is_deep_link_launch():
            return _refuse("pick a scenario of this lab")
        resource = (
            DeepLinkResource()
            .set_url(url_for("lti.launch", _external=True))
            .set_custom_params({"scenario": scenario.id})
            .set_title(scenario.title.get(lang) or scenario.title["en"])
            # A gradebook column for the link: the platform creates it with the link, and its
            # launches name it in their AGS claim, which is where /lti/score posts.
            .set_lineitem(
                LineItem()
                .set_score_maximum(100)
                .set_label(scenario.title.get(lang) or scenario.title["en"])
                .set_resource_id(scenario.id)
                .set_tag("mcp-lab")
            )
        )
        link = message.get_deep_link()
        jwt = link.get_response_jwt([resource])
        return_url = link._deep_link_settings["deep_link_return_url"]
    except LtiException as exc:
        return _refuse(str(exc), 401)
    with force_locale(lang):
        page = make_response(render_template("lti/return.html", lang=lang, url=return_url, jwt=jwt))
    # The lab's policy lets forms post only to the lab; this page's one form goes to the platform.
    target = urlsplit(return_url)
    policy = current_app.config.get("CSP", "form-action 'self'")
    page.headers["Content-Security-Policy"] = policy.replace(
        "form-action 'self'", f"form-action 'self' {target.scheme}://{target.netloc}"
    )
    return page


def lesson_score(trace: list[dict[str, Any]], answers: dict[str, Any]) -> tuple[int, int]:
    """(right on the first try, questions) of a trace, from {questionKey: {"choice": i}}."""
    asked = questions(trace)
    raw = 0
    for q in asked:
        first = answers.get(q["key"]) if isinstance(answers, dict) else None
        choice = first.get("choice") if isinstance(first, dict) else None
        raw += int(isinstance(choice, int) and choice == q["checkpoint"]["answer"])
    return raw, len(asked)


@bp.post("/score")
def score() -> Any:
    conf, store = _tool()
    try:  # bounded: a few thousand '[' are a 400 here, not a RecursionError
        body = read_json(request.get_data(), 65536, want=dict)
    except JsonRefused:
        return jsonify(error="a JSON object is expected"), 400
    lab = current_app.extensions["lab"]
    try:
        message = _launch(conf, store, str(body.get("launch", "")))
        data = message.get_launch_data()
    except LtiException:
        return jsonify(error="unknown or expired launch"), 404
    sid = scenario_of(data)
    scenario = lab.scenario(sid or "")
    if scenario is None or body.get("scenario") != sid:
        return jsonify(error="this launch opened another scenario"), 409
    version = body.get("version") if body.get("version") in scenario.versions else None
    transport = body.get("transport") if body.get("transport") in scenario.transports else None
    if version is None or transport is None:
        return jsonify(error="unknown version or transport"), 400
    raw, most = lesson_score(lab.trace(sid, version, transport), body.get("answers") or {})
    if not message.has_ags():
        return jsonify(raw=raw, max=most, sent=False)
    grade = (
        Grade()
        .set_score_given(raw)
        .set_score_maximum(most or 1)
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(data["sub"])
        .set_timestamp(datetime.now(UTC).isoformat(timespec="milliseconds"))
    )
    try:
        message.get_ags().put_grade(grade)
    except (LtiException, OSError) as exc:
        current_app.logger.warning("AGS score for %s failed: %s", sid, exc)
        return jsonify(error="the gradebook did not take the score", raw=raw, max=most), 502
    return jsonify(raw=raw, max=most, sent=True)


@bp.get("/jwks")
def jwks() -> Any:
    conf, _ = _tool()
    return jsonify(conf.get_jwks())


def init_app(app: Flask) -> None:
    app.extensions["lti-cache"] = open_cache(app.config)
    if app.config.get("LTI_CONFIG") and not app.secret_key:
        import secrets

        app.secret_key = secrets.token_hex(32)  # the OIDC nonce lives in the session
    app.register_blueprint(bp)
