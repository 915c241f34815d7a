"""Events of list_changed and the subscriptions/listen stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Event

__all__ = [
    "ListChanged",
    "ListChangedIgnored",
    "ListenAcknowledged",
    "ListenClosed",
    "ListenSent",
    "OtherNotification",
]


@dataclass(frozen=True)
class ListenSent(Event):
    kind: ClassVar[str] = "listen"
    id: Any


@dataclass(frozen=True)
class ListenAcknowledged(Event):
    kind: ClassVar[str] = "listen-acknowledged"
    notifications: dict[str, Any]


@dataclass(frozen=True)
class ListenClosed(Event):
    kind: ClassVar[str] = "listen-closed"


@dataclass(frozen=True)
class ListChanged(Event):
    kind: ClassVar[str] = "list-changed"
    declared: bool


@dataclass(frozen=True)
class ListChangedIgnored(Event):
    kind: ClassVar[str] = "list-changed-ignored"
    declared: bool


@dataclass(frozen=True)
class OtherNotification(Event):
    kind: ClassVar[str] = "notification"
    method: str
