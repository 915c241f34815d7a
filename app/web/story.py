"""The story column's regions: trace, status, counter, narration, question, summary, stepper,
timeline.

Each builder turns a scene into a Draft (app.web.draw) whose inputs are exactly what its
template prints besides the scene's base. The stepper's Previous and Next links and each
timeline mark are parts, so a step sends two links and the marks whose kind became known,
not the whole strip; a room's stepper is buttons (its page has no address per step), which a
step does not change. Which mark is the step on show is drawn on a first paint and followed by
the page's script after that (#status says the step), so it is not part of a mark's key.
"""

from __future__ import annotations

from app.engine.step import Step
from app.web.draw import Draft, Sketch
from app.web.questions import checkpoint_key
from app.web.scene import Ctx, region


@region("trace")
def trace(ctx: Ctx) -> Draft:
    """Which trace the page shows (the scene's base) and its last step: a step never changes it."""
    return Sketch("trace", "partials/_trace.html", ctx.base, last=len(ctx.trace) - 1).done()


@region("status")
def status(ctx: Ctx) -> Draft:
    step = ctx.step
    return Sketch(
        "status",
        "partials/_status.html",
        ctx.base,
        index=ctx.index,
        kind=step.get("kind"),
        asks=bool(step.get("checkpoint")),
    ).done()


def _sender(step: Step) -> str | None:
    """Who an internal step happens in, for its label (a server's change, not the host's)."""
    return str(step.get("from")) if step.get("kind") == "internal" else None


@region("counter")
def counter(ctx: Ctx) -> Draft:
    step = ctx.step
    return Sketch(
        "counter",
        "partials/_counter.html",
        ctx.base,
        index=ctx.index,
        total=len(ctx.trace),
        kind=step.get("kind"),
        method=step.get("method"),
        sender=_sender(step),
    ).done()


@region("narration")
def narration(ctx: Ctx) -> Draft:
    checkpoint = ctx.step.get("checkpoint")
    return Sketch(
        "narration",
        "partials/_narration.html",
        ctx.base,
        index=ctx.index,
        total=len(ctx.trace),
        narration=ctx.step.get("narration"),
        question=checkpoint.get("question") if checkpoint else None,
    ).done()


@region("checkpoint")
def checkpoint(ctx: Ctx) -> Draft:
    """The step's question as this viewer has it, or, in a classroom, its poll."""
    cp = ctx.step.get("checkpoint")
    poll = ctx.scene.poll
    if poll is not None:
        return Sketch(
            "checkpoint",
            "classroom/_poll.html",
            ctx.base,
            cp=cp,
            phase=poll.phase,
            audience=poll.audience,
            counts=list(poll.counts) if poll.counts is not None else None,
            poll_id=poll.id,
        ).done(cached=poll.counts is None)
    return Sketch(
        "checkpoint",
        "partials/_checkpoint.html",
        ctx.base,
        cp=cp,
        chosen=ctx.scene.chosen,
        tried=list(ctx.scene.tried),
        checkpoint_name=checkpoint_key(ctx.trace, ctx.index) or "",
    ).done()


@region("summary")
def summary(ctx: Ctx) -> Draft:
    """The lesson's summary on its last step (hidden before; its lines come from the trace)."""
    at_end = ctx.index == len(ctx.trace) - 1
    return Sketch(
        "summary", "partials/_summary.html", ctx.base, at_end=at_end, watched=ctx.watched
    ).done()


@region("stepper")
def stepper(ctx: Ctx) -> Draft:
    index, last = ctx.index, len(ctx.trace) - 1
    if ctx.scene.poll is not None:  # a room: buttons, the same at every step but the ends
        ends = {"first": index == 0, "last": index == last}
        return Sketch("stepper", "classroom/_stepper.html", ctx.base, **ends).done()
    sketch = Sketch("stepper", "partials/_stepper.html", ctx.base)
    sketch.part("btn-prev", "partials/_stepper_button.html", which="prev", to=index or None)
    ahead = index + (1 if ctx.open_question else 2)  # from 1: an open question links to itself
    sketch.part(
        "btn-next",
        "partials/_stepper_button.html",
        which="next",
        to=ahead if index < last else None,
    )
    return sketch.done()


@region("timeline")
def timeline(ctx: Ctx) -> Draft:
    sketch = Sketch("timeline", "partials/_timeline.html", ctx.base, total=len(ctx.trace))
    room = ctx.scene.poll is not None
    for i, step in enumerate(ctx.trace):
        known = i <= ctx.scene.reach
        sketch.part(
            f"mark-{i}",
            "partials/_mark.html",
            at=i,
            i=i,
            known=known,
            kind=step.get("kind") if known else None,
            method=step.get("method") if known else None,
            sender=_sender(step) if known else None,
            asks=known and bool(step.get("checkpoint")),
            room=room,
        )
    return sketch.done()
