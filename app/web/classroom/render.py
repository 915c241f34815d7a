"""What a room shows, region by region, and the smallest message that moves a page along.

A room page is the viewer's regions (status, counter, narration, stepper, timeline, the four
panels) plus the room's own: the poll in place of the checkpoint, and a bar that says whether
a student follows the class or browses on their own. Each region is rendered once per
(scenario, version, transport, language, step) and kept in the Lab's fragment cache; the poll
and the Output panel (which an open question keeps its answer out of) also depend on the
poll's phase and on who looks (students vote, the instructor sees counts).

`delta(before, after)` is what a page showing `before` needs to show `after`: only the regions
whose HTML changed, and for the Transport log only the entries that are new or changed
(appended to the list, or swapped by id), not the whole log again, and for the timeline only
the marks whose state changed. Anything else (another
version or transport, a step back) sends the regions whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask import render_template
from flask_babel import force_locale

from app.web import views
from app.web.lab import Lab
from app.web.render import Viewer

STEP_REGIONS = (
    ("status", "partials/_status.html"),
    ("counter", "partials/_counter.html"),
    ("narration", "partials/_narration.html"),
    ("stepper", "partials/_stepper.html"),
    ("timeline", "partials/_timeline.html"),
    ("overview", "partials/_overview.html"),
    ("transport", "partials/_transport.html"),
    ("transform", "partials/_transform.html"),
)
_ENTRY = re.compile(r'<li class="frame[^"]*" id="(frame-\d+)">')
APPEND = '<ol hx-swap-oob="beforeend:#panel-transport ol.log">'
_MARK = re.compile(r'<a id="mark-\d+".*?</a>', re.DOTALL)


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


def _viewer(lab: Lab, c: Cursor) -> Viewer:
    return Viewer(lab.scenario(c.sid), c.version, c.transport, c.lang, c.step)


def _context(lab: Lab, c: Cursor) -> dict[str, Any]:
    v = _viewer(lab, c)
    trace = lab.trace(c.sid, c.version, c.transport)
    step = min(c.step, len(trace) - 1)
    v.step = step
    context = views.step_context(trace, step) | {"scenario": v.scenario, "v": v, "lang": c.lang}
    checkpoint = trace[step].get("checkpoint")
    context["chosen"] = checkpoint.get("answer") if checkpoint and c.phase == "revealed" else None
    return context


def _render(template: str, locale: str, **context: Any) -> str:
    with force_locale(locale):
        return render_template(template, **context)


def step_regions(lab: Lab, c: Cursor) -> dict[str, str]:
    """The regions of the step that do not depend on the poll, each rendered once."""
    out = {}
    context: dict[str, Any] = {}
    for name, template in STEP_REGIONS:
        key = ("live", name, c.sid, c.version, c.transport, c.lang, c.step)

        def render(t: str = template) -> str:
            if not context:  # computed once, only when some region is not cached yet
                context.update(_context(lab, c))
            return _render(t, c.lang, **context)

        out[name] = lab.cached(key, render)
    return out


def poll_html(lab: Lab, c: Cursor, counts: list[int] | None = None, poll: int = 0) -> str:
    """The poll (the question of the step) as students or the instructor see it."""
    context = _context(lab, c)
    args = {"phase": c.phase, "audience": c.audience, "counts": counts, "poll_id": poll}
    if c.audience == "instructor":  # counts change with every vote: not cached
        return _render("classroom/_poll.html", c.lang, **context, **args)
    key = ("live", "poll", c.sid, c.version, c.transport, c.lang, c.step, c.phase, poll)
    return lab.cached(key, lambda: _render("classroom/_poll.html", c.lang, **context, **args))


def output_html(lab: Lab, c: Cursor) -> str:
    revealed = c.phase == "revealed"
    key = ("live", "output", c.sid, c.version, c.transport, c.lang, c.step, revealed)
    return lab.cached(key, lambda: _render("partials/_output.html", c.lang, **_context(lab, c)))


def regions(lab: Lab, c: Cursor, counts: list[int] | None = None, poll: int = 0) -> dict[str, str]:
    """Every region of the page at cursor `c`, by name."""
    out = step_regions(lab, c)
    out["checkpoint"] = poll_html(lab, c, counts, poll)
    out["output"] = output_html(lab, c)
    return out


def _entries(transport: str) -> tuple[str, list[tuple[str, str]], str] | None:
    """The Transport panel cut into its head, its log entries (by id) and its tail."""
    starts = list(_ENTRY.finditer(transport))
    if not starts:
        return None
    end = transport.rindex("</ol>")
    bounds = [m.start() for m in starts] + [end]
    entries = [
        (m.group(1), transport[bounds[i] : bounds[i + 1]].strip()) for i, m in enumerate(starts)
    ]
    return transport[: starts[0].start()], entries, transport[end:]


def transport_delta(before: str, after: str) -> str:
    """The Transport panel's change: new entries appended, changed ones swapped, else whole."""
    if before == after:
        return ""
    old, new = _entries(before), _entries(after)
    if old is None or new is None or old[0] != new[0] or old[2] != new[2]:
        return after
    old_ids = [i for i, _ in old[1]]
    if [i for i, _ in new[1][: len(old_ids)]] != old_ids:
        return after  # a step back or a jump: entries went away
    was = dict(old[1])
    changed = [html for i, html in new[1][: len(old_ids)] if html != was[i]]
    added = [html for _, html in new[1][len(old_ids) :]]
    return "".join(changed) + (APPEND + "".join(added) + "</ol>" if added else "")


def timeline_delta(before: str, after: str) -> str:
    """The timeline's change: the marks whose state changed (past, current), swapped by id."""
    if before == after:
        return ""
    old, new = _MARK.findall(before), _MARK.findall(after)
    if len(old) != len(new) or _MARK.sub("", before) != _MARK.sub("", after):
        return after
    return "".join(b for a, b in zip(old, new, strict=True) if a != b)


def delta(before: dict[str, str] | None, after: dict[str, str]) -> str:
    """The regions of `after` that a page showing `before` lacks (all of them for None)."""
    if before is None:
        return "".join(after.values())
    parts = []
    for name, html in after.items():
        if name == "transport":
            parts.append(transport_delta(before.get(name, ""), html))
        elif name == "timeline":
            parts.append(timeline_delta(before.get(name, ""), html))
        elif before.get(name) != html:
            parts.append(html)
    return "".join(parts)
