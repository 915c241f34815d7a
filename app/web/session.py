"""One viewer's conversation over its websocket, as plain functions of a socket-like object.

`converse(ws, lab, v)` is the whole life of a connection: it waits for a command (or for the
pacer's timeout while playing), applies it to the viewer's cursor with `handle`, and sends what
the page now lacks: a handler only changes the viewer's state, and app.web.pages.frame works
out from the regions' keys which regions and parts changed since the page last showed, as one
message (none when nothing changed). `ws` is anything with `send(str)` and `receive(timeout)`
(the route's app.web.channel.Channel), so tests use a fake socket. Frames are read by the lab's
one command reader (app.web.commands): bad input (binary, too large, too deep, not JSON, not an
object, unknown command, bad value) is answered with a readable alert and the loop goes on.

What each command does is app.web.verbs (re-exported here for the socket routes and tests). The
browser remembers closed questions and names them in the socket URL (`answers=`), so `opening`
can put a reconnecting viewer back where it was.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import current_app
from flask_babel import force_locale, gettext

from app.web import commands
from app.web.channel import Closed
from app.web.lab import Lab
from app.web.pacer import Pacer
from app.web.pages import alert_html, drawn, frame
from app.web.render import Viewer, gate
from app.web.verbs import (
    COMMANDS,
    apply,
    blocked,
    first_question,
    move,
    same_event,
    trace_of,
)

__all__ = ["COMMANDS", "apply", "converse", "gate", "handle", "opening", "same_event", "tick"]


class Socket(Protocol):
    def send(self, data: str) -> None: ...
    def receive(self, timeout: float | None = None) -> Any: ...


def _say(lab: Lab, v: Viewer, pacer: Pacer, alert: str, again: tuple[str, ...] = ()) -> list[str]:
    """The message that shows the viewer's state now (none when nothing changed)."""
    html = frame(lab, v, pacer, alert, again)
    return [html] if html else []


def opening(lab: Lab, v: Viewer, pacer: Pacer) -> list[str]:
    """What a socket sends first: the step its URL asked for, or the first open question on
    the way there (the browser sent the answers it remembers in the same URL), as a change
    from what the page drew without them. A socket that resumes after a drop (`resume=1`)
    cannot know what the page kept, and gets everything."""
    with force_locale(v.lang):
        wanted = min(v.step, len(trace_of(lab, v)) - 1)
        if v.shown is None and not v.resumed:
            v.shown = drawn(lab, v, wanted)
        v.step = 0
        v.step = gate(lab, v, wanted)
        alert = first_question() if v.step != wanted else ""
        # at least the alert (filled in place, no element replaced), so the page or a script
        # hears the socket is serving; the tabs and the player are sent only when they differ
        # from the first paint, since swapping them moves a keyboard user's focus
        return _say(lab, v, pacer, alert, again=("alert",))


# What a command says again even when it changed nothing there: a choice made again is answered
# again, and a move says where the viewer is (a goto to the step on show is still answered).
AGAIN = {
    "answer": ("checkpoint",),
    "reveal": ("checkpoint",),
    "shape": ("panel-overview",),
    **{move: ("status",) for move in ("next", "prev", "goto", "end", "reset")},
}


def handle(lab: Lab, v: Viewer, pacer: Pacer, raw: Any, limit: int = 4096) -> list[str]:
    """Read one websocket message and apply it; any problem becomes an alert on the page."""

    def carry_out(cmd: commands.Command) -> list[tuple[str, tuple[str, ...]]]:
        said = apply(lab, v, pacer, cmd)
        return [(said, AGAIN.get(cmd["command"], ()))]

    with force_locale(v.lang):
        log = current_app.logger
        [(said, again)] = commands.answer(raw, limit, carry_out, lambda text: (text, ()), log)
        try:
            return _say(lab, v, pacer, said, again)
        except Exception:  # a region that cannot be drawn: the page keeps what it shows
            log.exception("drawing failed after %r", raw if isinstance(raw, str) else "?")
            return [alert_html(v, gettext("The server could not carry out that command."))]


def tick(lab: Lab, v: Viewer, pacer: Pacer) -> list[str]:
    """One autoplay step, or a pause at the end or at an unanswered question."""
    last = len(lab.trace(v.sid, v.version, v.transport)) - 1
    with force_locale(v.lang):
        if v.step >= last or blocked(lab, v):
            pacer.pause()
        else:
            move(lab, v, pacer, v.step + 1)
        return _say(lab, v, pacer, "")


def converse(ws: Socket, lab: Lab, v: Viewer, pacer: Pacer, limit: int = 4096) -> None:
    """Serve one viewer until its socket closes."""
    try:
        for message in opening(lab, v, pacer):
            ws.send(message)
        while True:
            raw = ws.receive(timeout=pacer.timeout())
            if raw is None:
                messages = tick(lab, v, pacer) if pacer.playing else []
            else:
                messages = handle(lab, v, pacer, raw, limit)
            for message in messages:
                ws.send(message)
    except Closed:
        return
