"""How large a following student's step frame is, over every step of the shipped scenarios.

The frame a room's step sends to every student who follows the class is the room's delta
(app.web.classroom.render.change) under its seq marker, encoded once as a websocket frame
(frames.text_frame). Its size is deterministic, so it is measured here without a server, for every
step of every shipped scenario in each version and transport, the instructor pressing Next from the
first step to the last (the poll idle), as a page that displays the wide picture of the overview
gets it and as one that displays the tall one (a phone): each is one frame measured. bench/fanout.py
prints the median and the largest as `frame_p50_kib` and `frame_max_kib`; tests/test_web_frames.py
holds them to the goal of issue 16 (at most 2 KiB at the median, 8 KiB at most).

Each frame is also measured compressed on its own, as permessage-deflate with
server_no_context_takeover would carry it (`frame_deflated_*`): a frame compressed once per
room step is still one set of bytes for every follower, and HTML compresses about threefold.
"""

from __future__ import annotations

import statistics
import zlib
from dataclasses import dataclass

from flask import Flask

from app.web.classroom import frames
from app.web.classroom.render import Cursor, change
from app.web.lab import Lab
from app.web.overview import SHAPES

GOAL_P50_KIB = 2.0
GOAL_MAX_KIB = 8.0


@dataclass(frozen=True)
class Frame:
    """One step frame: where it goes (scenario, version, transport, step) and its bytes."""

    sid: str
    version: str
    transport: str
    step: int
    shape: str  # the overview picture the follower's page displays
    size: int
    deflated: int  # the same frame compressed on its own (see `deflated`)


def step_frames(lab: Lab, lang: str = "en") -> list[Frame]:
    """The frame of each step of each shipped trace, as a follower whose page displays the wide
    or the tall picture gets it. Call inside a request context of the lab's app (it renders
    templates and links)."""
    out = []
    for sid, scenario in lab.library.scenarios.items():
        for version in scenario.versions:
            for transport in scenario.transports:
                trace = lab.trace(sid, version, transport)
                for step in range(1, len(trace)):
                    before = Cursor(sid, version, transport, step - 1, lang)
                    after = Cursor(sid, version, transport, step, lang)
                    for shape in SHAPES:
                        body = change(lab, (before, 0), (after, 0), shape=shape)
                        payload = frames.marker(step, "delta", step) + body
                        size = len(frames.text_frame(payload))
                        packed = deflated(payload.encode())
                        out.append(Frame(sid, version, transport, step, shape, size, packed))
    return out


def figures_of(found: list[Frame]) -> dict[str, float]:
    """The median and largest frame in KiB, as text frames and as deflated ones."""
    plain = [f.size for f in found]
    packed = [f.deflated for f in found]
    return {
        "frame_p50_kib": round(statistics.median(plain) / 1024, 2),
        "frame_max_kib": round(max(plain) / 1024, 2),
        "frame_deflated_p50_kib": round(statistics.median(packed) / 1024, 2),
        "frame_deflated_max_kib": round(max(packed) / 1024, 2),
    }


def figures(app: Flask, lang: str = "en") -> dict[str, float]:
    """{"frame_p50_kib", "frame_max_kib", and the same deflated} over every step frame of the
    shipped scenarios (what bench/fanout.py prints)."""
    with app.test_request_context("/"):
        return figures_of(step_frames(app.extensions["lab"], lang))


def deflated(payload: bytes) -> int:
    """The size of the same message as a permessage-deflate frame compressed on its own
    (server_no_context_takeover, RFC 7692): what one compression per room step would write to
    every follower, compressed once for all of them."""
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = packer.compress(payload) + packer.flush(zlib.Z_SYNC_FLUSH)
    n = len(body) - 4  # the empty block's 00 00 ff ff tail is not sent (RFC 7692 §7.2.1)
    return n + (2 if n < 126 else 4 if n < 1 << 16 else 10)
