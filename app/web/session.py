"""One viewer's conversation over its websocket, as plain functions of a socket-like object.

`converse(ws, lab, v)` is the whole life of a connection: it waits for a command (or for the
pacer's timeout while playing), applies it to the viewer's cursor with `handle`, and sends the
resulting fragments. `ws` is anything with `send(str)` and `receive(timeout)` (the route's
app.web.channel.Channel), so tests use a fake socket. Frames are read by the lab's one command
reader (app.web.commands): bad input (binary, too large, too deep, not JSON, not an object,
unknown command, bad value) is answered with a readable alert fragment and the loop goes on.

Commands are JSON objects: {"command": "next"}, {"command": "goto", "step": i}, ... `goto`
takes the 0-based index of the step in the trace (the `index` of docs/ARCHITECTURE.md, and
#status's data-step), while URLs and everything on screen count from 1: `step=N` in a URL is
index N - 1 (see `render.url_step`).

Commands are dispatched from one table, `COMMANDS` (verb → handler, like the engine's verbs),
so the set of verbs is data a test can walk. Questions gate every forward move: next, goto, end,
play and a deep link's `step=N` stop at the first question on the way this viewer has not
answered, with one line saying so; going back is always free. A wrong answer keeps the question
open (its reason shown, try again); the right one, or "reveal", closes it. The browser remembers
closed questions and names them in the socket URL (`answers=`), so `opening` can put a
reconnecting viewer back where it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from flask import current_app
from flask_babel import force_locale, gettext

from app.web import commands, i18n
from app.web.channel import Closed
from app.web.commands import Refused
from app.web.lab import Lab, Step
from app.web.pacer import Pacer
from app.web.render import (
    VIEWS,
    Viewer,
    checkpoint_key,
    chosen,
    chrome_html,
    feedback_html,
    first_open,
    session_html,
    step_html,
    timeline_html,
)


class Socket(Protocol):
    def send(self, data: str) -> None: ...
    def receive(self, timeout: float | None = None) -> Any: ...


class Stopped(Exception):
    """A move that stopped short at an open question: the fragments to send, and why."""

    def __init__(self, fragments: list[str]) -> None:
        super().__init__()
        self.fragments = fragments


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    return int(value)


def same_event(old: list[Step], index: int, new: list[Step]) -> int:
    """Where step `index` of trace `old` is in trace `new` (another version or transport).

    Traces of one scenario differ in length (HTTP adds a GET stream, 2026-07-28 has no
    initialize), so the raw index would land on another event. The step produced by the same
    script action (`action`) with the same kind and method is the same event; when the action
    made several (the pages of one listing), the same one of them: the third page request stays
    the third (or the first, when the other trace has fewer). Else the first step of the same
    action, else the nearest index.
    """
    step = old[index]
    action = step.get("action")
    if action is not None:
        ours = [s for s in new if s.get("action") == action]
        key = (step.get("kind"), step.get("method"))
        twins = [s for s in ours if (s.get("kind"), s.get("method")) == key]
        nth = sum(
            1
            for s in old[:index]
            if s.get("action") == action and (s.get("kind"), s.get("method")) == key
        )
        if twins:
            return int(twins[nth if nth < len(twins) else 0]["index"])
        if ours:
            return int(ours[0]["index"])
    return min(index, len(new) - 1)


def _trace(lab: Lab, v: Viewer) -> list[Step]:
    return lab.trace(v.sid, v.version, v.transport)


def _blocked(lab: Lab, v: Viewer) -> bool:
    """Whether the step on show asks a question this viewer has not answered yet."""
    return bool(_trace(lab, v)[v.step].get("checkpoint")) and chosen(lab, v) is None


def first_question() -> str:
    return str(gettext("Answer this question first."))


def gate(lab: Lab, v: Viewer, to: int) -> int:
    """Where a move from the viewer's step to `to` may go: going back is free; going forward
    stops at the first question on the way that this viewer has not answered."""
    if to <= v.step:
        return to
    stop = first_open(lab, v, v.step)
    return to if stop is None or stop >= to else stop


def _fragments(lab: Lab, v: Viewer, pacer: Pacer, alert: str = "") -> list[str]:
    return [step_html(lab, v), timeline_html(lab, v), session_html(v, pacer, alert=alert)]


def _move(lab: Lab, v: Viewer, pacer: Pacer, to: int) -> list[str]:
    """Go to step `to`, or as far toward it as the open questions allow (Stopped says so)."""
    last = len(_trace(lab, v)) - 1
    if not 0 <= to <= last:
        raise Refused(gettext("There is no step %(n)s in this scenario.", n=to + 1))
    allowed = gate(lab, v, to)
    if allowed == v.step and to != v.step:
        pacer.pause()
        raise Refused(first_question())
    v.step = allowed
    if pacer.playing and (allowed == last or _blocked(lab, v)):
        pacer.pause()
    if allowed != to:
        raise Stopped(_fragments(lab, v, pacer, alert=first_question()))
    return _fragments(lab, v, pacer)


Handler = Callable[[Lab, Viewer, Pacer, dict[str, Any]], list[str]]


def _next(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    if _blocked(lab, v):
        raise Refused(first_question())
    if v.step == len(_trace(lab, v)) - 1:
        raise Refused(gettext("This is the last step."))
    return _move(lab, v, pacer, v.step + 1)


def _prev(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    if v.step == 0:
        raise Refused(gettext("This is the first step."))
    return _move(lab, v, pacer, v.step - 1)


def _goto(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    return _move(lab, v, pacer, _int(cmd.get("step")))


def _end(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    return _move(lab, v, pacer, len(_trace(lab, v)) - 1)


def _reset(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    pacer.pause()
    v.answered.clear()
    v.tried.clear()
    v.furthest = 0
    return _move(lab, v, pacer, 0)


def _play(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    again = v.step == len(_trace(lab, v)) - 1
    if again:  # from the end, play starts over
        v.step = 0
    if _blocked(lab, v):
        if again:  # the first step asks a question: show it, and wait for the answer
            return _fragments(lab, v, pacer)
        raise Refused(first_question())
    pacer.play()
    return _fragments(lab, v, pacer)


def _pause(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    pacer.pause()
    return [session_html(v, pacer)]


def _speed(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    if not pacer.set_speed(float(cmd.get("speed", ""))):
        raise ValueError(cmd.get("speed"))
    return [session_html(v, pacer)]


def _view(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    if cmd.get("view") not in VIEWS:
        raise ValueError(cmd.get("view"))
    v.view = cmd["view"]
    return [session_html(v, pacer)]


def _switch(attr: str, key: str, allowed: Callable[[Viewer], Any]) -> Handler:
    """A handler that switches version, transport or language and stays on the same event."""

    def switch(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
        value = cmd.get(key)
        if value not in allowed(v):
            raise ValueError(value)
        before = _trace(lab, v)
        setattr(v, attr, value)
        v.step = same_event(before, v.step, _trace(lab, v))
        v.furthest = same_event(before, min(v.furthest, len(before) - 1), _trace(lab, v))
        return [*_fragments(lab, v, pacer)[:2], chrome_html(lab, v), session_html(v, pacer)]

    return switch


def _checkpoint(lab: Lab, v: Viewer) -> dict[str, Any]:
    checkpoint = _trace(lab, v)[v.step].get("checkpoint")
    if not checkpoint:
        raise Refused(gettext("There is no question at this step."))
    return dict(checkpoint)


def _close(lab: Lab, v: Viewer, pacer: Pacer, choice: int) -> list[str]:
    key = checkpoint_key(_trace(lab, v), v.step)
    assert key is not None
    v.answered[key] = choice
    v.tried.pop(key, None)
    return [feedback_html(lab, v), timeline_html(lab, v)]


def _answer(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    checkpoint = _checkpoint(lab, v)
    choice = _int(cmd.get("choice"))
    if not 0 <= choice < len(checkpoint.get("choices", [])):
        raise ValueError(choice)
    if chosen(lab, v) is not None:  # already answered: the answer stands
        return [feedback_html(lab, v)]
    if choice == checkpoint.get("answer"):
        return _close(lab, v, pacer, choice)
    key = checkpoint_key(_trace(lab, v), v.step)
    assert key is not None
    wrong = v.tried.setdefault(key, [])
    if choice in wrong:
        wrong.remove(choice)
    wrong.append(choice)  # the last one tried is the one whose reason is shown
    return [feedback_html(lab, v)]


def _reveal(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    """ "Show the answer": the question closes with its right answer, as if picked."""
    checkpoint = _checkpoint(lab, v)
    if chosen(lab, v) is not None:
        return [feedback_html(lab, v)]
    return _close(lab, v, pacer, int(checkpoint.get("answer", 0)))


# Every command a viewer's socket accepts, by its "command" verb (the public contract of
# docs/ARCHITECTURE.md): one handler each, all with the same signature.
COMMANDS: dict[str, Handler] = {
    "next": _next,
    "prev": _prev,
    "goto": _goto,
    "end": _end,
    "play": _play,
    "pause": _pause,
    "speed": _speed,
    "reset": _reset,
    "version": _switch("version", "version", lambda v: v.scenario.versions),
    "transport": _switch("transport", "transport", lambda v: v.scenario.transports),
    "language": _switch("lang", "lang", lambda v: i18n.LANGUAGES),
    "view": _view,
    "answer": _answer,
    "reveal": _reveal,
}


def apply(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    """Carry out one command; returns the fragments to send. Raises Refused or ValueError."""
    name = cmd.get("command")
    handler = COMMANDS.get(name) if isinstance(name, str) else None
    if handler is None:
        raise commands.unknown(name)
    try:
        return handler(lab, v, pacer, cmd)
    except Stopped as stop:
        return stop.fragments


def opening(lab: Lab, v: Viewer, pacer: Pacer) -> list[str]:
    """What a socket sends first: the step its URL asked for, or the first open question on
    the way there (the browser sent the answers it remembers in the same URL)."""
    with force_locale(v.lang):
        wanted = min(v.step, len(_trace(lab, v)) - 1)
        v.step = 0
        v.step = gate(lab, v, wanted)
        alert = first_question() if v.step != wanted else ""
        if not v.answered and not alert:  # the page shows this very state already
            return [session_html(v, pacer)]
        return _fragments(lab, v, pacer, alert=alert)


def handle(lab: Lab, v: Viewer, pacer: Pacer, raw: Any, limit: int = 4096) -> list[str]:
    """Read one websocket message and apply it; any problem becomes an alert fragment."""
    with force_locale(v.lang):
        return commands.answer(
            raw,
            limit,
            lambda cmd: apply(lab, v, pacer, cmd),
            lambda text: session_html(v, pacer, alert=text),
            current_app.logger,
        )


def tick(lab: Lab, v: Viewer, pacer: Pacer) -> list[str]:
    """One autoplay step, or a pause at the end or at an unanswered question."""
    last = len(lab.trace(v.sid, v.version, v.transport)) - 1
    if v.step >= last or _blocked(lab, v):
        pacer.pause()
        return [session_html(v, pacer)]
    with force_locale(v.lang):
        return _move(lab, v, pacer, v.step + 1)


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
