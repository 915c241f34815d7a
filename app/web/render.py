"""A viewer: its cursor, its links, and the scene it shows.

`Viewer` is one connection's state (step, view, language, the questions it has answered, how far
it has been); it lives in the socket handler's locals. `scene` reduces it to the `Scene` its
shared regions depend on (app.web.scene), and app.web.pages draws that scene: the whole page on
a first visit, then, over the socket, only what changed since the page last showed (`shown`).
The gating rules live here too: a question the viewer has not answered stops every forward move,
and the timeline names steps only up to the first open question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Flask, url_for

from app.web import chrome, panels, stage, story, views
from app.web.compact import Compact
from app.web.lab import Lab, Step
from app.web.overview import SHAPES
from app.web.questions import CheckpointKey, checkpoint_key, parse_answers
from app.web.regions import Layout
from app.web.scene import Scene

__all__ = ["VIEWS", "CheckpointKey", "Viewer", "checkpoint_key", "parse_answers", "scene"]

VIEWS = tuple(view.name for view in panels.VIEWS)
_BUILDERS = (chrome, story)  # imported for the regions they register (app.web.scene.region)


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
    # What the page shows (the keys of its regions), so a message carries only what changed;
    # None until the page is known (a socket that resumes after a drop gets everything).
    shown: Layout | None = None
    resumed: bool = False  # the socket resumes after a drop: the page may show anything
    shape: str = ""  # the overview picture the page displays ("wide", "tall"; "": both)
    alerts: int = 0  # alerts said so far: the same words said twice are said again
    alert: str = ""  # the alert line on show (what the last command was told)

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


def lab_url(v: Any, **query: Any) -> str:
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
        resumed=args.get("resume") == "1",
        shape=args.get("shape") if args.get("shape") in SHAPES else "",
    )


def _trace(lab: Lab, v: Viewer) -> list[Step]:
    return lab.trace(v.sid, v.version, v.transport)


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
    trace = _trace(lab, v)
    return chosen_at(trace, v, min(v.step, len(trace) - 1))


def tried(lab: Lab, v: Viewer) -> tuple[int, ...]:
    """The wrong choices tried at the open checkpoint of this viewer's step, in order."""
    trace = _trace(lab, v)
    key = checkpoint_key(trace, min(v.step, len(trace) - 1))
    if key is None or chosen(lab, v) is not None:
        return ()
    return tuple(v.tried.get(key, ()))


def first_open(lab: Lab, v: Viewer, start: int = 0) -> int | None:
    """The first step from `start` on whose question this viewer has not answered, or None."""
    trace = _trace(lab, v)
    for i in range(max(0, start), len(trace)):
        if trace[i].get("checkpoint") and chosen_at(trace, v, i) is None:
            return i
    return None


def gate(lab: Lab, v: Viewer, to: int) -> int:
    """Where a move from the viewer's step to `to` may go: going back is free; going forward
    stops at the first question on the way that this viewer has not answered."""
    if to <= v.step:
        return to
    stop = first_open(lab, v, v.step)
    return to if stop is None or stop >= to else stop


def revealed(lab: Lab, v: Viewer) -> int:
    """The last step the timeline may name: as far as the viewer has been, and up to the first
    open question (the steps before it cannot give its answer away); never past that question.
    """
    last = len(_trace(lab, v)) - 1
    frontier = first_open(lab, v)
    return max(v.furthest, v.step, last if frontier is None else frontier)


def scene(lab: Lab, v: Viewer) -> Scene:
    """The scene this viewer shows (its step clamped to the trace, and marked as reached)."""
    v.step = min(v.step, len(_trace(lab, v)) - 1)
    v.furthest = max(v.furthest, v.step)
    return Scene(
        v.sid,
        v.version,
        v.transport,
        v.lang,
        v.step,
        revealed(lab, v),
        chosen(lab, v),
        tried(lab, v),
    )


def init_app(app: Flask) -> None:
    """What every region template may call: links, and the stage's text fitting."""
    app.jinja_env.add_extension(Compact)
    app.jinja_env.globals.update(
        lab_url=lab_url,
        http_flavour=views.http_flavour,
        reason=views.reason,
        fit=stage.fit,
        label_lines=stage.label_lines,
    )
