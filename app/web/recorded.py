"""Recorded sessions in the viewer: a JSONL trace file opened like a scenario.

`mcp-lab probe --trace FILE` records a real server's session as the same steps `mcp-lab trace
--format jsonl` prints; this module lets the viewer show such a file. `mcp-lab serve --trace
FILE` loads files when the app starts (config `TRACE_FILES`), and /recorded has an upload form.
A file is checked before it is kept: every line a JSON object with every step key of the right
type, indexes in order, at most MAX_STEPS steps and MAX_BYTES bytes, and each step's view
context computed once, so a broken file gets an error naming its line and is never half shown.
A kept recording becomes a scenario-like object under `rec-<digest>` in the Lab, so the
ordinary viewer (four views, deep links, keyboard, websocket) shows it unchanged; at most KEEP
uploads are kept in memory, oldest dropped.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from flask import Blueprint, Flask, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from app.engine.step import Step
from app.web import views
from app.web.i18n import select_locale

bp = Blueprint("recorded", __name__)

MAX_BYTES = 8 * 1024 * 1024
MAX_STEPS = 5000
KEEP = 32
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
_TYPES: dict[str, tuple[type, ...]] = {
    "index": (int,),
    "kind": (str,),
    "from": (str,),
    "to": (str,),
    "protocolVersion": (str,),
    "era": (str,),
    "transport": (str,),
    "method": (str, type(None)),
    "id": (int, str, type(None)),
    "message": (dict, type(None)),
    "frame": (str, type(None)),
    "channel": (str, type(None)),
    "reply": (str, type(None)),
    "events": (list,),
    "state": (dict,),
    "changes": (dict,),
    "narration": (dict,),
    "checkpoint": (dict, type(None)),
    "action": (int,),
}
_STATE_KEYS = ("servers", "clients", "host", "model", "console")


class TraceFileError(ValueError):
    """A trace file that cannot be shown: `line` (from 1) and what is wrong there."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Recording:
    """What the viewer needs of a scenario, for a recorded session."""

    id: str
    title: dict[str, str]
    summary: dict[str, str]
    versions: list[str]
    transports: list[str]
    default_version: str
    steps: list[Step] = field(repr=False)
    goals: list[dict[str, str]] = field(default_factory=list)
    topics: list[str] = field(default_factory=lambda: ["recorded"])
    misconceptions: list[Step] = field(default_factory=list)


def _check_step(step: Any, position: int) -> None:
    line = position + 1
    if not isinstance(step, dict):
        raise TraceFileError(line, "a step must be a JSON object")
    for key, types in _TYPES.items():
        if key not in step:
            raise TraceFileError(line, f"the step has no {key!r}")
        value = step[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise TraceFileError(line, f"{key!r} has the wrong type ({type(value).__name__})")
    if step["index"] != position:
        raise TraceFileError(line, f"'index' is {step['index']}, expected {position}")
    if step["protocolVersion"] not in VERSIONS:
        raise TraceFileError(line, f"unknown protocolVersion {step['protocolVersion']!r}")
    if step["transport"] not in ("stdio", "http"):
        raise TraceFileError(line, f"unknown transport {step['transport']!r}")
    missing = [k for k in _STATE_KEYS if k not in step["state"]]
    if missing:
        raise TraceFileError(line, f"'state' has no {missing[0]!r}")
    if not all(isinstance(step["narration"].get(lang), str) for lang in ("en", "zh", "ru")):
        raise TraceFileError(line, "'narration' needs en, zh and ru texts")


def check_step(step: Any, position: int) -> None:
    """Raise TraceFileError unless `step` has every step key, typed, at index `position` (a
    step that comes from elsewhere, e.g. the live view's served server, one at a time)."""
    _check_step(step, position)


def parse_trace(data: bytes) -> list[Step]:
    """The steps of a JSONL trace; raises TraceFileError naming the first bad line."""
    if len(data) > MAX_BYTES:
        raise TraceFileError(1, f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFileError(data[: exc.start].count(b"\n") + 1, "not UTF-8 text") from None
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(steps) >= MAX_STEPS:
            raise TraceFileError(number, f"more than {MAX_STEPS} steps")
        try:
            step = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceFileError(number, f"not JSON ({exc.msg})") from None
        _check_step(step, len(steps))
        steps.append(cast(Step, step))  # _check_step has checked its shape
    if not steps:
        raise TraceFileError(1, "the file has no steps")
    for index in range(len(steps)):  # what the views compute must work for every step
        try:
            views.step_context(steps, index)
        except Exception as exc:
            raise TraceFileError(index + 1, f"the step cannot be shown ({exc})") from None
    return steps


def _server_name(steps: list[Step]) -> str:
    clients = steps[-1]["state"].get("clients") or {}
    for client in clients.values() if isinstance(clients, dict) else []:
        info = client.get("serverInfo") if isinstance(client, dict) else None
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            return f"{info['name']} {info.get('version', '')}".strip()
    return "?"


def recording(steps: list[Step], source: str) -> Recording:
    version, transport = steps[-1]["protocolVersion"], steps[-1]["transport"]
    for step in steps:  # one viewer key: a session that fell back to legacy shows as one
        step["protocolVersion"], step["transport"] = version, transport
    digest = hashlib.sha256(json.dumps(steps, sort_keys=True).encode()).hexdigest()[:12]
    server = _server_name(steps)
    what = f"{server} · {version} · {transport}"
    return Recording(
        id=f"rec-{digest}",
        title={
            "en": f"Recorded session: {what}",
            "zh": f"录制的会话：{what}",
            "ru": f"Записанный сеанс: {what}",
        },
        summary={
            "en": f"A real session recorded from {source}, step by step.",
            "zh": f"从 {source} 录制的真实会话，逐步回放。",
            "ru": f"Настоящий сеанс, записанный из {source}, шаг за шагом.",
        },
        versions=[version],
        transports=[transport],
        default_version=version,
        steps=steps,
    )


def add(app: Flask, rec: Recording) -> None:
    pinned = frozenset(app.config.get("_TRACE_IDS", ()))
    app.extensions["lab"].add_recording(rec, keep=KEEP, pinned=pinned)


def init_app(app: Flask) -> None:
    """Load the files `mcp-lab serve --trace` named; a bad one stops the start with its error."""
    loaded: list[str] = []
    app.config["_TRACE_IDS"] = ()
    for path in app.config.get("TRACE_FILES") or []:
        data = Path(path).read_bytes()
        try:
            rec = recording(parse_trace(data), Path(path).name)
        except TraceFileError as exc:
            raise SystemExit(f"mcp-lab: {path}: {exc}") from None
        loaded.append(rec.id)
        app.config["_TRACE_IDS"] = tuple(loaded)
        add(app, rec)


def same_origin() -> bool:
    """Whether a state-changing request comes from the lab's own pages (or from no browser).

    Pages are served with Referrer-Policy: no-referrer, so a browser's own form POST says
    `Origin: null`; Sec-Fetch-Site is what tells same-origin from cross-site then.
    """
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser (curl, a script): nothing to forge
    return origin.rstrip("/") == request.host_url.rstrip("/")


@bp.route("/recorded", methods=["GET", "POST"])
def upload() -> ResponseReturnValue:
    lang = select_locale()
    lab = current_app.extensions["lab"]
    error = None
    status = 200
    if request.method == "POST":
        if not same_origin():
            abort(403)
        if (request.content_length or 0) > MAX_BYTES + 65536:
            error, status = _("The file is too large."), 413
        else:
            file = request.files.get("trace")
            if file is None or not file.filename:
                error, status = _("Choose a trace file first."), 400
            else:
                try:
                    rec = recording(parse_trace(file.read(MAX_BYTES + 1)), file.filename)
                except TraceFileError as exc:
                    error, status = (
                        _("This file is not a trace the lab can show: %(why)s", why=str(exc)),
                        400,
                    )
                else:
                    add(current_app._get_current_object(), rec)  # type: ignore[attr-defined]
                    return redirect(url_for("viewer.page", sid=rec.id, lang=lang), 303)
    recordings = list(lab.recorded.values())
    return render_template("recorded.html", lang=lang, recordings=recordings, error=error), status
