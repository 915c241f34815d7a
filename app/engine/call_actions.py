"""Script verbs for tool calls: what the host does between a model naming a tool and the call
on the wire.

`call_tool` names a tool as the model would (its model-facing name, with `arguments`); the host
resolves it, refuses a name the model was never given, checks the call against the tool's
schema as the client now holds it, asks the user when it confirms calls (app.mcp.host.approval)
and sends tools/call. `prepare_call` (with `as`) and `run_call` split the same call in two, so a
scenario can change the catalog between the model's choice and the call. Like the verbs of
app.engine.actions, each pushes work into the world and emits the steps that send nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.mcp import events as ev
from app.mcp.host import PreparedCall, approval

from . import narration
from .stage import Stage


def call_tool(run: Stage, model_name: str, action: dict[str, Any]) -> None:
    prepared = prepare(run, model_name, action)
    if prepared is not None:
        run_prepared(run, prepared)


def prepare(run: Stage, model_name: str, action: dict[str, Any]) -> PreparedCall | None:
    snaps = run.world.tool_snapshots()
    row = run.world.host.resolve(model_name, snaps)
    given = {t["name"] for t in run.world.host.last_model_tools}
    # The model can only name what its last request gave it (once it has had one); a denied
    # name goes on to the access check, which refuses it with its own reason.
    ungiven = bool(run.world.host.model_requests) and model_name not in given
    if row is None or (ungiven and row["allowed"]):
        run.world.console.append(narration.text("console.never-given", {"tool": model_name}))
        run.emit(
            "internal",
            "model",
            "host",
            phrase="host.unknown-model-name",
            params={"tool": model_name},
            events=[ev.CallRefused(model_name, "never-given")],
        )
        return None
    prepared = run.world.host.prepare_call(model_name, action.get("arguments", {}), snaps)
    return prepared


def run_prepared(run: Stage, prepared: PreparedCall) -> None:
    snaps = run.world.tool_snapshots()
    problem = run.world.host.revalidate(prepared, snaps)
    if problem is not None:
        reason = problem.split(":")[0]
        detail = problem.partition(": ")[2] or problem  # the schema check's own words (English)
        run.world.console.append(
            narration.text(
                f"console.refused-{reason}", {"tool": prepared.model_name, "detail": detail}
            )
        )
        run.emit(
            "internal",
            "host",
            "model",
            phrase=f"host.refused-{reason}",
            params={"tool": prepared.model_name, "detail": detail},
            events=[ev.CallRefused(prepared.model_name, reason, problem)],
        )
        return
    if run.world.host.config.confirm_calls:
        put_to_user(run, prepared, snaps)
    out = run.world.clients[prepared.server_id].call_tool(prepared.tool, prepared.arguments)
    run.send_from_client(prepared.server_id, out, host_started=True)


def put_to_user(run: Stage, prepared: PreparedCall, snaps: dict[str, Any]) -> None:
    """A host that confirms calls decides here: run it, or ask the user (who agrees, in the lab).
    Annotations only count when the user trusts the server that wrote them."""
    tool = next(t for t in snaps[prepared.server_id] if t.get("name") == prepared.tool)
    trusted = prepared.server_id in run.world.host.config.trusted_servers
    decision, reason = approval(trusted, tool)
    run.world.console.append(
        narration.text(f"console.approval-{decision}", {"tool": prepared.model_name})
    )
    run.emit(
        "internal",
        "host",
        "host",
        phrase=f"host.approval-{reason}",
        params={"tool": prepared.model_name, "server": prepared.server_id},
        events=[ev.CallApproval(prepared.model_name, decision, reason)],
    )


def prepare_call(run: Stage, model_name: str, action: dict[str, Any]) -> None:
    prepared = prepare(run, model_name, action)
    if prepared is None:
        return
    label = str(action.get("as", model_name))
    run.world.prepared[label] = prepared
    run.world.console.append(narration.text("console.prepared", {"tool": model_name}))
    run.emit(
        "internal",
        "model",
        "host",
        phrase="host.prepared",
        params={"tool": model_name, "hash": prepared.schema_hash},
        events=[ev.CallPrepared(model_name, prepared.schema_hash)],
    )


def run_call(run: Stage, label: str, action: dict[str, Any]) -> None:
    prepared = run.world.prepared.get(label)
    if prepared is not None:  # else its prepare_call was refused, and a step said why
        run_prepared(run, prepared)


VERBS: dict[str, Callable[[Stage, Any, dict[str, Any]], None]] = {
    "call_tool": call_tool,
    "prepare_call": prepare_call,
    "run_call": run_call,
}
