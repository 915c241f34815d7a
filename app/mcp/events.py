"""What the client (and the host) did or noticed: one frozen dataclass per event.

Narration, the console and the tests match events by type (`isinstance`, `match`), never by a
string. Each class still has a stable `kind`, the name a trace shows: `as_dict()` gives the JSON
object a step carries (`{"kind": "page", "generation": 1, ...}`), its keys the fields' names in
camelCase (or `metadata["key"]`), in declaration order. A field declared with `optional()` is
left out while it holds its default, as the trace has always done for such details. `Output` is
what a call into the client returns: messages to send and the events that explain them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .jsonrpc import Message


def optional(default: Any = None) -> Any:
    """A field left out of `as_dict()` while it holds `default`."""
    return field(default=default, metadata={"omit_default": True})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True)
class Event:
    """Base of every event; `kind` is its name in a trace."""

    kind: ClassVar[str] = "event"

    @property
    def detail(self) -> dict[str, Any]:
        """The event's fields as the trace shows them (camelCase keys, without `kind`)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("omit_default") and value == f.default:
                continue
            out[f.metadata.get("key", _camel(f.name))] = value
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.detail}


@dataclass
class Output:
    """What one call into the client returns: the messages to send and the events it caused."""

    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def extend(self, other: Output) -> Output:
        self.messages += other.messages
        self.events += other.events
        return self


# ------------------------------------------------------------------ negotiation
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


# ------------------------------------------------------------------ requests in general
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


# ------------------------------------------------------------------ gathering and the cache
@dataclass(frozen=True)
class CacheHit(Event):
    kind: ClassVar[str] = "cache-hit"
    generation: int
    ttl_left_ms: int


@dataclass(frozen=True)
class CacheExpired(Event):
    """Some cached pages went stale: `expired` are their numbers, of `pages` in the list."""

    kind: ClassVar[str] = "cache-expired"
    generation: int
    expired: list[int]
    pages: int


@dataclass(frozen=True)
class GatherStarted(Event):
    kind: ClassVar[str] = "gather-start"
    generation: int
    reason: str


@dataclass(frozen=True)
class RefreshQueued(Event):
    kind: ClassVar[str] = "refresh-queued"
    generation: int
    reason: str


@dataclass(frozen=True)
class GatherAbandoned(Event):
    kind: ClassVar[str] = "gather-abandoned"
    generation: int


@dataclass(frozen=True)
class PageReceived(Event):
    kind: ClassVar[str] = "page"
    generation: int
    page: int
    names: list[Any]
    next_cursor: str | None


@dataclass(frozen=True)
class PageReused(Event):
    """A page still fresh in the cache, taken from there instead of being fetched again."""

    kind: ClassVar[str] = "page-cached"
    generation: int
    page: int
    cursor: str | None
    names: list[Any]
    ttl_left_ms: int


@dataclass(frozen=True)
class StaleResponse(Event):
    kind: ClassVar[str] = "stale-response"
    generation: int
    current: int
    cancelled: bool = optional(False)  # the client had cancelled the request this answers


@dataclass(frozen=True)
class RepeatedCursor(Event):
    kind: ClassVar[str] = "repeated-cursor"
    cursor: str


@dataclass(frozen=True)
class PageCap(Event):
    kind: ClassVar[str] = "page-cap"
    pages: int


@dataclass(frozen=True)
class ListError(Event):
    kind: ClassVar[str] = "list-error"
    code: Any
    cursor: str | None


@dataclass(frozen=True)
class GatherFailed(Event):
    kind: ClassVar[str] = "gather-failed"
    generation: int


@dataclass(frozen=True)
class GatherDiscarded(Event):
    kind: ClassVar[str] = "gather-discarded"
    generation: int
    kept: int


@dataclass(frozen=True)
class Published(Event):
    kind: ClassVar[str] = "published"
    generation: int
    count: int
    pages: int
    added: list[str]
    removed: list[str]
    changed: list[str]
    reused: int = optional(0)  # pages taken from the cache, still fresh, instead of fetched


@dataclass(frozen=True)
class ToolDropped(Event):
    kind: ClassVar[str] = "tool-dropped"
    name: Any
    reason: str


@dataclass(frozen=True)
class RequestCancelled(Event):
    """The client gave up on a request: notifications/cancelled with its id and a reason, or,
    on 2026-07-28 Streamable HTTP, closing that request's response stream (`stream_closed`)."""

    kind: ClassVar[str] = "request-cancelled"
    id: Any
    method: str
    reason: str
    generation: int | None = optional()
    stream_closed: bool = optional(False)


# ------------------------------------------------------------------ list_changed
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


# ------------------------------------------------------------------ calls
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


# ------------------------------------------------------------------ the host
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
