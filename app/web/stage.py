"""Geometry of the overview stage: where each actor sits and which edge a step travels along.

The stage is an SVG drawn by templates/partials/_stage.html from the plain numbers computed
here, in two shapes of the same picture: `wide` (the host frame on the left with the model above
the agent, one row per server, servers on the right) for desks and projectors, and `tall` (model,
agent, clients and servers stacked, one column per server) for phones and short screens, where
the wide picture would shrink its labels below reading size. CSS shows the one that fits.

A step with a `from` and a `to` travels the whole edge between them: `motion` gives the point
where the packet leaves its sender's border and the point where it lands on its receiver's, and
the page's script animates from one to the other (the SVG itself rests at the landing point, so
reduced motion and no script show the same arrival). A cache hit is a loop inside its client
with nothing on the wire. Positions depend only on the step, so the stage renders once per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TRAVELS = {"request", "response", "error", "notification", "model-request", "transport"}

# The packet's half width and half height in user units (see _overview.html's shapes).
PACKET = 16
PACKET_H = 11

WIDE = {"width": 1000, "row": 124, "top": 172, "box_h": 96}
TALL = {"width": 400, "model_h": 62, "agent_h": 62, "client_h": 90, "server_h": 86, "gap": 46}


def _box(actor: str, x: int, y: int, w: int, h: int, name: str = "") -> dict[str, Any]:
    role = actor.split(":")[0]
    return {
        "id": actor,
        "role": role,
        "name": name,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "cx": x + w // 2,
        "cy": y + h // 2,
        # how many characters of a name fit on one line of this box (Latin, bold)
        "chars": max(4, (w - 24) // 11),
    }


def _ids(state: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys([*state.get("servers", {}), *state.get("clients", {})])) or ["?"]


def _server_name(state: Mapping[str, Any], sid: str) -> str:
    server = state.get("servers", {}).get(sid) or {}
    return str(server.get("name") or sid)


def _finish(
    shape: str,
    width: int,
    height: int,
    boxes: dict[str, Any],
    frame: dict[str, int],
    pairs: list[tuple[str, str]],
    ids: list[str],
) -> dict[str, Any]:
    return {
        "shape": shape,
        "width": width,
        "height": height,
        "ids": ids,
        "boxes": boxes,
        "frame": frame,
        "edges": [_edge(boxes[a], boxes[b]) | {"a": a, "b": b} for a, b in pairs],
    }


def wide(state: Mapping[str, Any]) -> dict[str, Any]:
    """The desk and projector picture: host frame left, model above the agent, servers right."""
    ids = _ids(state)
    row, top, box_h = WIDE["row"], WIDE["top"], WIDE["box_h"]
    height = top + row * len(ids) + 6
    boxes = {
        "model": _box("model", 28, 14, 220, box_h),
        "host": _box("host", 28, top + (row * len(ids) - box_h) // 2 - 14, 220, box_h),
    }
    pairs = [("host", "model")]
    for i, sid in enumerate(ids):
        y = top + i * row
        boxes[f"client:{sid}"] = _box(f"client:{sid}", 330, y, 250, box_h, sid)
        # wide enough for a server's whole name at the stage's type ("calendar-server")
        boxes[f"server:{sid}"] = _box(f"server:{sid}", 740, y, 250, box_h, _server_name(state, sid))
        pairs += [("host", f"client:{sid}"), (f"client:{sid}", f"server:{sid}")]
    frame = {"x": 10, "y": top - 44, "w": 582, "h": height - top + 38}
    if "authz" in state:  # an authorization server: one more row, under the servers
        y = top + row * len(ids)
        height += row
        pairs += _authz(state, boxes, _box("authz", 770, y, 220, box_h, _issuer(state)))
    return _finish("wide", WIDE["width"], height, boxes, frame, pairs, ids)


def _issuer(state: Mapping[str, Any]) -> str:
    return str(state["authz"]["issuer"]).removeprefix("https://")


def _authz(
    state: Mapping[str, Any], boxes: dict[str, Any], box: dict[str, Any]
) -> list[tuple[str, str]]:
    """Place the authorization server; the clients of protected servers talk to it."""
    boxes["authz"] = box
    return [(f"client:{sid}", "authz") for sid in state["authz"]["servers"]]


def tall(state: Mapping[str, Any]) -> dict[str, Any]:
    """The narrow picture: model, agent, a client per server and the servers, top to bottom."""
    ids = _ids(state)
    width, gap = TALL["width"], TALL["gap"]
    y_model = 6
    y_agent = y_model + TALL["model_h"] + gap + 6
    y_client = y_agent + TALL["agent_h"] + 18
    y_server = y_client + TALL["client_h"] + gap + 10
    height = y_server + TALL["server_h"] + 6
    boxes = {
        "model": _box("model", 20, y_model, width - 40, TALL["model_h"]),
        "host": _box("host", 20, y_agent, width - 40, TALL["agent_h"]),
    }
    pairs = [("host", "model")]
    col = (width - 20) // len(ids)
    for i, sid in enumerate(ids):
        x = 10 + i * col + 6
        w = col - 12
        boxes[f"client:{sid}"] = _box(f"client:{sid}", x, y_client, w, TALL["client_h"], sid)
        boxes[f"server:{sid}"] = _box(
            f"server:{sid}", x, y_server, w, TALL["server_h"], _server_name(state, sid)
        )
        pairs += [("host", f"client:{sid}"), (f"client:{sid}", f"server:{sid}")]
    frame = {
        "x": 4,
        "y": y_agent - 26,
        "w": width - 8,
        "h": y_client + TALL["client_h"] - y_agent + 36,
    }
    if "authz" in state:  # an authorization server: a last row, under the servers
        y = height + gap - 6
        height = y + TALL["server_h"] + 6
        box = _box("authz", 20, y, width - 40, TALL["server_h"], _issuer(state))
        pairs += _authz(state, boxes, box)
    return _finish("tall", width, height, boxes, frame, pairs, ids)


def layout(state: Mapping[str, Any]) -> dict[str, Any]:
    """The wide picture (kept for callers that draw one stage)."""
    return wide(state)


def layouts(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Both pictures of this state, wide first."""
    return [wide(state), tall(state)]


def _anchor(box: dict[str, Any], toward: dict[str, Any]) -> tuple[int, int]:
    """The point on `box`'s border facing `toward` (left/right side, or top/bottom)."""
    if abs(box["cx"] - toward["cx"]) < box["w"] // 2:
        return box["cx"], box["y"] + (box["h"] if toward["cy"] > box["cy"] else 0)
    return box["x"] + (box["w"] if toward["cx"] > box["cx"] else 0), box["cy"]


def _edge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, int]:
    x1, y1 = _anchor(a, b)
    x2, y2 = _anchor(b, a)
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2}


def _inset(edge: dict[str, int], by: int) -> tuple[int, int, int, int]:
    """The edge shortened by `by` at both ends: where a packet's centre starts and lands."""
    dx, dy = edge["x2"] - edge["x1"], edge["y2"] - edge["y1"]
    length = max(1.0, (dx * dx + dy * dy) ** 0.5)
    ux, uy = dx / length, dy / length
    return (
        round(edge["x1"] + ux * by),
        round(edge["y1"] + uy * by),
        round(edge["x2"] - ux * by),
        round(edge["y2"] - uy * by),
    )


def motion(step: Mapping[str, Any], stage: dict[str, Any]) -> dict[str, Any] | None:
    """The packet (or cache loop) of this step: where it leaves and where it lands."""
    src, dst, kind = step.get("from"), step.get("to"), step.get("kind")
    boxes = stage["boxes"]
    if kind == "cache-hit":
        client = dst if str(dst).startswith("client:") else src
        box = boxes.get(client)
        return box and {"loop": True, "box": box}
    if kind not in TRAVELS or src not in boxes or dst not in boxes or src == dst:
        return None
    edge = _edge(boxes[src], boxes[dst])
    vertical = abs(edge["x2"] - edge["x1"]) < abs(edge["y2"] - edge["y1"])
    # the packet is wider than tall: it lands with its leading side on the receiver's border
    sx, sy, ex, ey = _inset(edge, (PACKET_H if vertical else PACKET) + 1)
    mx, my = (edge["x1"] + edge["x2"]) // 2, (edge["y1"] + edge["y2"]) // 2
    return {
        "loop": False,
        "edge": edge,
        "sx": sx,
        "sy": sy,
        "ex": ex,
        "ey": ey,
        "mx": mx,
        "my": my,
        "vertical": vertical,
        "receiver": dst,
    }


def label_lines(label: str, room: int) -> list[str]:
    """A packet's label in at most two lines of about `room` characters, split after a '/'."""
    if len(label) <= room:
        return [label]
    cut = label.find("/")
    if 0 < cut < len(label) - 1 and cut + 1 <= room:
        head, tail = label[: cut + 1], label[cut + 1 :]
        return [head, tail if len(tail) <= room else tail[: room - 1] + "…"]
    return [label[: room - 1] + "…"]


def ttl_left(cache: Mapping[str, Any], clock_ms: int) -> int | None:
    """Milliseconds of cache life left at this step, None when the cache has no TTL."""
    expires = cache.get("expiresAtMs")
    if expires is None or cache.get("ttlMs") is None:
        return None
    return max(0, int(expires) - int(clock_ms))


def _char_width(ch: str) -> float:
    code = ord(ch)
    if code >= 0x2E80:  # CJK and full-width forms
        return 1.0
    if ch.isspace():
        return 0.3
    if "\u0400" <= ch <= "\u04ff":
        return 0.72 if ch.isupper() else 0.64
    if ch.isupper() or ch in "mwMW@%":
        return 0.76
    if ch in "iljtf.,:;!|'·":
        return 0.34
    return 0.62


def text_width(text: str, size: float, bold: bool = False) -> float:
    """An estimate of how wide `text` renders at `size` user units in the stage's sans font."""
    return sum(_char_width(ch) for ch in text) * size * (1.1 if bold else 1.0)


def fit(value: Any, room: float, size: float, bold: bool = False) -> str:
    """`value` cut with an ellipsis so that it fits in `room` user units at `size`."""
    text: str = "" if value is None else str(value)
    if text_width(text, size, bold) <= room:
        return text
    while text and text_width(text + "…", size, bold) > room:
        text = text[:-1]
    return text.rstrip() + "…"
