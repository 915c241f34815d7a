"""The viewer's page and the messages that keep it current, from one region renderer.

`page_html` draws every region of a viewer whole (a first visit, a deep link; the "page"
target) and remembers what the page shows (`Viewer.shown`). `frame` is then what a socket sends
after a command: the regions and parts whose keys changed since (app.web.regions.diff), drawn
for the "socket" target, in one message. The regions shared with every other viewer in the same
scene come from app.web.scene; a connection's own regions (its tabs, player and alert) are
drawn here, uncached, since they hold what this connection typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import render_template
from flask_babel import force_locale, gettext
from markupsafe import Markup

from app.web import panels
from app.web.draw import Canvas, Draft, Sketch, Target, layout
from app.web.lab import Lab
from app.web.overview import hidden
from app.web.pacer import SPEEDS, Pacer
from app.web.regions import Layout, Op, diff, unseen
from app.web.render import VIEWS, Viewer, gate, scene
from app.web.scene import Scene, drafts

PANELS = tuple(view.panel for view in panels.VIEWS)
STEP = ("trace", "status", "counter", "narration", "checkpoint", "summary", "stepper", *PANELS)
SHARED = ("masthead", "toolbar", "lesson", *STEP, "timeline", "shortcuts")


def env(lab: Lab, s: Scene) -> dict[str, Any]:
    """What every template of scene `s` reads besides its inputs."""
    scenario = lab.scenario(s.sid)
    links = Viewer(scenario, s.version, s.transport, s.lang, s.step)
    return {"lang": s.lang, "v": links, "scenario": scenario, "step": s.step}


def own(v: Viewer, pacer: Pacer, alert: str | None = "") -> dict[str, Draft]:
    """This connection's regions: its view tabs, play/pause and speed, and the alert line.
    `alert` None leaves the alert line as it is: a frame the student did not ask for (a watched
    session's next message) must not wipe what their last command was told."""
    base = (v.sid, v.version, v.transport, v.lang)
    if alert is None:
        alert = v.alert  # as on show: the same key, so no change is sent
    else:
        if alert:
            v.alerts += 1  # said again, even in the same words
        v.alert = alert
    said = v.alerts if alert else 0
    return {
        "tabs": Sketch("tabs", "partials/_tabs.html", base, view=v.view).done(cached=False),
        "player": Sketch(
            "player",
            "partials/_player.html",
            base,
            playing=pacer.playing,
            speed=pacer.speed,
            speeds=list(SPEEDS),
        ).done(cached=False),
        "alert": Sketch("alert", "partials/_alert.html", base, alert=alert, said=said).done(
            cached=False
        ),
    }


def draw(lab: Lab, s: Scene, found: Mapping[str, Draft], ops: Iterable[Op], target: Target) -> str:
    """The markup of `ops` over the drafts `found` of scene `s`."""
    with force_locale(s.lang):
        return Canvas(lab.cached, env(lab, s), target).message(ops, found)


def whole(lab: Lab, s: Scene, found: Mapping[str, Draft], target: Target) -> dict[str, Markup]:
    """Every region of `found` drawn whole, by id."""
    with force_locale(s.lang):
        canvas = Canvas(lab.cached, env(lab, s), target)
        return {rid: Markup(canvas.whole(d)) for rid, d in found.items()}


def page_html(
    lab: Lab,
    v: Viewer,
    pacer: Pacer,
    template: str = "viewer.html",
    alert: str = "",
    **extra: Any,
) -> str:
    """The whole viewer page for a first visit or a deep link (or `template`, e.g. the embed,
    or the watch page with its own `extra` context); the page then shows `v.shown`."""
    s = scene(lab, v)
    found = drafts(lab, s, SHARED) | own(v, pacer, alert)
    regions = whole(lab, s, found, "page")
    v.shown = layout(found.values())
    with force_locale(v.lang):
        return render_template(
            template,
            lang=v.lang,
            v=v,
            scenario=v.scenario,
            view=v.view,
            views=VIEWS,
            regions=regions,
            **extra,
        )


def frame(
    lab: Lab, v: Viewer, pacer: Pacer, alert: str | None = "", again: Iterable[str] = ()
) -> str:
    """What the page needs to show this viewer's state now: the regions and parts that changed
    since it last showed (everything, when that is unknown; of the overview, the picture the
    page displays, when it said which), as one message. `again` names
    regions sent whole even if unchanged (a question answered once more is said once more);
    `alert` None keeps the alert line on show (own())."""
    s = scene(lab, v)
    found = drafts(lab, s, SHARED) | own(v, pacer, alert)
    ops = unseen(diff(v.shown, layout(found.values())), hidden(v.shape))
    redo = [rid for rid in again if rid in found]
    ops = [op for op in ops if op.region not in redo] + [Op("whole", rid) for rid in redo]
    v.shown = layout(found.values())
    return draw(lab, s, found, ops, "socket")


def step_html(lab: Lab, v: Viewer) -> str:
    """The step's regions whole, as a first paint draws them (GET /scenario/<id>/step)."""
    s = scene(lab, v)
    return "".join(whole(lab, s, drafts(lab, s, STEP), "page").values())


def first_question() -> str:
    """What the page and the socket say when an open question stops the viewer."""
    return str(gettext("Answer this question first."))


def drawn(lab: Lab, v: Viewer, wanted: int) -> Layout:
    """What GET /scenario/<id> drew for this viewer's URL asking for step `wanted`: without the
    answers the browser keeps (they come with the socket), so stopped at the first question."""
    page = Viewer(v.scenario, v.version, v.transport, v.lang, 0, v.view, v.present)
    page.step = gate(lab, page, wanted)
    alert = first_question() if page.step != wanted else ""
    s = scene(lab, page)
    return layout((drafts(lab, s, SHARED) | own(page, Pacer(), alert)).values())


def alert_html(v: Viewer, alert: str) -> str:
    """The alert line alone, for when nothing else can be drawn."""
    with force_locale(v.lang):
        return render_template("partials/_alert.html", lang=v.lang, alert=alert)


def whole_part(lab: Lab, v: Viewer, index: int, rids: Iterable[str], pid: str) -> str | None:
    """Part `pid` of one of the regions `rids` at step `index`, drawn as a first paint draws
    it (for a page that got it as a placeholder), or None when none has such a part."""
    s = Scene(v.sid, v.version, v.transport, v.lang, index, index)
    for draft in drafts(lab, s, rids).values():
        if pid in draft.pieces:
            with force_locale(s.lang):
                return Canvas(lab.cached, env(lab, s), "page").part(draft, pid)
    return None
