"""One viewer's conversation over its websocket, as plain functions of a socket-like object.

`converse(ws, lab, v)` is the whole life of a connection: it waits for a command (or for the
pacer's timeout while playing), applies it to the viewer's cursor with `handle`, and sends the
resulting fragments. `ws` is anything with `send(str)` and `receive(timeout)`, so tests use a
fake socket. Bad input (not JSON, not an object, unknown command, bad value, too large, binary)
is answered with a readable alert fragment and the loop goes on: the connection stays usable.

Commands are JSON objects: {"command": "next"}, {"command": "goto", "step": i}, ... `goto`
takes the 0-based index of the step in the trace (the `index` of docs/ARCHITECTURE.md, and
#status's data-step), while URLs and everything on screen count from 1: `step=N` in a URL is
index N - 1 (see `render.url_step`).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from flask import current_app
from flask_babel import force_locale, gettext
from simple_websocket import ConnectionClosed

from app.web import i18n
from app.web.lab import Lab, Step
from app.web.pacer import Pacer
from app.web.render import (
    VIEWS,
    Viewer,
    checkpoint_key,
    chrome_html,
    feedback_html,
    session_html,
    step_html,
)

COMMANDS = (
    "next",
    "prev",
    "goto",
    "play",
    "pause",
    "speed",
    "reset",
    "version",
    "transport",
    "view",
    "language",
    "answer",
)


class Socket(Protocol):
    def send(self, data: str) -> None: ...
    def receive(self, timeout: float | None = None) -> Any: ...


class Refused(Exception):
    """A command the viewer cannot carry out; its text is shown to the user."""


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


def _blocked(lab: Lab, v: Viewer) -> bool:
    """Whether the step on show asks a question this viewer has not answered yet."""
    key = checkpoint_key(lab.trace(v.sid, v.version, v.transport), v.step)
    return key is not None and key not in v.answered


def _move(lab: Lab, v: Viewer, pacer: Pacer, to: int) -> list[str]:
    last = len(lab.trace(v.sid, v.version, v.transport)) - 1
    if not 0 <= to <= last:
        raise Refused(gettext("There is no step %(n)s in this scenario.", n=to + 1))
    v.step = to
    if pacer.playing and (to == last or _blocked(lab, v)):
        pacer.pause()
    return [step_html(lab, v), session_html(v, pacer)]


def apply(lab: Lab, v: Viewer, pacer: Pacer, cmd: dict[str, Any]) -> list[str]:
    """Carry out one command; returns the fragments to send. Raises Refused or ValueError."""
    name = cmd.get("command")
    if name == "next":
        if _blocked(lab, v):
            raise Refused(gettext("Answer the question first, then the next step appears."))
        if v.step == len(lab.trace(v.sid, v.version, v.transport)) - 1:
            raise Refused(gettext("This is the last step."))
        return _move(lab, v, pacer, v.step + 1)
    if name == "prev":
        if v.step == 0:
            raise Refused(gettext("This is the first step."))
        return _move(lab, v, pacer, v.step - 1)
    if name == "goto":
        return _move(lab, v, pacer, _int(cmd.get("step")))
    if name == "reset":
        pacer.pause()
        v.answered.clear()
        return _move(lab, v, pacer, 0)
    if name == "play":
        again = v.step == len(lab.trace(v.sid, v.version, v.transport)) - 1
        if again:  # from the end, play starts over
            v.step = 0
        if _blocked(lab, v):
            if again:  # the first step asks a question: show it, and wait for the answer
                return [step_html(lab, v), session_html(v, pacer)]
            raise Refused(gettext("Answer the question first, then the next step appears."))
        pacer.play()
        return [step_html(lab, v), session_html(v, pacer)]
    if name == "pause":
        pacer.pause()
        return [session_html(v, pacer)]
    if name == "speed":
        if not pacer.set_speed(float(cmd.get("speed", ""))):
            raise ValueError(cmd.get("speed"))
        return [session_html(v, pacer)]
    if name == "view":
        if cmd.get("view") not in VIEWS:
            raise ValueError(cmd.get("view"))
        v.view = cmd["view"]
        return [session_html(v, pacer)]
    if name in ("version", "transport", "language"):
        field = {"version": "version", "transport": "transport", "language": "lang"}[name]
        value = cmd.get(field)
        allowed = {
            "version": v.scenario.versions,
            "transport": v.scenario.transports,
            "language": i18n.LANGUAGES,
        }[name]
        if value not in allowed:
            raise ValueError(value)
        before = lab.trace(v.sid, v.version, v.transport)
        setattr(v, "lang" if name == "language" else name, value)
        v.step = same_event(before, v.step, lab.trace(v.sid, v.version, v.transport))
        return [step_html(lab, v), chrome_html(lab, v), session_html(v, pacer)]
    if name == "answer":
        checkpoint = lab.trace(v.sid, v.version, v.transport)[v.step].get("checkpoint")
        if not checkpoint:
            raise Refused(gettext("There is no question at this step."))
        choice = _int(cmd.get("choice"))
        if not 0 <= choice < len(checkpoint.get("choices", [])):
            raise ValueError(choice)
        key = checkpoint_key(lab.trace(v.sid, v.version, v.transport), v.step)
        assert key is not None
        v.answered[key] = choice
        return [feedback_html(lab, v, choice)]
    raise Refused(gettext("Unknown command: %(name)s", name=str(name)[:40]))


def handle(lab: Lab, v: Viewer, pacer: Pacer, raw: Any, limit: int = 4096) -> list[str]:
    """Parse one websocket frame and apply it; any problem becomes an alert fragment."""
    cmd: dict[str, Any] = {}
    with force_locale(v.lang):
        try:
            if not isinstance(raw, str):
                raise Refused(gettext("Commands must be text frames."))
            if len(raw) > limit:
                raise Refused(
                    gettext(
                        "Command refused: %(n)s bytes is over the limit of %(limit)s.",
                        n=len(raw),
                        limit=limit,
                    )
                )
            parsed = json.loads(raw)
            if not isinstance(parsed, dict):
                raise Refused(gettext("A command must be a JSON object."))
            cmd = parsed
            return apply(lab, v, pacer, cmd)
        except Refused as exc:
            message = str(exc)
        except json.JSONDecodeError:
            message = gettext("That command is not valid JSON.")
        except RecursionError:  # "[[[[…" fits in the size limit but not in the parser's stack
            message = gettext("That command is nested too deeply to read.")
        except (ValueError, TypeError, KeyError) as exc:
            message = gettext(
                "Bad value for %(name)s: %(value)s",
                name=str(cmd.get("command"))[:40],
                value=str(exc)[:80],
            )
        except Exception:  # an engine or template bug: say so, keep the socket open
            current_app.logger.exception("command failed: %r", cmd)
            message = gettext("The server could not carry out that command.")
    return [session_html(v, pacer, alert=message)]


def tick(lab: Lab, v: Viewer, pacer: Pacer) -> list[str]:
    """One autoplay step, or a pause at the end or at an unanswered question."""
    last = len(lab.trace(v.sid, v.version, v.transport)) - 1
    if v.step >= last or _blocked(lab, v):
        pacer.pause()
        return [session_html(v, pacer)]
    return _move(lab, v, pacer, v.step + 1)


def converse(ws: Socket, lab: Lab, v: Viewer, pacer: Pacer, limit: int = 4096) -> None:
    """Serve one viewer until its socket closes."""
    try:
        ws.send(session_html(v, pacer))
        while True:
            raw = ws.receive(timeout=pacer.timeout())
            if raw is None:
                messages = tick(lab, v, pacer) if pacer.playing else []
            else:
                messages = handle(lab, v, pacer, raw, limit)
            for message in messages:
                ws.send(message)
    except ConnectionClosed:
        return
