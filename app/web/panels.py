"""The views of a step, as regions: Overview, Transport, Transform, Output and Code.

`VIEWS` is the list a page shows as tabs and panels, in order; a view is a name and a builder
of its panel (`panel-<name>`). Each builder reads the step's data (app.web.views, app.web.stage)
and describes its panel as a Draft whose parts change independently:

- Transport: one item per entry of the message log, keyed by the digest of what the entry
  shows (made when the trace was checked) and, for a request, a part for its answer line;
- Transform: a block per served server (a watched session), per client's cache, the name
  collisions and the access filter;
- Output: what the next model request carries (with the question's lock) and the console's
  lines as items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.examples.code import snippet
from app.web import overview, views
from app.web.draw import Draft, Sketch
from app.web.scene import Ctx, region


@dataclass(frozen=True)
class View:
    name: str
    draft: Callable[[Ctx], Draft]

    @property
    def panel(self) -> str:
        return f"panel-{self.name}"


def _overview(ctx: Ctx) -> Draft:
    label = str(getattr(ctx.scenario, "client", "") or "") if ctx.watched else ""
    return overview.draft(ctx.base, ctx.step, ctx.scene.transport, ctx.watched, label)


def _transport(ctx: Ctx) -> Draft:
    entries = views.log(ctx.trace, ctx.index)
    checked = ctx.checked
    sketch = Sketch("panel-transport", "partials/_transport.html", ctx.base, empty=not entries)
    for entry in entries:
        step = entry["step"]
        i = int(step["index"])
        asks = step.get("kind") == "request" and step.get("id") is not None
        sketch.part(
            f"frame-{i}",
            "partials/_entry.html",
            at=i,
            item=True,
            wire=checked.wires[i],
            outgoing=entry["outgoing"],
            pair=None if asks else entry["pair"],
            more={"s": step, "badge": checked.badges[i]},
        )
        if asks:
            refused = str(step.get("reply") or "").startswith(("HTTP/1.1 401", "HTTP/1.1 403"))
            sketch.part(
                f"pair-{i}",
                "partials/_pair.html",
                parent=f"frame-{i}",
                answered=entry["pair"],
                refused=refused,
            )
    return sketch.done(items=("ol", "#log"))


def _cache_block(block: dict[str, Any]) -> dict[str, Any]:
    """A client's cache block with only what its template shows (the key stays small)."""
    cache, client = block["cache"], block["client"]
    return block | {
        "cache": {k: cache.get(k) for k in ("generation", "valid", "cacheScope")},
        "client": {"pendingRefresh": client.get("pendingRefresh")},
        "generation": cache.get("generation") or 0,
    }


# A cache block's parts, and what each shows: a page arriving changes the gathering only, a
# publish the heading's generation and the rows, an expiry the pages.
CACHE_PARTS = (
    ("head", ("id", "cache", "client")),
    ("rows", ("id", "rows", "removed", "ttl", "generation")),
    ("pages", ("id", "pages")),
    ("gather", ("gathering",)),
)


# What a client may hold besides tools (partials/_offers.html): instructions, resources,
# templates and prompts, subscriptions, contents read, its access token.
HOLDS = ("instructions", "lists", "subscribed", "contents", "authorization")


def _only(block: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: block[k] for k in keys}


def _load(ctx: Ctx, pid: str) -> str:
    """Where the page loads part `pid` of this step's Transform or Output view
    (app.web.bodies.part), under the trace's address (see app.web.draw.Piece.load)."""
    return f"part/{ctx.index}/{pid}"


def _transform(ctx: Ctx) -> Draft:
    step, index = ctx.step, ctx.index
    state = step.get("state") or {}
    host = state.get("host") or {}
    sketch = Sketch("panel-transform", "partials/_transform.html", ctx.base)
    if ctx.watched:
        changed: Any = (step.get("changes") or {}).get("servers") or {}
        for n, served in enumerate((state.get("servers") or {}).values()):
            sketch.part(
                f"served-{n}", "partials/transform/_served.html", served=served, changed=changed
            )
    prev = ctx.trace[index - 1] if index else None
    blocks = views.caches(step, prev)
    offers = [
        {"id": b["id"], "client": {k: b["client"][k] for k in HOLDS if k in b["client"]}}
        for b in blocks
        if any(k in b["client"] for k in HOLDS)
    ]
    for n, block in enumerate(blocks):
        c, pid = _cache_block(block), f"cache-{n}"
        sketch.part(pid, "partials/transform/_cache.html")
        for part, keys in CACHE_PARTS:
            sketch.part(
                f"{pid}-{part}",
                f"partials/transform/_cache_{part}.html",
                parent=pid,
                load=_load(ctx, f"{pid}-{part}"),
                c=_only(c, *keys),
            )
    sketch.part("offers", "partials/_offers.html", load=_load(ctx, "offers"), caches=offers)
    sketch.part(
        "collisions",
        "partials/transform/_collisions.html",
        load=_load(ctx, "collisions"),
        collisions=host.get("collisions"),
    )
    sketch.part(
        "access",
        "partials/transform/_access.html",
        load=_load(ctx, "access"),
        user=host.get("user"),
        denied=host.get("denied"),
        tools=host.get("tools"),
    )
    return sketch.done()


def _next_tools(state: Mapping[str, Any]) -> list[Any]:
    model = state.get("model") or {}
    return list(model["next"] if "next" in model else model.get("tools") or [])


def _output(ctx: Ctx) -> Draft:
    step, index = ctx.step, ctx.index
    state = step.get("state") or {}
    model = state.get("model") or {}
    console = state.get("console") or []
    tools = _next_tools(state)
    first = index  # the first step of the run that carries this very array (its address)
    while first and _next_tools(ctx.trace[first - 1].get("state") or {}) == tools:
        first -= 1
    locked = ctx.open_question
    sketch = Sketch("panel-output", "partials/_output.html", ctx.base, empty=not console)
    sketch.part(
        "out-next",
        "partials/_next_tools.html",
        locked=locked,
        count=len(tools),
        requests=model.get("requests") or 0,
        carried=len(model.get("tools") or []),
        tools=None if locked else tools,
        first=first,
    )
    sketch.part(
        "out-changes",
        "partials/_model_changes.html",
        parent="out-next",
        load=_load(ctx, "out-changes"),
        changes=(step.get("changes") or {}).get("model") or {},
    )
    held = {k: model[k] for k in ("instructions", "budget", "search") if k in model}
    sketch.part("out-context", "partials/_context.html", model=held)
    for n, line in enumerate(console):
        pid = f"console-{n}"
        load = _load(ctx, pid)
        sketch.part(pid, "partials/_line.html", item=True, load=load, tag="span", line=line)
    return sketch.done(items=("pre", "#console"))


def _code(ctx: Ctx) -> Draft:
    """The Python, with the official SDK, that sends this step's message (app.examples.code),
    as a part a room may load when shown; a shipped lesson's panel also names the command that
    prints the whole lesson's script (the region, unchanged from step to step)."""
    runnable = bool(getattr(ctx.scenario, "path", "")) and not ctx.watched
    found = snippet(ctx.trace, ctx.index, ctx.scene.sid if runnable else None)
    sketch = Sketch("panel-code", "partials/_code.html", ctx.base, runnable=runnable)
    sketch.part(
        "code-step",
        "partials/_code_step.html",
        load=_load(ctx, "code-step"),
        lazy=0,  # below the other views on a desk, behind its tab on a phone: load when shown
        code=found.code,
        note=found.note,
    )
    return sketch.done()


# The views in tab order.
VIEWS: list[View] = [
    View("overview", _overview),
    View("transport", _transport),
    View("transform", _transform),
    View("output", _output),
    View("code", _code),
]

for _view in VIEWS:
    region(_view.panel)(_view.draft)
