"""HTML for a viewer: the full page and the fragments a websocket sends, swapped by id.

A viewer's regions fall into three groups, so most bytes can be shared between sockets:
`step_html` (the four views, narration, counter, timeline, checkpoint) depends only on the
scenario, version, transport, language and step, and is cached in the Lab; `chrome_html` (the
toolbar and the shortcut sheet) depends on the same minus the step, and is cached too;
`session_html` (tabs, play/pause, speed, alert) belongs to one connection and is small. The
lesson panel (goals, and the step that refutes each myth) depends on the trace but not on the
step, so it travels with the chrome. The full page includes the very same partial templates, so
first paint and updates are one markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import render_template
from flask_babel import force_locale

from app.web import lesson, views
from app.web.lab import Lab, Step
from app.web.pacer import SPEEDS, Pacer

VIEWS = ("overview", "transport", "transform", "output")

CheckpointKey = tuple[str, int]


def _asks(step: Step) -> str | None:
    """A checkpoint's question, choices and answer as one string; None for a step without."""
    checkpoint = step.get("checkpoint")
    if not checkpoint:
        return None
    asked = {k: checkpoint.get(k) for k in ("question", "choices", "answer")}
    return json.dumps(asked, sort_keys=True, ensure_ascii=False)


def checkpoint_key(trace: list[Step], index: int) -> CheckpointKey | None:
    """What identifies the checkpoint of step `index` across versions and transports, or None.

    The same script action asks the same question (text, choices, answer) in every trace of a
    scenario, at whatever index that trace puts it, so what it asks is the key, with how many
    identical ones came before it (should a scenario ask the very same thing twice). Not its
    action index: an era-limited action that asks the same question in the other era counts as
    already answered too.
    """
    asks = _asks(trace[index])
    if asks is None:
        return None
    return asks, sum(1 for s in trace[:index] if _asks(s) == asks)


@dataclass
class Viewer:
    """One viewer's cursor: what it looks at. Lives in the socket handler's locals."""

    scenario: Any
    version: str
    transport: str
    lang: str
    step: int = 0
    view: str = "overview"
    # The choice made at each checkpoint answered on this connection, by `checkpoint_key`: kept
    # when the student steps back or switches version, transport or language; `reset` clears it.
    answered: dict[CheckpointKey, int] = field(default_factory=dict)

    @property
    def sid(self) -> str:
        return str(self.scenario.id)

    def query(self, **changes: Any) -> dict[str, Any]:
        """The deep-link query of this state, with `changes` applied (`step` counts from 1)."""
        q = {
            "step": self.step + 1,
            "view": self.view,
            "version": self.version,
            "transport": self.transport,
            "lang": self.lang,
        }
        return q | changes


def url_step(value: Any) -> int:
    """The 0-based index of a URL's `step=N`, which is the Nth step as displayed.

    URLs count steps the way the screen does ("Step 4 of 21" is `step=4`), so an instructor who
    says "open step 4" and a link agree. A missing, empty, zero, negative or unreadable value
    means the first step; a value past the end is clamped to the last step when rendered.
    """
    try:
        return max(0, int(value) - 1)
    except (TypeError, ValueError):
        return 0


def open_viewer(scenario: Any, args: Any, lang: str) -> Viewer:
    """A viewer from a URL query, with every unknown or missing value replaced by a default."""
    versions, transports = list(scenario.versions), list(scenario.transports)
    default = getattr(scenario, "default_version", versions[-1])  # the newest, unless the file says
    version = args.get("version") if args.get("version") in versions else default
    transport = args.get("transport") if args.get("transport") in transports else transports[0]
    view = args.get("view") if args.get("view") in VIEWS else "overview"
    return Viewer(scenario, version, transport, lang, url_step(args.get("step")), view)


def _render(template: str, lang: str, **context: Any) -> str:
    with force_locale(lang):
        return render_template(template, lang=lang, **context)


def _step_context(lab: Lab, v: Viewer) -> dict[str, Any]:
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    return views.step_context(trace, v.step) | {"scenario": v.scenario, "v": v}


def chosen(lab: Lab, v: Viewer) -> int | None:
    """The choice this viewer made at the checkpoint of its step, or None (open, or none)."""
    trace = lab.trace(v.sid, v.version, v.transport)
    key = checkpoint_key(trace, min(v.step, len(trace) - 1))
    return None if key is None else v.answered.get(key)


def step_html(lab: Lab, v: Viewer) -> str:
    """The step's fragments, rendered once per (scenario, version, transport, language, step).

    A checkpoint this viewer has already answered comes with its answer: that variant is
    rendered once per choice and shared like the rest, so going back never asks again.
    """
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    choice = chosen(lab, v)
    key = ("step", v.sid, v.version, v.transport, v.lang, v.step, choice)
    return lab.cached(
        key,
        lambda: _render("partials/step.html", v.lang, chosen=choice, **_step_context(lab, v)),
    )


def _lesson(lab: Lab, v: Viewer) -> dict[str, Any]:
    return lesson.lesson(v.scenario, lab.trace(v.sid, v.version, v.transport))


def chrome_html(lab: Lab, v: Viewer) -> str:
    """Toolbar, lesson and shortcut sheet: the same for every step of a version and language."""
    key = ("chrome", v.sid, v.version, v.transport, v.lang)
    return lab.cached(
        key,
        lambda: _render(
            "partials/chrome.html", v.lang, scenario=v.scenario, v=v, lesson=_lesson(lab, v)
        ),
    )


def session_html(v: Viewer, pacer: Pacer, alert: str = "") -> str:
    """This connection's own regions: tabs, play/pause and speed, and the alert line."""
    return _render(
        "partials/session.html", v.lang, v=v, view=v.view, pacer=pacer, speeds=SPEEDS, alert=alert
    )


def feedback_html(lab: Lab, v: Viewer, choice: int) -> str:
    """The checkpoint with the chosen answer's feedback, and the Output panel it unlocks."""
    key = ("answer", v.sid, v.version, v.transport, v.lang, v.step, choice)
    return lab.cached(
        key,
        lambda: _render("partials/answered.html", v.lang, chosen=choice, **_step_context(lab, v)),
    )


def page_html(lab: Lab, v: Viewer, pacer: Pacer, template: str = "viewer.html") -> str:
    """The whole viewer page for a first visit or a deep link (or `template`, e.g. the embed)."""
    return _render(
        template,
        v.lang,
        view=v.view,
        pacer=pacer,
        speeds=SPEEDS,
        alert="",
        views=VIEWS,
        lesson=_lesson(lab, v),
        chosen=chosen(lab, v),
        **_step_context(lab, v),
    )
