"""What a room shows, from the viewer's region renderer, and the message that moves a page along.

A room page is the viewer's regions (status, counter, narration, stepper, timeline, the four
panels) with the room's poll in place of the question. A `Cursor` says which: a step of a trace,
in a language, the poll's phase, and for whom (students vote, the instructor sees counts). It
becomes a `Scene` (app.web.scene), so a room's regions are the very drafts and cached markup a
viewer on the same step has, and `change` (what a page showing one cursor needs to show the
next) is decided from the regions' keys (app.web.regions), never from their HTML: a step sends
the new log entry, the marks and stage parts that changed, the narration, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from app.engine.step import Step
from app.web.draw import Target, layout
from app.web.lab import Lab
from app.web.overview import hidden
from app.web.pages import PANELS, draw, whole
from app.web.regions import diff, unseen
from app.web.scene import Poll, Scene, drafts

ROOM = ("trace", "status", "counter", "narration", "checkpoint", "stepper", "timeline", *PANELS)


@dataclass(frozen=True)
class Cursor:
    """What a page shows: a step of a trace, in a language, with the poll's phase, for whom."""

    sid: str
    version: str
    transport: str
    step: int
    lang: str
    phase: str = "idle"
    audience: str = "student"


def scene(lab: Lab, c: Cursor, counts: list[int] | None = None, poll: int = 0) -> Scene:
    """The scene of cursor `c`: the timeline names steps as the viewer's does, up to the next
    question the room has not revealed (so a step changes no mark but at a question), and the
    answer shows once revealed. Counts are the instructor's alone (and make the scene
    uncached)."""
    trace = lab.trace(c.sid, c.version, c.transport)
    step = min(c.step, len(trace) - 1)
    checkpoint = trace[step].get("checkpoint")
    chosen = checkpoint.get("answer") if checkpoint and c.phase == "revealed" else None
    seen = tuple(counts) if counts is not None and c.audience == "instructor" else None
    return Scene(
        c.sid,
        c.version,
        c.transport,
        c.lang,
        step,
        _reach(trace, step, chosen is not None),
        chosen,
        poll=Poll(c.phase, poll, c.audience, seen),
    )


def _reach(trace: list[Step], step: int, revealed: bool) -> int:
    """The first question from `step` on that is still open, else the last step: the steps
    before it cannot give its answer away (render.revealed, the viewer's rule)."""
    first = step + 1 if revealed else step
    return next((i for i in range(first, len(trace)) if trace[i].get("checkpoint")), len(trace) - 1)


def regions(
    lab: Lab,
    c: Cursor,
    counts: list[int] | None = None,
    poll: int = 0,
    target: Target = "page",
) -> dict[str, Markup]:
    """Every region of the page at cursor `c`, whole, by id."""
    s = scene(lab, c, counts, poll)
    return whole(lab, s, drafts(lab, s, ROOM), target)


def change(
    lab: Lab,
    before: tuple[Cursor, int],
    after: tuple[Cursor, int],
    counts: list[int] | None = None,
    shape: str = "",
) -> str:
    """What a page showing cursor `before` (with its poll id) needs to show `after`; a page
    that displays the `shape` picture of the overview ("wide", "tall") gets that one's parts."""
    was = scene(lab, before[0], counts, before[1])
    now = scene(lab, after[0], counts, after[1])
    old, new = drafts(lab, was, ROOM), drafts(lab, now, ROOM)
    ops = unseen(diff(layout(old.values()), layout(new.values())), hidden(shape))
    return draw(lab, now, new, ops, "room")
