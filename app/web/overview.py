"""The overview's region: the stage's frame as the region, and what moves as parts.

The frame (both pictures' geometry, the wires, the host frame, the titles) depends on which
servers and clients exist, so it changes a few times per lesson at most. A step changes parts:
what moves (`ov-w-m`, `ov-t-m`: the lit wire, the packet and its label, and classes that name
the sender's and receiver's boxes for lab.css to outline), the lines of the boxes whose figures
changed (`ov-w-a3-f`: a count, a phase, a TTL), the tall picture's wire labels (`ov-t-w0`,
hidden under a packet) and the sentence that describes the step (`stage-desc`). Each part is
an <svg> of its own: htmx swaps a top-level <svg> by id into the picture, where a bare <g>
would be parsed as HTML and drawn as nothing.
Ids are numbered by position in the picture, never made from actor names (which a recorded
session may choose), so they are always valid selectors.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from app.engine.step import Step
from app.web import stage
from app.web.draw import Draft, Sketch

SHAPES = ("wide", "tall")


def hidden(shape: str) -> tuple[str, ...]:
    """The id prefixes of the parts a page showing the `shape` picture does not display (the
    other picture's: CSS shows one of the two by the screen's size); none for an unknown shape."""
    return tuple(f"ov-{other[0]}-" for other in SHAPES if shape in SHAPES and other != shape)


def _figures(state: Mapping[str, Any], box: Mapping[str, Any]) -> dict[str, Any]:
    """What an actor's box says besides its name: counts, phase, generation, TTL, flags."""
    role, actor = box["role"], str(box["id"])
    if role == "model":
        model = state.get("model") or {}
        return {"tools": len(model.get("tools") or []), "requests": model.get("requests") or 0}
    if role == "host":
        host = state.get("host") or {}
        return {"tools": len(host.get("tools") or []), "user": host.get("user")}
    if role == "client":
        client = (state.get("clients") or {}).get(actor[7:]) or {}
        cache = client.get("cache") or {}
        return {
            "phase": client.get("phase"),
            "version": client.get("protocolVersion"),
            "generation": cache.get("generation") or 0,
            "valid": bool(cache.get("valid")),
            "ttl": stage.ttl_left(cache, int(state.get("clockMs") or 0)),
        }
    if role == "authz":
        return {"tokens": int((state.get("authz") or {}).get("tokens") or 0)}
    if role == "server":
        server = (state.get("servers") or {}).get(actor[7:]) or {}
        client = (state.get("clients") or {}).get(actor[7:]) or {}
        return {
            "tools": len(server.get("tools") or []),
            "list_changed": bool(server.get("listChanged")),
            # the flag is drawn once the server has declared it to its client (initialize or
            # server/discover): before that, nothing on the wire has said it
            "declared": bool(client.get("serverCapabilities")),
        }
    return {}


def _fits(box: Mapping[str, Any], shape: str, watched: bool) -> dict[str, Any]:
    """How a box's lines are set: the room for text, font sizes, and whether it is unseen."""
    tall, slim = shape == "tall", box["w"] < 200
    return {
        "tall": tall,
        "room": box["w"] - 28,
        "slim": slim,
        "name_size": 17 if tall else 21,
        "sub_size": 13 if slim else (14 if tall else 17),
        "unseen": watched and box["role"] in ("host", "model"),
    }


def _label(step: Step) -> str | None:
    """The packet's text: method (or the transport's channel), "↩" for answers, "#id"."""
    kind = step.get("kind")
    raw = step.get("method") or (step.get("channel") if kind == "transport" else None)
    if raw is None:
        return None  # the template names the kind in the student's language
    back = "↩ " if kind in ("response", "error") else ""
    rid = step.get("id")
    return back + str(raw) + (f" #{rid}" if rid is not None else "")


def _moves(m: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the motion part draws of stage.motion (the rest would only grow its key)."""
    if m is None or m["loop"]:
        return m
    return {k: m[k] for k in ("loop", "edge", "ex", "ey", "mx", "my", "vertical")}


def _desc(step: Step, state: Mapping[str, Any], moves: dict[str, Any] | None) -> dict[str, Any]:
    src, dst = str(step.get("from")), str(step.get("to"))
    servers = {
        a[7:]: (state.get("servers") or {}).get(a[7:], {}).get("name")
        for a in (src, dst)
        if a.startswith("server:")
    }
    if moves is not None and moves.get("loop"):
        return {"loop_at": dst if dst.startswith("client:") else src, "servers": servers}
    if moves is None:
        return {"src": None}
    return {
        "src": src,
        "dst": dst,
        "kind": step.get("kind"),
        "method": step.get("method"),
        "servers": servers,
    }


def draft(base: Hashable, step: Step, transport: str, watched: bool, client_label: str) -> Draft:
    """The overview of `step` (its state and its message), as a region with parts."""
    state = step.get("state") or {}
    kind = step.get("kind")
    ends = {step.get("from"), step.get("to")}
    stages = []
    for g in stage.layouts(state):
        wires = [e for e in g["edges"] if str(e["b"]).startswith("server:")]
        stages.append(g | {"wires": len(wires)})
    sketch = Sketch(
        "panel-overview",
        "partials/_overview.html",
        base,
        stages=stages,
        watched=watched,
        client_label=client_label,
        wire_name="stdio" if transport == "stdio" else "HTTP",
    )
    moves = stage.motion(step, stages[0])
    sketch.part(
        "stage-desc",
        "partials/stage/_desc.html",
        watched=watched,
        client_label=client_label,
        **_desc(step, state, moves),
    )
    for g in stages:
        t = g["shape"]
        m = stage.motion(step, g)
        travels = m is not None and not m["loop"]
        if t == "tall":
            for n, e in enumerate(x for x in g["edges"] if str(x["b"]).startswith("server:")):
                busy = travels and {e["a"], e["b"]} == ends
                name = "stdio" if transport == "stdio" else "HTTP"
                sketch.part(f"ov-t-w{n}", "partials/stage/_wire.html", e=e, name=name, busy=busy)
        for n, box in enumerate(g["boxes"].values()):
            pid = f"ov-{t[0]}-a{n}"
            look = {
                "b": box,
                "shape": t,
                "fits": _fits(box, t, watched),
                "watched": watched,
                "client_label": client_label,
            }
            sketch.part(pid, "partials/stage/_actor.html", n=n, **look)
            figures = _figures(state, box)
            sketch.part(f"{pid}-f", "partials/stage/_figures.html", parent=pid, **look, **figures)
        sketch.part(
            f"ov-{t[0]}-m",
            "partials/stage/_motion.html",
            shape=t,
            kind=kind,
            m=_moves(m),
            lit=[n for n, actor in enumerate(g["boxes"]) if actor in ends],
            label=_label(step),
            width=g["width"],
        )
    return sketch.done()
