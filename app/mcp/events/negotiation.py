"""Events of the opening: initialize, server/discover, counter-offers, fallbacks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Event

__all__ = [
    "CounterOffer",
    "Discovered",
    "FallbackLegacy",
    "InitializeFailed",
    "InitializeSent",
    "ModernRefused",
    "Negotiated",
    "ProbeSent",
    "VersionRefused",
    "VersionRetry",
]


@dataclass(frozen=True)
class ProbeSent(Event):
    kind: ClassVar[str] = "probe"
    version: str


@dataclass(frozen=True)
class InitializeSent(Event):
    kind: ClassVar[str] = "initialize"
    version: str


@dataclass(frozen=True)
class CounterOffer(Event):
    kind: ClassVar[str] = "counter-offer"
    requested: str
    offered: Any


@dataclass(frozen=True)
class VersionRefused(Event):
    kind: ClassVar[str] = "version-refused"
    offered: Any


@dataclass(frozen=True)
class Negotiated(Event):
    kind: ClassVar[str] = "negotiated"
    version: str
    list_changed: bool


@dataclass(frozen=True)
class Discovered(Event):
    kind: ClassVar[str] = "discovered"
    versions: Any
    list_changed: bool


@dataclass(frozen=True)
class VersionRetry(Event):
    kind: ClassVar[str] = "version-retry"
    version: str


@dataclass(frozen=True)
class FallbackLegacy(Event):
    kind: ClassVar[str] = "fallback-legacy"
    code: Any


@dataclass(frozen=True)
class ModernRefused(Event):
    """A modern server refused the probe with an error no retry can fix (-32021, -32020)."""

    kind: ClassVar[str] = "modern-refused"
    code: Any


@dataclass(frozen=True)
class InitializeFailed(Event):
    kind: ClassVar[str] = "initialize-failed"
    code: Any
