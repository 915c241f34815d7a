"""What the client (and the host) did or noticed: one frozen dataclass per event.

Narration, the console and the tests match events by type (`isinstance`, `match`), never by a
string; each has a stable `kind`, the name a trace shows, and `as_dict()` (app.mcp.events.base).
The events are grouped by the part of the client that reports them, one module each
(negotiation, requests, gathering, listchanged, calls, host), and all of them are importable
from here, as `app.mcp.events.Published` or `ev.Published`.
"""

from __future__ import annotations

from .base import Event, Output, optional
from .calls import (
    CallAbandoned,
    CallApproval,
    CallArgumentsInvalid,
    CallOk,
    CallRejected,
    CallRetry,
    CallSent,
    CallToolError,
    StructuredChecked,
)
from .gathering import (
    CacheExpired,
    CacheHit,
    GatherAbandoned,
    GatherDiscarded,
    GatherFailed,
    GatherStarted,
    ListError,
    PageCap,
    PageReceived,
    PageReused,
    Published,
    RefreshQueued,
    RepeatedCursor,
    RequestCancelled,
    StaleResponse,
    ToolDropped,
)
from .host import CallPrepared, CallRefused
from .listchanged import (
    ListChanged,
    ListChangedIgnored,
    ListenAcknowledged,
    ListenClosed,
    ListenSent,
    OtherNotification,
)
from .negotiation import (
    CounterOffer,
    Discovered,
    FallbackLegacy,
    InitializeFailed,
    InitializeSent,
    ModernRefused,
    Negotiated,
    ProbeSent,
    VersionRefused,
    VersionRetry,
)
from .requests import ManualError, ManualResult, ManualSent, RequestFailed, UnexpectedResponse

__all__ = [
    "CacheExpired",
    "CacheHit",
    "CallAbandoned",
    "CallApproval",
    "CallArgumentsInvalid",
    "CallOk",
    "CallPrepared",
    "CallRefused",
    "CallRejected",
    "CallRetry",
    "CallSent",
    "CallToolError",
    "CounterOffer",
    "Discovered",
    "Event",
    "FallbackLegacy",
    "GatherAbandoned",
    "GatherDiscarded",
    "GatherFailed",
    "GatherStarted",
    "InitializeFailed",
    "InitializeSent",
    "ListChanged",
    "ListChangedIgnored",
    "ListError",
    "ListenAcknowledged",
    "ListenClosed",
    "ListenSent",
    "ManualError",
    "ManualResult",
    "ManualSent",
    "ModernRefused",
    "Negotiated",
    "OtherNotification",
    "Output",
    "PageCap",
    "PageReceived",
    "PageReused",
    "ProbeSent",
    "Published",
    "RefreshQueued",
    "RepeatedCursor",
    "RequestCancelled",
    "RequestFailed",
    "StaleResponse",
    "StructuredChecked",
    "ToolDropped",
    "UnexpectedResponse",
    "VersionRefused",
    "VersionRetry",
    "optional",
]
