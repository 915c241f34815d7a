"""Events of the host: a call it refuses, a call it prepares."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .base import Event

__all__ = ["CallPrepared", "CallRefused"]


@dataclass(frozen=True)
class CallRefused(Event):
    """The host would not run a call the model asked for (never given, denied, changed)."""

    kind: ClassVar[str] = "call-refused"
    tool: str
    reason: str
    detail_text: str | None = field(default=None, metadata={"omit_default": True, "key": "detail"})


@dataclass(frozen=True)
class CallPrepared(Event):
    kind: ClassVar[str] = "call-prepared"
    tool: str
    hash: str
