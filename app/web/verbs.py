"""What each command of a viewer's socket does to the viewer's state: the verbs.

Commands are JSON objects: {"command": "next"}, {"command": "goto", "step": i}, ... `goto`
takes the 0-based index of the step in the trace (the `index` of docs/ARCHITECTURE.md, and
#status's data-step), while URLs and everything on screen count from 1: `step=N` in a URL is
index N - 1 (see `render.url_step`).

Commands are dispatched from one table, `COMMANDS` (verb → handler, like the engine's verbs),
so the set of verbs is data a test can walk. A handler only changes the viewer's state (its
cursor, answers, view, the picture its page displays) and its pacer; what the page then needs
is worked out from that state (app.web.pages.frame), so no handler decides what to send.
Questions gate every forward move: next, goto, end, play and a deep link's `step=N` stop at the
first question on the way this viewer has not answered, with one line saying so; going back is
always free. A wrong answer keeps the question open (its reason shown, try again); the right
one, or "reveal", closes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext

from app.web import commands, i18n
from app.web.commands import Refused
from app.web.lab import Lab, Step
from app.web.overview import SHAPES
from app.web.pacer import Pacer
from app.web.pages import first_question
from app.web.render import VIEWS, Viewer, checkpoint_key, chosen, gate

__all__ = [
    "COMMANDS",
    "Stopped",
    "apply",
    "blocked",
    "first_question",
    "gate",
    "move",
    "same_event",
    "trace_of",
]


class Stopped(Exception):
    """A move that stopped short at an open question: it was made as far as it could go, and
    the page says why."""


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


def trace_of(lab: Lab, v: Viewer) -> list[Step]:
    return lab.trace(v.sid, v.version, v.transport)


def blocked(lab: Lab, v: Viewer) -> bool:
    """Whether the step on show asks a question this viewer has not answered yet."""
    return bool(trace_of(lab, v)[v.step].get("checkpoint")) and chosen(lab, v) is None


def move(lab: Lab, v: Viewer, pacer: Pacer, to: int) -> None:
    """Go to step `to`, or as far toward it as the open questions allow (Stopped says so)."""
    last = len(trace_of(lab, v)) - 1
    if not 0 <= to <= last:
        raise Refused(gettext("There is no step %(n)s in this scenario.", n=to + 1))
    allowed = gate(lab, v, to)
    if allowed == v.step and to != v.step:
        pacer.pause()
        raise Refused(first_question())
    v.step = allowed
    if pacer.playing and (allowed == last or blocked(lab, v)):
        pacer.pause()
    if allowed != to:
        raise Stopped(first_question())


Handler = Callable[[Lab, Viewer, Pacer, dict[str, Any]], None]


def _next(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    if blocked(lab, v):
        raise Refused(first_question())
    if v.step == len(trace_of(lab, v)) - 1:
        raise Refused(gettext("This is the last step."))
    move(lab, v, pacer, v.step + 1)


def _prev(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    if v.step == 0:
        raise Refused(gettext("This is the first step."))
    move(lab, v, pacer, v.step - 1)


def _goto(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    move(lab, v, pacer, _int(cmd.get("step")))


def _end(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    move(lab, v, pacer, len(trace_of(lab, v)) - 1)


def _reset(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    pacer.pause()
    v.answered.clear()
    v.tried.clear()
    v.furthest = 0
    move(lab, v, pacer, 0)


def _play(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    again = v.step == len(trace_of(lab, v)) - 1
    if again:  # from the end, play starts over
        v.step = 0
    if blocked(lab, v):
        if again:  # the first step asks a question: show it, and wait for the answer
            return
        raise Refused(first_question())
    pacer.play()


def _pause(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    pacer.pause()


def _speed(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    if not pacer.set_speed(float(cmd.get("speed", ""))):
        raise ValueError(cmd.get("speed"))


def _view(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    if cmd.get("view") not in VIEWS:
        raise ValueError(cmd.get("view"))
    v.view = cmd["view"]


def _shape(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    """The page displays the overview's other picture now (AGAIN sends the overview whole)."""
    if cmd.get("shape") not in SHAPES:
        raise ValueError(cmd.get("shape"))
    v.shape = cmd["shape"]


def _switch(attr: str, key: str, allowed: Callable[[Viewer], Any]) -> Handler:
    """A handler that switches version, transport or language and stays on the same event."""

    def switch(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
        value = cmd.get(key)
        if value not in allowed(v):
            raise ValueError(value)
        before = trace_of(lab, v)
        setattr(v, attr, value)
        v.step = same_event(before, v.step, trace_of(lab, v))
        v.furthest = same_event(before, min(v.furthest, len(before) - 1), trace_of(lab, v))

    return switch


def _checkpoint(lab: Lab, v: Viewer) -> dict[str, Any]:
    checkpoint = trace_of(lab, v)[v.step].get("checkpoint")
    if not checkpoint:
        raise Refused(gettext("There is no question at this step."))
    return dict(checkpoint)


def _close(lab: Lab, v: Viewer, choice: int) -> None:
    key = checkpoint_key(trace_of(lab, v), v.step)
    assert key is not None
    v.answered[key] = choice
    v.tried.pop(key, None)


def _answer(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    checkpoint = _checkpoint(lab, v)
    choice = _int(cmd.get("choice"))
    if not 0 <= choice < len(checkpoint.get("choices", [])):
        raise ValueError(choice)
    if chosen(lab, v) is not None:  # already answered: the answer stands
        return
    if choice == checkpoint.get("answer"):
        _close(lab, v, choice)
        return
    key = checkpoint_key(trace_of(lab, v), v.step)
    assert key is not None
    wrong = v.tried.setdefault(key, [])
    if choice in wrong:
        wrong.remove(choice)
    wrong.append(choice)  # the last one tried is the one whose reason is shown


def _reveal(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> None:
    """ "Show the answer": the question closes with its right answer, as if picked."""
    checkpoint = _checkpoint(lab, v)
    if chosen(lab, v) is None:
        _close(lab, v, int(checkpoint.get("answer", 0)))


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
    "shape": _shape,
    "answer": _answer,
    "reveal": _reveal,
}


def apply(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> str:
    """Carry out one command; returns what the page should say about it ("" for nothing).
    Raises Refused or ValueError."""
    name = cmd.get("command")
    handler = COMMANDS.get(name) if isinstance(name, str) else None
    if handler is None:
        raise commands.unknown(name)
    try:
        handler(lab, v, pacer, cmd)
    except Stopped as stop:
        return str(stop)
    return ""
