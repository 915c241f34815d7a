"""The script's verbs: what each scenario action does to the world of a run.

`VERBS` maps each verb of a scenario file to a function of the run (a `Stage`, app.engine.stage),
the verb's argument and the whole action. Each pushes work into the world (a client call, a
catalog change, a clock jump) and emits the steps that send nothing; message deliveries are the
runner's business.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from app.mcp import events as ev
from app.mcp import versions
from app.mcp.tooldiff import diff_tools

from . import call_actions, context_actions, interventions, narration, offer_actions, polling
from .recorder import actor
from .stage import Stage


class TraceError(Exception):
    """The scenario asked for something the world cannot do (a bug in the scenario)."""


# A model request of more tools than this names only the first few in its narration.
MANY_NAMES, FIRST_NAMES = 12, 4


def seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def targets(run: Stage, target: str) -> list[str]:
    return list(run.world.servers) if target == "all" else [target]


def connect(run: Stage, target: str, action: dict[str, Any]) -> None:
    for sid in targets(run, target):
        link = run.world.links.get(sid)
        if link is not None and link.flavour == "http+sse":
            run.emit(
                "transport",
                actor(sid, True),
                actor(sid, False),
                frame=link.open_legacy_stream(),
                phrase="transport.sse-endpoint",
                params={"server": sid},
            )
        out = run.world.clients[sid].start()
        run.send_from_client(sid, out, host_started=True)
        if not action.get("wait"):
            run.settle()


def list_tools(run: Stage, target: str, action: dict[str, Any]) -> None:
    for sid in targets(run, target):
        if interventions.unready(run, sid):
            continue
        client = run.world.clients[sid]
        out = client.list_tools(force=bool(action.get("force")), reason="host asked")
        hit = next((e for e in out.events if isinstance(e, ev.CacheHit)), None)
        if hit is not None:
            run.world.log(sid, hit)
            run.emit(
                "cache-hit",
                actor(sid, True),
                "host",
                events=out.events,
                phrase="cache.hit",
                params={
                    "server": sid,
                    **hit.detail,
                    "ttlLeft": seconds(hit.ttl_left_ms),
                },
            )
            continue
        run.send_from_client(sid, out, host_started=True)
        if not action.get("wait"):
            run.settle()


def refresh(run: Stage, target: str, action: dict[str, Any]) -> None:
    for sid in targets(run, target):
        if interventions.unready(run, sid):
            continue
        client = run.world.clients[sid]
        out = client.refresh(reason="host asked", restart=bool(action.get("restart")))
        run.send_from_client(sid, out, host_started=True)
        quiet = [e for e in out.events if isinstance(e, ev.RefreshQueued | ev.GatherAbandoned)]
        if quiet:
            run.emit(
                "internal",
                "host",
                actor(sid, True),
                events=out.events,
                phrase="client.refresh-" + quiet[0].kind,
                params={"server": sid, **quiet[0].detail},
            )
        run.cancellations(sid, out)


def model_request(run: Stage, prompt: str, action: dict[str, Any]) -> None:
    run.world.model_prompt = prompt
    tools = run.world.host.model_request(run.world.tool_snapshots(), run.world.instructions())
    names = [t["name"] for t in tools]
    run.world.console.append(
        narration.text(
            "console.model-request",
            {"number": run.world.host.model_requests, "count": len(tools), "names": names},
        )
    )
    latest = sum(len(c.cache.tools) for c in run.world.clients.values())
    phrase = "model.request" if run.world.host.rebuild_every_request else "model.request-stale"
    if len(names) > MANY_NAMES and phrase == "model.request":
        phrase, names = "model.request-many", names[:FIRST_NAMES]  # hundreds: name a few
    run.emit(
        "model-request",
        "host",
        "model",
        phrase=phrase,
        params={
            "number": run.world.host.model_requests,
            "count": len(tools),
            "names": names,
            "cached": latest,
        },
    )
    context_actions.describe_request(run)  # instructions, deferred tools: the host's choices


def advance_clock(run: Stage, ms: int, action: dict[str, Any]) -> None:
    def jump(by: int) -> None:
        run.world.clock.advance(by)
        run.emit(
            "clock",
            "host",
            "host",
            phrase="clock.advance",
            params={"seconds": seconds(by), "total": seconds(run.world.clock.now_ms())},
        )

    polling.advance(run, ms, jump, lambda sid: list_tools(run, sid, {}))


def server_change(run: Stage, sid: str, action: dict[str, Any]) -> None:
    server = run.world.servers[sid]
    tools = copy.deepcopy(server.tools)
    removed = set(action.get("remove", []))
    tools = [t for t in tools if t["name"] not in removed]
    for upd in action.get("update", []):
        tools = [{**t, **upd} if t["name"] == upd["name"] else t for t in tools]
    tools += action.get("add", [])
    change = diff_tools(server.tools, tools)
    notes = server.set_tools(tools)
    run.world.send_from_server(sid, notes)
    phrase = "server.change" if server.config.list_changed else "server.change-silent"
    run.emit(
        "internal",
        actor(sid, False),
        actor(sid, False),
        phrase=phrase,
        params={"server": sid, **change},
    )


def deliver_next(run: Stage, count: int, action: dict[str, Any]) -> None:
    # A delivery may put a reply in flight; it counts towards n like any other message.
    for _ in range(count):
        if not run.world.queue:
            break
        run.deliver()


def deliver_newest(run: Stage, count: int, action: dict[str, Any]) -> None:
    for _ in range(count):
        if not run.world.queue:
            break
        run.deliver(len(run.world.queue) - 1)


def settle_all(run: Stage, _: Any, action: dict[str, Any]) -> None:
    run.settle()


def send_by_hand(run: Stage, sid: str, action: dict[str, Any]) -> None:
    client = run.world.clients[sid]
    params = copy.deepcopy(action.get("params"))
    if client.era is versions.Era.MODERN:
        params = params or {}
    run.send_from_client(sid, client.raw_request(action["method"], params), host_started=True)


def set_user(run: Stage, user: str, action: dict[str, Any]) -> None:
    run.world.host.user = user
    run.emit("internal", "host", "host", phrase="host.set-user", params={"user": user})


def set_host(run: Stage, settings: dict[str, Any], action: dict[str, Any]) -> None:
    if "rebuildEveryRequest" in settings:
        run.world.host.rebuild_every_request = bool(settings["rebuildEveryRequest"])
    if "serverInstructions" in settings or "deferLoading" in settings:
        context_actions.set_strategy(run, settings)  # the host's context strategies
        return
    run.emit(
        "internal",
        "host",
        "host",
        phrase="host.settings",
        params={"rebuild": run.world.host.rebuild_every_request},
    )


def note(run: Stage, _: Any, action: dict[str, Any]) -> None:
    if "say" not in action:
        raise TraceError("a note needs say")
    run.emit("internal", "host", "host", phrase="note")


def restart_server(run: Stage, target: str, action: dict[str, Any]) -> None:
    for sid in targets(run, target):

        def reconnect(sid: str = sid) -> None:  # what a host does when a process comes back
            connect(run, sid, {})
            list_tools(run, sid, {})

        interventions.restart(run, sid, reconnect)


VERBS: dict[str, Callable[[Stage, Any, dict[str, Any]], None]] = {
    "connect": connect,
    "list_tools": list_tools,
    "refresh": refresh,
    "model_request": model_request,
    "advance_clock": advance_clock,
    "server_change": server_change,
    "deliver": deliver_next,
    "deliver_last": deliver_newest,
    "settle": settle_all,
    "send": send_by_hand,
    "set_user": set_user,
    "set_host": set_host,
    "note": note,
    "lose": interventions.lose,
    "restart_server": restart_server,
}
VERBS.update(call_actions.VERBS)  # tool calls: prepared, checked, approved, sent
VERBS.update(offer_actions.VERBS)  # resources, resource templates and prompts
VERBS.update(context_actions.VERBS)  # the host's context strategies
