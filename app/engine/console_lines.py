"""The agent's console: the line it prints for each client event, in every language.

The console is the host's log beside the step's narration (state.console in a trace); each
line's phrase is `console.<the event's kind>` in phrases.yaml, with the parameters below taken
from the event. Events of resources and prompts are app.engine.offer_narration's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from app.mcp import events as ev
from app.mcp.events import Event

from . import offer_narration
from .phrasebook import text
from .server_narration import RAN
from .step import Text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# Client events the agent's console reports, and what each line needs from the event; the
# line's phrase is console.<the event's kind> in phrases.yaml.
_CONSOLE_PARAMS: dict[type[Event], Callable[[Any], dict[str, Any]]] = {
    ev.Negotiated: lambda e: {"version": e.version},
    ev.Discovered: lambda e: {"versions": _json(e.versions)},
    ev.CounterOffer: lambda e: {"offered": e.offered, "requested": e.requested},
    ev.FallbackLegacy: lambda e: {"code": e.code},
    ev.ModernRefused: lambda e: {"code": e.code},
    ev.Published: lambda e: {
        "generation": e.generation,
        "count": e.count,
        "added": e.added,
        "removed": e.removed,
        "changed": e.changed,
    },
    ev.CacheHit: lambda e: {"generation": e.generation},
    ev.ListChanged: lambda e: {},
    ev.ListChangedIgnored: lambda e: {},
    ev.RefreshQueued: lambda e: {"generation": e.generation},
    ev.StaleResponse: lambda e: {"generation": e.generation},
    ev.RepeatedCursor: lambda e: {},
    ev.CallOk: lambda e: {"name": e.name, "text": e.text},
    ev.CallToolError: lambda e: {"name": e.name, "text": e.text},
    ev.CallRejected: lambda e: {"name": e.name, "code": e.code, "message": e.message},
    ev.CallRetry: lambda e: {"name": e.name},
    ev.ToolDropped: lambda e: {"name": e.name, "reason": e.reason},
    ev.CallAbandoned: lambda e: {"name": e.name},
    ev.ListenAcknowledged: lambda e: {"notifications": _json(sorted(e.notifications))},
    ev.RequestCancelled: lambda e: {"id": e.id, "method": e.method},
    ev.CallArgumentsInvalid: lambda e: {"name": e.name},
    ev.VersionRefused: lambda e: {"offered": e.offered},
}


def console_line(sid: str, event: Event) -> Text | None:
    """What the agent's console prints for a client event, in every language."""
    make = _CONSOLE_PARAMS.get(type(event)) or offer_narration.CONSOLE_PARAMS.get(type(event))
    if make is None:
        return None
    key = event.kind
    if isinstance(event, ev.CallOk) and RAN.match(event.text):
        key, params = "call-ran", {"name": event.name, **_ran(event.text)}
    else:
        params = make(event)
    return text(f"console.{key}", {"server": sid, **params})


def _ran(report: Any) -> dict[str, str]:
    ran = RAN.match(str(report))
    return {"args": ran["args"], "call": ran["n"]} if ran else {}
