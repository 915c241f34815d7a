"""Interventions: a move made at the step on show becomes actions in the script right there.

The step's `action` says which script action produced it. When that action has no steps after
this one, the new action simply follows it. When it has (an action that settles delivers many
messages), the action is split: it waits, `deliver: m` lets through the messages that made
the steps up to this one, the intervention comes next, and the settle that ends it delivers
the rest. A split is accepted only when a re-run shows exactly the same steps up to the one on
show, so the intervention lands where the student saw it or is refused with a sentence.

Where the base holds messages back on purpose (`wait`, `deliver`), the intervention waits too,
so the scenario's staging of a race survives it.
"""

from __future__ import annotations

import copy
from typing import Any

from ..step import Step
from .compare import fingerprint
from .draft import Draft
from .model import Change, WhatIfError
from .worldchanges import free_name, input_schema, new_tool, server

Actions = list[dict[str, Any]]
_HOLDING = ("deliver", "deliver_last")
_SPLITS = 3  # candidates tried for one split: enough for a verb that delivers on its own


def held(action: dict[str, Any]) -> bool:
    return bool(action.get("wait")) or any(v in action for v in _HOLDING)


def actions_for(draft: Draft, trace: list[Step], c: Change, n: int) -> Actions:
    """The script actions a move stands for, checked against the step it is made at."""
    after = c["after"]
    if after >= len(trace):
        raise WhatIfError("no-step", n=n, step=after + 1, last=len(trace))
    state = trace[after]["state"]
    kind = c["change"]
    if kind == "loseNext":
        return [{"lose": 1}]
    if kind == "wait":
        return [{"advance_clock": c["seconds"] * 1000}]
    if kind == "callTool":
        return [{"call_tool": c["tool"], "arguments": copy.deepcopy(c.get("arguments", {}))}]
    sid = c["server"]
    spec = server(draft, sid, n)
    catalog = [t["name"] for t in state["servers"][sid]["tools"]] if sid in state["servers"] else []
    if kind == "restartServer":
        client = state["clients"].get(sid)
        if client is None or client["phase"] == "new":
            raise WhatIfError("not-started", n=n, server=sid, step=after + 1)
        return [{"restart_server": sid}]
    if kind == "addToolNow":
        if c["tool"]["name"] in catalog:
            raise WhatIfError("name-taken", n=n, server=sid, tool=c["tool"]["name"])
        free_name(draft, {**spec, "tools": []}, c["tool"]["name"], n)
        return [{"server_change": sid, "add": [new_tool(c["tool"], n)]}]
    if c["name"] not in catalog:
        raise WhatIfError("no-tool", n=n, server=sid, tool=c["name"], known=catalog)
    if kind == "removeToolNow":
        return [{"server_change": sid, "remove": [c["name"]]}]
    schema = input_schema(c["inputSchema"], n)
    return [{"server_change": sid, "update": [{"name": c["name"], "inputSchema": schema}]}]


def place(draft: Draft, trace: list[Step], c: Change, n: int) -> None:
    """Put the move's actions into the draft's script right after step `after`."""
    new = actions_for(draft, trace, c, n)
    after = c["after"]
    losing = c["change"] == "loseNext"
    for start in (draft, _per_server(draft, trace[after]["action"])):
        if start is None:
            continue
        steps = trace if start is draft else start.run()
        for candidate in _candidates(start, steps, after, new):
            if _verified(candidate, trace, after, losing):
                draft.data, draft.origins = candidate.data, candidate.origins
                draft.trace = candidate.trace  # verified just now: the next move starts from it
                return
    key = "nothing-in-flight" if losing else "cannot-stop"
    raise WhatIfError(key, n=n, step=after + 1)


def _candidates(draft: Draft, trace: list[Step], after: int, new: Actions) -> list[Draft]:
    index = trace[after]["action"]
    if index < 0:  # the final step: the move goes at the end of the script
        return [_with(draft, len(draft.script), new, False)]
    own = [s for s in trace if s["action"] == index]
    action = draft.script[index]
    if own[-1]["index"] == after:  # the action is over: the move follows it
        return [_with(draft, index + 1, new, held(action))]
    delivered = sum(1 for s in own if s["index"] <= after and s["message"] is not None)
    return [
        _split(draft, index, m, new) for m in range(delivered, max(-1, delivered - _SPLITS), -1)
    ]


def _per_server(draft: Draft, index: int) -> Draft | None:
    """`connect: all` or `list_tools: all` as one action per server, in server order: the
    same run (each server is settled before the next), and each part can then be split."""
    action = draft.script[index] if index >= 0 else {}
    verb = next((v for v in ("connect", "list_tools") if action.get(v) == "all"), None)
    if verb is None or action.get("wait"):
        return None
    out = _copy(draft)
    parts = [{**action, verb: spec["id"]} for spec in out.data["servers"]]
    out.replace(index, parts[0])
    out.insert(index + 1, parts[1:])
    return out


def _with(draft: Draft, at: int, new: Actions, wait: bool) -> Draft:
    out = _copy(draft)
    out.insert(at, [{**a, "wait": True} if wait else a for a in new])
    return out


def _split(draft: Draft, index: int, delivered: int, new: Actions) -> Draft:
    """`action` up to its `delivered`-th delivery, the move, then the rest of the action."""
    out = _copy(draft)
    action = out.script[index]
    verb = next((v for v in _HOLDING if v in action), None)
    if verb is not None:  # deliver k: deliver m, the move (waiting), deliver the other k - m
        if delivered >= action[verb]:
            return out  # nothing left to split: verification refuses it
        head = [{verb: delivered}] if delivered else []
        rest = {**action, verb: action[verb] - delivered}
        out.replace(index, rest)
        out.insert(index, [*head, *({**a, "wait": True} for a in new)])
        return out
    was_held = held(action)
    out.replace(index, {**action, "wait": True})
    head = [{"deliver": delivered}] if delivered else []
    tail = [{**a, "wait": True} if was_held else a for a in new]
    out.insert(index + 1, [*head, *tail])
    return out


def _copy(draft: Draft) -> Draft:
    return Draft(
        draft.base, draft.version, draft.transport, copy.deepcopy(draft.data), list(draft.origins)
    )


def _verified(candidate: Draft, trace: list[Step], after: int, losing: bool) -> bool:
    """The same steps up to the one on show, and (for a loss) a loss as the next message."""
    try:
        rerun = candidate.run()
    except WhatIfError:
        return False
    if len(rerun) <= after + 1:
        return False
    # The final step is the run's end: a move made there comes before the new end.
    upto = after if trace[after]["kind"] == "terminal" else after + 1
    if any(fingerprint(a) != fingerprint(b) for a, b in zip(trace[:upto], rerun, strict=False)):
        return False
    if losing:
        moved = [s for s in rerun[after + 1 :] if s["message"] is not None or _lost(s)]
        return bool(moved) and _lost(moved[0])
    return True


def _lost(step: Step) -> bool:
    return any(e["kind"] == "message-lost" for e in step["events"])
