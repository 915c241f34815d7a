"""Script verbs for resources, resource templates and prompts (app.mcp.primitives, app.mcp.lists).

The host asks a client for one of the lists (`list_resources`, `list_resource_templates`,
`list_prompts`), reads a resource (`read_resource` with `uri`) or subscribes to one
(`subscribe` with `uri`); a server changes a list (`offer_change` with `list`, `addItems`,
`removeItems`) or one resource's contents (`resource_update` with `uri` and `text`). Like the
verbs of app.engine.actions, each pushes work into the world and emits the steps that send
nothing: a list the server does not offer, a change on a server.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from typing import Any

from app.mcp import lifecycle, lists, primitives
from app.mcp import listevents as le
from app.mcp.events import Output

from .recorder import actor
from .stage import Stage


def _targets(run: Stage, target: str) -> list[str]:
    return list(run.world.servers) if target == "all" else [target]


def _unready(run: Stage, sid: str) -> bool:
    """True (and a step saying so) when the client's opening never finished (a lost message,
    say): the host has no connection to ask through."""
    phase = run.world.clients[sid].phase
    if lifecycle.allows(lifecycle.CLIENT_TRANSITIONS, phase, lifecycle.USE_OFFERINGS):
        return False
    params = {"server": sid, "phase": phase.value}
    run.emit("internal", "host", actor(sid, True), phrase="offer.not-ready", params=params)
    return True


def _ask(run: Stage, sid: str, make: Callable[[], Output]) -> None:
    """Send what the client made of the host's wish, or show why nothing was sent."""
    if _unready(run, sid):
        return
    out = make()
    quiet = next(
        (e for e in out.events if isinstance(e, le.ListNotOffered | le.SubscribeRefused)), None
    )
    if quiet is not None and not out.messages:
        run.emit(
            "internal",
            "host",
            actor(sid, True),
            events=out.events,
            phrase=f"offer.{quiet.kind}",
            params={"server": sid, **quiet.detail},
        )
        return
    run.send_from_client(sid, out, host_started=True)


def _lister(key: str) -> Callable[[Stage, str, dict[str, Any]], None]:
    def verb(run: Stage, target: str, action: dict[str, Any]) -> None:
        for sid in _targets(run, target):
            _ask(run, sid, partial(run.world.clients[sid].lists_of, key))
            if not action.get("wait"):
                run.settle()

    return verb


def read_resource(run: Stage, sid: str, action: dict[str, Any]) -> None:
    _ask(run, sid, lambda: run.world.clients[sid].read_resource(str(action["uri"])))


def subscribe(run: Stage, sid: str, action: dict[str, Any]) -> None:
    _ask(run, sid, lambda: run.world.clients[sid].subscribe_resource(str(action["uri"])))


def offer_change(run: Stage, sid: str, action: dict[str, Any]) -> None:
    server = run.world.servers[sid]
    key = str(action["list"])
    ident = lists.KINDS[key].ident
    removed = set(action.get("removeItems", []))
    items = [i for i in server.primitives.lists[key].tools if i.get(ident) not in removed]
    items += copy.deepcopy(action.get("addItems", []))
    before = [i.get(ident) for i in server.primitives.lists[key].tools]
    notes = primitives.replace_list(server, key, items)
    run.world.send_from_server(sid, notes)
    after = [i.get(ident) for i in items]
    run.emit(
        "internal",
        actor(sid, False),
        actor(sid, False),
        phrase=f"offer.change.{key}" + ("" if notes else "-silent"),
        params={
            "server": sid,
            "added": [x for x in after if x not in before],
            "removed": [x for x in before if x not in after],
            "changed": [],
        },
    )


def resource_update(run: Stage, sid: str, action: dict[str, Any]) -> None:
    server = run.world.servers[sid]
    uri = str(action["uri"])
    notes = primitives.edit_resource(server, uri, str(action["text"]))
    run.world.send_from_server(sid, notes)
    run.emit(
        "internal",
        actor(sid, False),
        actor(sid, False),
        phrase="offer.edit" + ("" if notes else "-silent"),
        params={"server": sid, "uri": uri},
        events=[le.ResourceChanged(uri, len(notes))],
    )


VERBS: dict[str, Callable[[Stage, Any, dict[str, Any]], None]] = {
    "list_resources": _lister("resources"),
    "list_resource_templates": _lister("resourceTemplates"),
    "list_prompts": _lister("prompts"),
    "read_resource": read_resource,
    "subscribe": subscribe,
    "offer_change": offer_change,
    "resource_update": resource_update,
}
