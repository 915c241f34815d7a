"""Recorded sessions in the viewer: a JSONL trace file opened like a scenario.

`mcp-lab probe --trace FILE` records a real server's session as the same steps `mcp-lab trace
--format jsonl` prints; this module lets the viewer show such a file. `mcp-lab serve --trace
FILE` loads files when the app starts (config `TRACE_FILES`), and /recorded has an upload form.
A file is checked before it is kept: at most MAX_BYTES bytes (chunked uploads included, see
app.web.limits) and MAX_STEPS steps, every line read by the bounded JSON reader, every step
valid against the step schema (docs/step.schema.json, generated from app.engine.step's types
and compiled once here, so the contract is written in one place), indexes in order, and each
step's view context computed once, so a broken file gets an error naming its line, in the
reader's language, and is never half shown. A kept recording becomes a scenario-like object
under `rec-<digest>` in the Lab, so the ordinary viewer (four views, deep links, keyboard,
websocket) shows it unchanged; at most KEEP uploads are kept in memory, oldest dropped.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import fastjsonschema
from flask import Blueprint, Flask, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext
from werkzeug.exceptions import RequestEntityTooLarge

from app.bounded_json import JsonRefused, read_json
from app.engine import stepschema
from app.engine.phrasebook import text as phrase
from app.engine.step import LANGUAGES, Step, in_language
from app.web import limits, views
from app.web.i18n import select_locale
from app.web.limits import size_text

bp = Blueprint("recorded", __name__)

MAX_BYTES = 8 * 1024 * 1024
MAX_STEPS = 5000
KEEP = 32


def _(text: str, **values: object) -> str:
    """gettext, typed (Flask-Babel has no annotations); works outside a request too (English)."""
    return str(gettext(text, **values))


VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


class TraceFileError(ValueError):
    """A trace file that cannot be shown: `line` (from 1) and what is wrong there."""

    def __init__(self, line: int, message: str):
        super().__init__(_("line %(line)s: %(what)s", line=line, what=message))
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


@functools.cache
def _validator() -> Callable[[Any], Any]:
    """The step schema, built from the step types (no file to find once installed) and compiled
    once into Python code by fastjsonschema: about 0.25 ms a step where jsonschema's walk took
    7 ms, which for a 5,000-step upload was 35 s of the one worker's time. The schema's own
    validity is a test's business (tests/test_engine_step.py checks it with jsonschema)."""
    return fastjsonschema.compile(stepschema.generate(), use_default=False)


def _where(path: list[Any]) -> str:
    """`data.state.clients` of the validator as `state.clients`; list indexes as `[i]`."""
    out = ""
    for part in path[1:]:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _schema_error(error: fastjsonschema.JsonSchemaValueException) -> str:
    """One schema error as a sentence (the library's own messages are English only)."""
    where = _where(list(error.path or []))
    field, value = repr(where), error.value
    if error.rule == "required":
        wanted: Any = error.rule_definition
        key = repr(next(k for k in wanted if k not in value))
        if not where:
            return _("the step has no %(key)s", key=key)
        return _("%(field)s has no %(key)s", field=field, key=key)
    if error.rule == "additionalProperties":
        known: Any = (error.definition or {}).get("properties", {})
        key = repr(min(set(value) - set(known), default="?"))
        if not where:
            return _("the step has a key the step format does not know: %(key)s", key=key)
        return _("%(field)s has a key the step format does not know: %(key)s", field=field, key=key)
    if error.rule in ("type", "anyOf"):
        kind = JSON_TYPES.get(type(value), "?")
        return _("%(field)s has the wrong type (%(type)s)", field=field, type=kind)
    if error.rule == "enum":
        return _("%(field)s cannot be %(value)s", field=field, value=repr(value)[:60])
    return _("%(field)s does not fit the step format", field=field)


JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _check_step(step: Any, position: int) -> None:
    line = position + 1
    if not isinstance(step, dict):
        raise TraceFileError(line, _("a step must be a JSON object"))
    try:
        _validator()(step)
    except fastjsonschema.JsonSchemaValueException as error:
        raise TraceFileError(line, _schema_error(error)) from None
    if step["index"] != position:
        raise TraceFileError(
            line, _("'index' is %(index)s, expected %(expected)s", index=step["index"],
                    expected=position)
        )  # fmt: skip
    if step["protocolVersion"] not in VERSIONS:
        what = repr(step["protocolVersion"])[:60]
        raise TraceFileError(line, _("unknown protocolVersion %(version)s", version=what))


def check_step(step: Any, position: int) -> None:
    """Raise TraceFileError unless `step` is a valid step at index `position` (a step that
    comes from elsewhere, e.g. the watch view's served server, one at a time)."""
    _check_step(step, position)


def _refused_line(exc: JsonRefused) -> str:
    if exc.reason == "depth":
        return _("nested more than %(depth)s levels deep", depth=exc.limit)
    if exc.reason == "binary":
        return _("not UTF-8 text")
    if exc.reason == "type":
        return _("a step must be a JSON object")
    if exc.reason == "size":
        return _("the file is larger than %(limit)s", limit=size_text(MAX_BYTES))
    return _("not JSON")


def parse_trace(data: bytes) -> list[Step]:
    """The steps of a JSONL trace; raises TraceFileError naming the first bad line."""
    if len(data) > MAX_BYTES:
        raise TraceFileError(1, _("the file is larger than %(limit)s", limit=size_text(MAX_BYTES)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFileError(data[: exc.start].count(b"\n") + 1, _("not UTF-8 text")) from None
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(steps) >= MAX_STEPS:
            raise TraceFileError(number, _("more than %(most)s steps", most=MAX_STEPS))
        try:
            step = read_json(line, MAX_BYTES, want=dict)  # 100,000 '[' is a refusal, not a 500
        except JsonRefused as exc:
            raise TraceFileError(number, _refused_line(exc)) from None
        _check_step(step, len(steps))
        steps.append(cast(Step, step))  # _check_step has checked its shape
        if len(steps) % 64 == 0:
            time.sleep(0)  # a long file must not freeze the one worker's other greenlets
    if not steps:
        raise TraceFileError(1, _("the file has no steps"))
    for index in range(len(steps)):  # what the views compute must work for every step
        if index % 64 == 63:
            time.sleep(0)  # under gevent, let every other page and socket have its turn
        try:
            views.step_context(steps, index)
        except Exception as exc:
            raise TraceFileError(
                index + 1, _("the step cannot be shown (%(why)s)", why=type(exc).__name__)
            ) from None
    return steps


def _server_name(steps: list[Step]) -> str:
    clients = steps[-1]["state"].get("clients") or {}
    for client in clients.values() if isinstance(clients, dict) else []:
        info = client.get("serverInfo") if isinstance(client, dict) else None
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            return f"{info['name']} {info.get('version', '')}".strip()
    return "?"


def _in_every_language(key: str, **params: str) -> dict[str, str]:
    said = phrase(key, params)
    return {lang: in_language(said, lang) for lang in LANGUAGES}


def recording(steps: list[Step], source: str) -> Recording:
    version, transport = steps[-1]["protocolVersion"], steps[-1]["transport"]
    for step in steps:  # one viewer key: a session that fell back to legacy shows as one
        step["protocolVersion"], step["transport"] = version, transport
    digest = hashlib.sha256(json.dumps(steps, sort_keys=True).encode()).hexdigest()[:12]
    server = _server_name(steps)
    what = f"{server} · {version} · {transport}"
    return Recording(
        id=f"rec-{digest}",
        title=_in_every_language("recording.title", what=what),
        summary=_in_every_language("recording.summary", source=source),
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


def _upload() -> tuple[str, int] | Recording:
    """The uploaded file as a recording, or the error to show on the form and its status."""
    # The file and the form around it; werkzeug cuts a body off at this limit, chunked too.
    limits.allow(MAX_BYTES + 65536)
    try:
        file = request.files.get("trace")
    except RequestEntityTooLarge:
        return _("The file is larger than %(limit)s.", limit=size_text(MAX_BYTES)), 413
    if file is None or not file.filename:
        return _("Choose a trace file first."), 400
    try:
        return recording(parse_trace(file.read(MAX_BYTES + 1)), file.filename)
    except TraceFileError as exc:
        return _("This file is not a trace the lab can show: %(why)s", why=str(exc)), 400


@bp.route("/recorded", methods=["GET", "POST"])
def upload() -> ResponseReturnValue:
    lang = select_locale()
    error, status = None, 200
    if request.method == "POST":
        taken = _upload()
        if isinstance(taken, Recording):
            add(current_app._get_current_object(), taken)  # type: ignore[attr-defined]
            return redirect(url_for("viewer.page", sid=taken.id, lang=lang), 303)
        error, status = taken
    recordings = list(current_app.extensions["lab"].recorded.values())
    return render_template("recorded.html", lang=lang, recordings=recordings, error=error), status
