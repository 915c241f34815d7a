"""Tool calls and the one retry: a call naming a tool the server no longer knows re-discovers.

An unknown tool is answered with -32602. Maybe the client's list is stale, so the first time a
name is rejected the client re-lists, and once the new list is published it retries the call if
the tool is still there or reports it gone; a second rejection is reported, never retried. A
-32602 for arguments that do not fit the inputSchema the client holds (invalid arguments are a
protocol error up to 2025-06-18) is no sign of a stale list: it is reported, not retried. A
result with structuredContent is checked against the tool's outputSchema (clients SHOULD).
"""

from __future__ import annotations

import copy
from typing import Any

from . import events as ev
from . import jsonrpc, lifecycle
from .clientcore import ClientCore
from .events import Output
from .requests import Pending
from .toolcalls import argument_problem, structured_problem


def call_tool(client: ClientCore, name: str, arguments: dict[str, Any]) -> Output:
    client.advance(lifecycle.CALL_TOOL)
    call = {"name": name, "arguments": copy.deepcopy(arguments)}
    message = client.request("tools/call", dict(call), Pending("tools/call", call=call))
    return Output([message], [ev.CallSent(name)])


def on_result(client: ClientCore, pending: Pending, result: dict[str, Any]) -> Output:
    assert pending.call is not None
    name = pending.call["name"]
    text = " ".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
    if result.get("isError"):
        return Output(events=[ev.CallToolError(name, text)])
    tool = _cached(client, name)
    if "structuredContent" in result and tool is not None and "outputSchema" in tool:
        problem = structured_problem(tool["outputSchema"], result["structuredContent"])
        return Output(events=[ev.CallOk(name, text), ev.StructuredChecked(name, problem)])
    return Output(events=[ev.CallOk(name, text)])


def _cached(client: ClientCore, name: str) -> dict[str, Any] | None:
    return next((t for t in client.cache.tools if t.get("name") == name), None)


def on_error(client: ClientCore, pending: Pending, err: dict[str, Any]) -> Output:
    if pending.call is None:
        return Output(events=[ev.RequestFailed(err.get("code"), pending.method)])
    call = pending.call
    name = call["name"]
    rejected = ev.CallRejected(name, err.get("code"), err.get("message"))
    tool = _cached(client, name)
    if tool is not None and argument_problem(tool.get("inputSchema"), call["arguments"]):
        # The tool is known and the arguments break its schema: the model's mistake, not a
        # stale list. Re-listing would change nothing; the host tells the model instead.
        return Output(events=[rejected, ev.CallArgumentsInvalid(name)])
    if (
        err.get("code") == jsonrpc.INVALID_PARAMS
        and name not in client.retried
        and client.config.rediscover_on_failed_call
    ):
        # Maybe our list is stale: re-discover once, then retry if the tool still exists.
        # The re-listing itself is the switchboard's (app.mcp.client), which sees the call wait.
        client.retried.add(name)
        client.awaiting_rediscovery.append(call)
        return Output(events=[rejected])
    return Output(events=[rejected, ev.CallAbandoned(name)])


def waits_for_rediscovery(client: ClientCore, pending: Pending) -> bool:
    """Whether the call `pending` answered now waits for a fresh list (see on_error)."""
    return pending.call is not None and pending.call in client.awaiting_rediscovery


def retry_waiting(client: ClientCore) -> Output:
    """After a publish: retry each call that waited for it, or report its tool gone."""
    out = Output()
    names = {t["name"] for t in client.cache.tools}
    waiting, client.awaiting_rediscovery = client.awaiting_rediscovery, []
    for call in waiting:
        if call["name"] in names:
            out.events.append(ev.CallRetry(call["name"]))
            out.extend(call_tool(client, call["name"], call["arguments"]))
        else:
            out.events.append(ev.CallAbandoned(call["name"], gone=True))
    return out
