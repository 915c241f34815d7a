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

import re
from dataclasses import dataclass, field
from typing import Any

from flask import render_template, url_for
from flask_babel import force_locale

from app.web import course, lesson, views
from app.web.lab import Lab, Step
from app.web.pacer import SPEEDS, Pacer

VIEWS = ("overview", "transport", "transform", "output")

CheckpointKey = str


def _asks(step: Step) -> str:
    checkpoint = step.get("checkpoint")
    return course.question_key(dict(checkpoint)) if checkpoint else ""


def checkpoint_key(trace: list[Step], index: int) -> CheckpointKey | None:
    """The short name of the checkpoint of step `index`, the same across versions and transports.

    The same script action asks the same question (text, choices, answer) in every trace of a
    scenario, at whatever index that trace puts it, so a digest of what it asks is the key
    (`course.question_key`, the key of the course's progress too), with how many identical ones
    came before it when a scenario asks the very same thing twice.
    Not its action index: an era-limited action that asks the same question in the other era
    counts as already answered too. It is the `<questionKey>` of the browser's storage key
    `mcp-lab:answer:<scenario>:<version>:<transport>:<questionKey>`; an edit of the question
    makes a new key, so an old answer never answers a changed question.
    """
    key = _asks(trace[index])
    if not key:
        return None
    nth = sum(1 for s in trace[:index] if _asks(s) == key)
    return key if nth == 0 else f"{key}-{nth}"


def parse_answers(raw: Any, limit: int = 64) -> dict[CheckpointKey, int]:
    """`key:choice,key:choice` from a socket URL (the answers the browser remembers).

    Anything malformed is skipped, not refused: a stale or edited entry must not cost the others.
    Whether a key belongs to this scenario and a choice is in range is checked where it is used.
    """
    answers: dict[CheckpointKey, int] = {}
    if not isinstance(raw, str):
        return answers
    for item in raw.split(",")[:limit]:
        key, _, choice = item.partition(":")
        if _KEY.fullmatch(key) and choice.isdigit() and len(choice) <= 3:
            answers[key] = int(choice)
    return answers


_KEY = re.compile(r"q-[0-9a-f]{12}(-\d{1,3})?")


@dataclass
class Viewer:
    """One viewer's cursor: what it looks at. Lives in the socket handler's locals."""

    scenario: Any
    version: str
    transport: str
    lang: str
    step: int = 0
    view: str = "overview"
    # The presenter layout (`present=1`): the same regions, laid out for the front of a room.
    present: bool = False
    # The choice that closed each checkpoint (the right one, picked or shown), by
    # `checkpoint_key`: kept when the student steps back or switches version, transport or
    # language, learnt from the browser's storage on connect; `reset` clears it.
    answered: dict[CheckpointKey, int] = field(default_factory=dict)
    # The wrong choices tried at a checkpoint still open, in the order they were picked.
    tried: dict[CheckpointKey, list[int]] = field(default_factory=dict)
    # The furthest step this viewer has been shown: the timeline names steps up to here.
    furthest: int = 0

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
        if self.present:
            q["present"] = 1
        return q | changes


def lab_url(v: Viewer, **query: Any) -> str:
    """The address of this viewer in another state (`step` counts from 1): the href behind
    every stepper, timeline and language link, so it works without the socket, on a middle
    click and as a copied link. A scenario that is not served at /scenario/<id> (a watched live
    session) names its own page through a `link(**query)` method."""
    link = getattr(v.scenario, "link", None)
    if callable(link):
        return str(link(**query))
    return url_for("viewer.page", sid=v.sid, **query)


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
    present = args.get("present") in ("1", "true", "yes")
    step = url_step(args.get("step"))
    return Viewer(
        scenario,
        version,
        transport,
        lang,
        step,
        view,
        present,
        answered=parse_answers(args.get("answers")),
    )


def _render(template: str, lang: str, **context: Any) -> str:
    with force_locale(lang):
        return render_template(template, lang=lang, **context)


def _step_context(lab: Lab, v: Viewer) -> dict[str, Any]:
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    return views.step_context(trace, v.step) | {
        "scenario": v.scenario,
        "v": v,
        "checkpoint_name": checkpoint_key(trace, v.step) or "",
    }


def chosen_at(trace: list[Step], v: Viewer, index: int) -> int | None:
    """The choice that closed the checkpoint of step `index` for this viewer, or None."""
    key = checkpoint_key(trace, index)
    if key is None or key not in v.answered:
        return None
    checkpoint = trace[index].get("checkpoint")
    choice = v.answered[key]
    # only the right answer closes a question: a remembered wrong or out-of-range one does not
    return choice if checkpoint and choice == checkpoint.get("answer") else None


def chosen(lab: Lab, v: Viewer) -> int | None:
    """The choice this viewer made at the checkpoint of its step, or None (open, or none)."""
    trace = lab.trace(v.sid, v.version, v.transport)
    return chosen_at(trace, v, min(v.step, len(trace) - 1))


def tried(lab: Lab, v: Viewer) -> tuple[int, ...]:
    """The wrong choices tried at the open checkpoint of this viewer's step, in order."""
    trace = lab.trace(v.sid, v.version, v.transport)
    key = checkpoint_key(trace, min(v.step, len(trace) - 1))
    if key is None or chosen(lab, v) is not None:
        return ()
    return tuple(v.tried.get(key, ()))


def first_open(lab: Lab, v: Viewer, start: int = 0) -> int | None:
    """The first step from `start` on whose question this viewer has not answered, or None."""
    trace = lab.trace(v.sid, v.version, v.transport)
    for i in range(max(0, start), len(trace)):
        if trace[i].get("checkpoint") and chosen_at(trace, v, i) is None:
            return i
    return None


def revealed(lab: Lab, v: Viewer) -> int:
    """The last step the timeline may name: as far as the viewer has been, and up to the first
    open question (the steps before it cannot give its answer away); never past that question.
    """
    last = len(lab.trace(v.sid, v.version, v.transport)) - 1
    frontier = first_open(lab, v)
    return max(v.furthest, v.step, last if frontier is None else frontier)


def step_html(lab: Lab, v: Viewer) -> str:
    """The step's fragments, rendered once per (scenario, version, transport, language, step).

    A checkpoint this viewer has already answered comes with its answer, and an open one with
    the wrong choices tried so far: those variants are rendered once each and shared like the
    rest, so going back never asks again. The timeline is not in here (see `timeline_html`).
    """
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    v.furthest = max(v.furthest, v.step)
    choice, wrong = chosen(lab, v), tried(lab, v)
    key = ("step", v.sid, v.version, v.transport, v.lang, v.step, choice, wrong)
    return lab.cached(
        key,
        lambda: _render(
            "partials/step.html", v.lang, chosen=choice, tried=wrong, **_step_context(lab, v)
        ),
    )


def timeline_html(lab: Lab, v: Viewer) -> str:
    """The timeline: steps up to `revealed` named by kind and method, later ones by number only.

    Shared by every viewer at the same step with the same reach (cached on both).
    """
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    reach = revealed(lab, v)
    key = ("timeline", v.sid, v.version, v.transport, v.lang, v.step, reach)
    return lab.cached(
        key,
        lambda: _render("partials/_timeline.html", v.lang, reach=reach, **_step_context(lab, v)),
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


def feedback_html(lab: Lab, v: Viewer) -> str:
    """The checkpoint after a choice (retry, or answered), with what answering unlocks: the
    Output panel the open question kept its answer out of, and a Next link that goes on."""
    choice, wrong = chosen(lab, v), tried(lab, v)
    key = ("answer", v.sid, v.version, v.transport, v.lang, v.step, choice, wrong)
    return lab.cached(
        key,
        lambda: _render(
            "partials/answered.html", v.lang, chosen=choice, tried=wrong, **_step_context(lab, v)
        ),
    )


def page_html(
    lab: Lab,
    v: Viewer,
    pacer: Pacer,
    template: str = "viewer.html",
    alert: str = "",
    **extra: Any,
) -> str:
    """The whole viewer page for a first visit or a deep link (or `template`, e.g. the embed,
    or the live view's page with its own `extra` context)."""
    trace = lab.trace(v.sid, v.version, v.transport)
    v.step = min(v.step, len(trace) - 1)
    v.furthest = max(v.furthest, v.step)
    return _render(
        template,
        v.lang,
        view=v.view,
        pacer=pacer,
        speeds=SPEEDS,
        alert=alert,
        views=VIEWS,
        lesson=_lesson(lab, v),
        chosen=chosen(lab, v),
        tried=tried(lab, v),
        reach=revealed(lab, v),
        **_step_context(lab, v),
        **extra,
    )
