"""The marker that opens every room message, and the frames they travel in.

Frames are encoded by the lab's one channel (app.web.channel.text_frame, re-exported here):
once per message, so the fan-out writes the very same bytes to thousands of sockets.

Every room message starts with a marker element, `<div id="live-seq" data-seq=N
data-mode=...>`, that the page reads before htmx swaps anything: "full" sets the page to the
room's state at seq N, "delta" and "notice" must follow N - 1 (else the page asks for the state
again), "local" is this connection's own answer and carries no seq.
"""

from __future__ import annotations

from app.web.channel import text_frame

__all__ = ["marker", "text_frame"]


def marker(seq: int | None, mode: str, room_step: int | None = None) -> str:
    """The element that opens a room message (see the module docstring)."""
    seq_attr = "" if seq is None else f' data-seq="{seq}"'
    step_attr = "" if room_step is None else f' data-room-step="{room_step}"'
    return f'<div id="live-seq" hidden data-mode="{mode}"{seq_attr}{step_attr}></div>'
