"""The Code view's data: for each step, the few lines of Python with the official SDK that make
its message happen on the side that sends it, or a sentence saying the step has no code of its
own.

A client's message is a call on `ClientSession` (legacy) or `Client` (2026-07-28); a server's
is the handler or notification call of the SDK's low-level `Server` that produces it, or, where
the SDK answers by itself (the handshake, an unknown method), a sentence saying so. The code is
built from the step itself (its method, cursor, arguments, the server's name and version), so
it shows the values on the wire; every snippet compiles (tests check it, top-level await
allowed). The notes come from texts.yaml in every language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.step import Step, Text, Trace

from . import serverside
from .authside import auth_code
from .clientside import client_code
from .texts import text


@dataclass(frozen=True)
class Snippet:
    side: str | None  # "client", "server", "host", or None when the step has no code
    code: str  # "" when the step has no code of its own
    note: Text

    def as_dict(self) -> dict[str, Any]:
        return {"side": self.side, "code": self.code, "note": self.note}


def _none(key: str) -> Snippet:
    return Snippet(None, "", text(key))


def snippet(trace: Trace, index: int, scenario: str | None = None) -> Snippet:
    """The code behind step `index` of `trace` (`scenario`: the id a stdio command names)."""
    step = trace[index]
    kind, sender = step["kind"], step["from"]
    if kind == "model-request":
        return Snippet("host", serverside.host_tools(step), text("code.model-request"))
    if kind == "cache-hit":
        return _none("code.none-cache")
    if kind == "transport":
        authorizing = auth_code(trace, step)
        return Snippet(*authorizing) if authorizing else _none("code.none-transport")
    if step["message"] is None:
        changed = kind == "internal" and sender.startswith("server:")
        return _none("code.none-change" if changed else "code.none")
    if sender.startswith("client:"):
        found = client_code(step, scenario)
        return Snippet("client", *found) if found else _none("code.none")
    if sender.startswith("server:"):
        found = serverside.server_code(step, _request_of(trace, step))
        if found is None:
            return Snippet("server", "", text("code.sdk-itself"))
        return Snippet("server", *found)
    return _none("code.none")


def _request_of(trace: Trace, step: Step) -> Step | None:
    """The request a response answers: the client's last request with the same id."""
    if step["id"] is None:
        return None
    asked = (s for s in reversed(trace[: step["index"]]) if s["kind"] == "request")
    return next((s for s in asked if s["id"] == step["id"] and s["from"] == step["to"]), None)


def snippets(trace: Trace, scenario: str | None = None) -> list[Snippet]:
    return [snippet(trace, i, scenario) for i in range(len(trace))]
