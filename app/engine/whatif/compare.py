"""How a what-if's trace differs from the scenario's: the first step where they part, and a
side-by-side count of what each costs and what the model ends up with.

Two steps are the same when everything that happened is the same: who sent what to whom, the
exact frame, what the receiver made of it and the whole state after it. Narration, the
script position and checkpoints are left out: they describe a step, they are not the step
(a what-if's script has extra actions, and its narration is the engine's own).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

_SAME = (
    "kind",
    "from",
    "to",
    "protocolVersion",
    "era",
    "transport",
    "method",
    "id",
    "message",
    "frame",
    "channel",
    "reply",
    "events",
    "state",
)


Trace = Sequence[Mapping[str, Any]]


def fingerprint(step: Mapping[str, Any]) -> str:
    return json.dumps([step.get(k) for k in _SAME], sort_keys=True, ensure_ascii=False)


def first_difference(base: Trace, other: Trace) -> int | None:
    """The index of the first step that differs (or that one trace lacks); None if none does."""
    for index, (a, b) in enumerate(zip(base, other, strict=False)):
        if fingerprint(a) != fingerprint(b):
            return index
    if len(base) != len(other):
        return min(len(base), len(other))
    return None


@dataclass(frozen=True)
class Tally:
    """What one trace costs on the wire and what it leaves the model with."""

    steps: int
    messages: int  # JSON-RPC messages that crossed the wire
    roundTrips: int  # requests sent (each waits for its answer)
    bytes: int  # of the frames the transport carried (UTF-8)
    lists: int  # tools/list requests
    modelTools: list[str]  # the model-facing names of the last model request
    hostTools: list[str]  # what the host holds at the end (qualified names)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def tally(trace: Trace) -> Tally:
    frames = [s["frame"] for s in trace if s.get("frame")]
    requests = [s for s in trace if s["kind"] == "request"]
    final = trace[-1]["state"] if trace else {}
    return Tally(
        steps=len(trace),
        messages=sum(1 for s in trace if s.get("message") is not None),
        roundTrips=len(requests),
        bytes=sum(len(str(f).encode("utf-8")) for f in frames),
        lists=sum(1 for s in requests if s["method"] == "tools/list"),
        modelTools=[t["name"] for t in final.get("model", {}).get("tools", [])],
        hostTools=[r["qualified"] for r in final.get("host", {}).get("tools", [])],
    )


@dataclass(frozen=True)
class Comparison:
    firstDifference: int | None  # a trace index (the screen shows it + 1)
    base: Tally
    whatif: Tally

    def as_dict(self) -> dict[str, Any]:
        return {
            "firstDifference": self.firstDifference,
            "base": self.base.as_dict(),
            "whatif": self.whatif.as_dict(),
        }


def compare(base: Trace, other: Trace) -> Comparison:
    return Comparison(first_difference(base, other), tally(base), tally(other))
