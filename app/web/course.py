"""What a course needs to know about a lesson: its questions by key, and who may frame it.

A question's key identifies it across versions, transports and languages: a short hash of what
it asks (question, choices, answer), so the same checkpoint reached under another protocol
version is the same question, for the score and for the browser's stored progress
(`mcp-lab:progress:<scenario>`). `questions` lists a trace's questions in order with their keys,
which the summary step, the handout and the embed's score (`max`) share. `frame_origins` reads
LAB_FRAME_ANCESTORS, the space-separated origins allowed to frame the lab and to receive its
events. The course path page (/course) lists the scenarios in the library's order, which is the
scenarios' `order` field; `next_scenario` follows the same order for the summary step.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Blueprint, Flask, current_app, render_template

from app.web import lesson, security
from app.web.i18n import select_locale

Step = dict[str, Any]

bp = Blueprint("course", __name__)


def question_key(checkpoint: dict[str, Any] | None) -> str:
    """ "q-" and 12 hex digits naming what a checkpoint asks; "" for no checkpoint."""
    if not checkpoint:
        return ""
    asked = {k: checkpoint.get(k) for k in ("question", "choices", "answer")}
    text = json.dumps(asked, sort_keys=True, ensure_ascii=False)
    return "q-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def questions(trace: list[Step]) -> list[dict[str, Any]]:
    """The trace's questions in order: {"n" (from 1), "step" (index), "key", "checkpoint"}."""
    asked = [s for s in trace if s.get("checkpoint")]
    return [
        {
            "n": n,
            "step": s["index"],
            "key": question_key(s["checkpoint"]),
            "checkpoint": s["checkpoint"],
        }
        for n, s in enumerate(asked, 1)
    ]


def frame_origins(config: Any) -> list[str]:
    """The origins of LAB_FRAME_ANCESTORS (a space-separated string or a list)."""
    return security.origins(config.get("FRAME_ANCESTORS"))


def lesson_questions(v: Any) -> list[dict[str, Any]]:
    """The questions of the trace a viewer `v` is on (for templates)."""
    return questions(current_app.extensions["lab"].trace(v.sid, v.version, v.transport))


def next_scenario(sid: str) -> Any | None:
    """The scenario after `sid` in the course's order (the library's order), or None."""
    ids = list(current_app.extensions["lab"].library.scenarios)
    at = ids.index(sid) + 1 if sid in ids else len(ids)
    return current_app.extensions["lab"].scenario(ids[at]) if at < len(ids) else None


def lesson_of(v: Any) -> dict[str, Any]:
    """Goals and myths (with refuting steps) of the trace a viewer is on."""
    trace = current_app.extensions["lab"].trace(v.sid, v.version, v.transport)
    return lesson.lesson(v.scenario, trace)


@bp.get("/course")
def path() -> str:
    """The course path: every scenario in order, marked from this browser's progress."""
    return render_template(
        "course.html",
        lang=select_locale(),
        scenarios=list(current_app.extensions["lab"].library.scenarios.values()),
    )


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(
        question_key=question_key,
        lesson_questions=lesson_questions,
        lesson_of=lesson_of,
        next_scenario=next_scenario,
    )
    app.register_blueprint(bp)
