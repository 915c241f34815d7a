"""Events of requests in general: an answer nobody waits for, an error, a hand-made request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Event

__all__ = ["ManualError", "ManualResult", "ManualSent", "RequestFailed", "UnexpectedResponse"]


@dataclass(frozen=True)
class UnexpectedResponse(Event):
    kind: ClassVar[str] = "unexpected-response"
    id: Any


@dataclass(frozen=True)
class RequestFailed(Event):
    kind: ClassVar[str] = "error"
    code: Any
    method: str


@dataclass(frozen=True)
class ManualSent(Event):
    kind: ClassVar[str] = "manual"
    method: str


@dataclass(frozen=True)
class ManualResult(Event):
    kind: ClassVar[str] = "manual-result"
    method: str
    code: Any = None


@dataclass(frozen=True)
class ManualError(Event):
    kind: ClassVar[str] = "manual-error"
    method: str
    code: Any = None
