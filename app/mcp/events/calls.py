"""Events of tools/call: the call, its result, its rejection and its one retry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Event, optional

__all__ = [
    "CallAbandoned",
    "CallApproval",
    "CallArgumentsInvalid",
    "CallOk",
    "CallRejected",
    "CallRetry",
    "CallSent",
    "CallToolError",
    "StructuredChecked",
]


@dataclass(frozen=True)
class CallSent(Event):
    kind: ClassVar[str] = "call"
    name: str


@dataclass(frozen=True)
class CallOk(Event):
    kind: ClassVar[str] = "call-ok"
    name: str
    text: str


@dataclass(frozen=True)
class CallToolError(Event):
    kind: ClassVar[str] = "call-tool-error"
    name: str
    text: str


@dataclass(frozen=True)
class CallRejected(Event):
    kind: ClassVar[str] = "call-rejected"
    name: str
    code: Any
    message: Any


@dataclass(frozen=True)
class StructuredChecked(Event):
    """structuredContent checked against the tool's outputSchema: `problem` is None if it fits."""

    kind: ClassVar[str] = "structured-checked"
    name: str
    problem: str | None


@dataclass(frozen=True)
class CallArgumentsInvalid(Event):
    """-32602 for arguments that break the inputSchema the client holds: reported, no retry."""

    kind: ClassVar[str] = "call-arguments-invalid"
    name: str


@dataclass(frozen=True)
class CallApproval(Event):
    """What the host decided before a call: run it ("auto") or put it to the user ("ask")."""

    kind: ClassVar[str] = "call-approval"
    tool: str
    decision: str
    reason: str


@dataclass(frozen=True)
class CallRetry(Event):
    kind: ClassVar[str] = "call-retry"
    name: str


@dataclass(frozen=True)
class CallAbandoned(Event):
    kind: ClassVar[str] = "call-abandoned"
    name: str
    gone: bool = optional(False)
