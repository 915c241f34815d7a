"""Request tracking, in one place: ids the client allocates and what each open request was for.

Every request the client sends is recorded here until its answer arrives; the client reads the
record to route the answer, and the runner and narration read it (`method_of`, `is_manual`)
to name a message before the client has seen it. Nothing else keeps an id -> method map.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jsonrpc import RequestId


@dataclass
class Pending:
    """What an open request was for: its method, and what answering it means for the client."""

    method: str
    generation: int = 0  # tools/list: the gather it belongs to
    cursor: str | None = None  # tools/list: the cursor it sent
    call: dict[str, Any] | None = None  # tools/call: name and arguments, for a retry
    manual: bool = False  # a hand-made request: its answer changes nothing
    cancelled: bool = False  # the client sent notifications/cancelled: an answer is ignored
    subject: str | None = None  # resources/read, resources/subscribe: the URI it names


class Requests:
    """The client's open requests by id; ids count up from 1, as the lab's traces show them."""

    def __init__(self) -> None:
        self._next_id = 1
        self._open: dict[RequestId, Pending] = {}

    def open(self, pending: Pending) -> RequestId:
        """Allocate the next id for `pending` and keep it until `close`."""
        request_id = self._next_id
        self._next_id += 1
        self._open[request_id] = pending
        return request_id

    def track(self, request_id: RequestId, pending: Pending) -> None:
        """Keep `pending` under an id someone else chose (a real client, as an observer sees
        it); the lab's own client lets `open` choose."""
        self._open[request_id] = pending

    def close(self, request_id: RequestId | None) -> Pending | None:
        """The record of the request this answers (forgotten now), or None if unknown."""
        return None if request_id is None else self._open.pop(request_id, None)

    def get(self, request_id: Any) -> Pending | None:
        """The record of an open request, left open."""
        return self._open.get(request_id)

    def method_of(self, request_id: Any) -> str | None:
        pending = self._open.get(request_id)
        return pending.method if pending else None

    def is_manual(self, request_id: Any) -> bool:
        pending = self._open.get(request_id)
        return bool(pending and pending.manual)

    @property
    def in_flight(self) -> list[RequestId]:
        """Requests still awaited: a cancelled one stays known (its late answer is recognised)
        but is no longer waited for."""
        return [i for i, pending in self._open.items() if not pending.cancelled]
