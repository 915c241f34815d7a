"""The viewer's chrome: masthead, toolbar, lesson and shortcut sheet, as regions.

They change with the language, version or transport (and, for a watched session, as the
session's title and version become known), never with the step, so a step's message never
carries them: their keys hold the scene's base and what the scenario says of itself.
"""

from __future__ import annotations

from app.web import lesson
from app.web.draw import Draft, Sketch
from app.web.scene import Ctx, region


@region("masthead")
def masthead(ctx: Ctx) -> Draft:
    return Sketch("masthead", "partials/_masthead.html", ctx.base).done()


@region("toolbar")
def toolbar(ctx: Ctx) -> Draft:
    s = ctx.scenario
    return Sketch(
        "toolbar",
        "partials/_toolbar.html",
        ctx.base,
        title=getattr(s, "title", None),
        summary=getattr(s, "summary", None),
        versions=list(s.versions),
        transports=list(s.transports),
        watched=ctx.watched,
    ).done()


@region("lesson")
def lesson_panel(ctx: Ctx) -> Draft:
    taught = lesson.lesson(ctx.scenario, ctx.trace)
    return Sketch("lesson", "partials/_lesson.html", ctx.base, lesson=taught).done()


@region("shortcuts")
def shortcuts(ctx: Ctx) -> Draft:
    return Sketch("shortcuts", "partials/_shortcuts.html", ctx.base).done()
