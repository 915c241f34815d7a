"""Geometry of the overview stage: where each actor sits and which edge a step travels along.

The stage is an SVG drawn by templates/partials/_overview.html from the plain numbers computed
here. The host (agent plus one client per server) is a frame on the left, the model above the
agent, the servers on the right, one row per server. A step with a `from` and a `to` travels the
edge between them as a packet; a cache hit is a loop inside its client with nothing on the wire.
Positions depend only on the step, so the stage renders once per step like every fragment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WIDTH = 1000
ROW = 124
TOP = 172
BOX_H = 96

TRAVELS = {"request", "response", "error", "notification", "model-request", "transport"}


def _box(actor: str, x: int, y: int, w: int, name: str = "") -> dict[str, Any]:
    role = actor.split(":")[0]
    return {
        "id": actor,
        "role": role,
        "name": name,
        "x": x,
        "y": y,
        "w": w,
        "h": BOX_H,
        "cx": x + w // 2,
        "cy": y + BOX_H // 2,
    }


def layout(state: Mapping[str, Any]) -> dict[str, Any]:
    """Boxes for model, agent, clients and servers, and the edges between them."""
    ids = list(dict.fromkeys([*state.get("servers", {}), *state.get("clients", {})])) or ["?"]
    height = TOP + ROW * len(ids) + 6
    boxes = {
        "model": _box("model", 28, 14, 220),
        "host": _box("host", 28, TOP + (ROW * len(ids) - BOX_H) // 2 - 14, 220),
    }
    edges = [("host", "model")]
    for i, sid in enumerate(ids):
        y = TOP + i * ROW
        server = state.get("servers", {}).get(sid) or {}
        boxes[f"client:{sid}"] = _box(f"client:{sid}", 330, y, 250, sid)
        boxes[f"server:{sid}"] = _box(f"server:{sid}", 770, y, 220, str(server.get("name") or sid))
        edges += [("host", f"client:{sid}"), (f"client:{sid}", f"server:{sid}")]
    return {
        "width": WIDTH,
        "height": height,
        "ids": ids,
        "boxes": boxes,
        "frame": {"x": 10, "y": TOP - 44, "w": 582, "h": height - TOP + 38},
        "edges": [_edge(boxes[a], boxes[b]) | {"a": a, "b": b} for a, b in edges],
    }


def _anchor(box: dict[str, Any], toward: dict[str, Any]) -> tuple[int, int]:
    """The point on `box`'s border facing `toward` (left/right side, or top/bottom)."""
    if abs(box["cx"] - toward["cx"]) < box["w"] // 2:
        return box["cx"], box["y"] + (box["h"] if toward["cy"] > box["cy"] else 0)
    return box["x"] + (box["w"] if toward["cx"] > box["cx"] else 0), box["cy"]


def _edge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, int]:
    x1, y1 = _anchor(a, b)
    x2, y2 = _anchor(b, a)
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2}


def _at(edge: dict[str, int], t: float) -> tuple[int, int]:
    return (
        round(edge["x1"] + (edge["x2"] - edge["x1"]) * t),
        round(edge["y1"] + (edge["y2"] - edge["y1"]) * t),
    )


def motion(step: Mapping[str, Any], stage: dict[str, Any]) -> dict[str, Any] | None:
    """The packet (or cache loop) of this step: where it starts and where it rests."""
    src, dst, kind = step.get("from"), step.get("to"), step.get("kind")
    boxes = stage["boxes"]
    if kind == "cache-hit":
        client = dst if str(dst).startswith("client:") else src
        box = boxes.get(client)
        return box and {"loop": True, "box": box}
    if kind not in TRAVELS or src not in boxes or dst not in boxes or src == dst:
        return None
    edge = _edge(boxes[src], boxes[dst])
    sx, sy = _at(edge, 0.08)
    ex, ey = _at(edge, 0.5)
    vertical = abs(edge["x2"] - edge["x1"]) < abs(edge["y2"] - edge["y1"])
    return {
        "loop": False,
        "edge": edge,
        "sx": sx,
        "sy": sy,
        "ex": ex,
        "ey": ey,
        "vertical": vertical,
    }


def ttl_left(cache: Mapping[str, Any], clock_ms: int) -> int | None:
    """Milliseconds of cache life left at this step, None when the cache has no TTL."""
    expires = cache.get("expiresAtMs")
    if expires is None or cache.get("ttlMs") is None:
        return None
    return max(0, int(expires) - int(clock_ms))
