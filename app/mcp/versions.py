"""The protocol versions the lab speaks and what each one has.

One table of plain data answers every "does version V have X?" question, so the server, the
client and the framing code never compare dates ad hoc. Two eras: legacy (2024-11-05 ...
2025-11-25, with the initialize handshake) and modern (2026-07-28, stateless, no initialize).
"""

from __future__ import annotations

from enum import StrEnum

VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
LEGACY_VERSIONS: tuple[str, ...] = VERSIONS[:4]
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
LATEST = "2026-07-28"
LATEST_LEGACY = "2025-11-25"

# Keys of the per-request _meta that replaces the handshake in the modern era.
META = "io.modelcontextprotocol/"
META_VERSION = META + "protocolVersion"
META_CLIENT_INFO = META + "clientInfo"
META_CLIENT_CAPABILITIES = META + "clientCapabilities"
META_SERVER_INFO = META + "serverInfo"
META_SUBSCRIPTION_ID = META + "subscriptionId"


class Era(StrEnum):
    LEGACY = "legacy"
    MODERN = "modern"


def era_of(version: str) -> Era:
    """The era of a known version; unknown versions are refused rather than guessed."""
    if version in MODERN_VERSIONS:
        return Era.MODERN
    if version in LEGACY_VERSIONS:
        return Era.LEGACY
    raise ValueError(f"unknown protocol version {version!r}")


def at_least(version: str, other: str) -> bool:
    """Dated versions sort as strings; both must be known versions."""
    return VERSIONS.index(version) >= VERSIONS.index(other)


# Each version's Tool keys, built as the changelog tells it: what a version added or removed.
_TOOL_2024 = frozenset({"name", "description", "inputSchema"})
_TOOL_2025_03 = _TOOL_2024 | {"annotations"}
_TOOL_2025_06 = _TOOL_2025_03 | {"title", "outputSchema", "_meta"}
_TOOL_2025_11 = _TOOL_2025_06 | {"icons", "execution"}
_TOOL_FIELDS: dict[str, frozenset[str]] = {
    "2024-11-05": _TOOL_2024,
    "2025-03-26": _TOOL_2025_03,
    "2025-06-18": _TOOL_2025_06,
    "2025-11-25": _TOOL_2025_11,
    # 2026-07-28 moved execution (tasks) out of the core into an extension.
    "2026-07-28": _TOOL_2025_11 - {"execution"},
}

_IMPLEMENTATION_FIELDS: dict[str, frozenset[str]] = {
    "2024-11-05": frozenset({"name", "version"}),
    "2025-03-26": frozenset({"name", "version"}),
    "2025-06-18": frozenset({"name", "version", "title"}),
    "2025-11-25": frozenset({"name", "version", "title", "description", "icons", "websiteUrl"}),
    "2026-07-28": frozenset({"name", "version", "title", "description", "icons", "websiteUrl"}),
}


def tool_fields(version: str) -> frozenset[str]:
    """Keys a Tool object may carry in this version."""
    return _TOOL_FIELDS[version]


def implementation_fields(version: str) -> frozenset[str]:
    """Keys a clientInfo / serverInfo object may carry in this version (a newer, unknown
    version, such as a draft a client was built against, is treated like the latest)."""
    return _IMPLEMENTATION_FIELDS.get(version, _IMPLEMENTATION_FIELDS[LATEST])


def has_structured_content(version: str) -> bool:
    return at_least(version, "2025-06-18")


def argument_errors_are_tool_errors(version: str) -> bool:
    """Invalid tool arguments: a tool error (isError) from 2025-11-25 (SEP-1303), before that a
    protocol error (-32602)."""
    return at_least(version, "2025-11-25")


def http_flavour(version: str) -> str:
    """2024-11-05 used HTTP+SSE (GET stream, POST endpoint); later versions Streamable HTTP."""
    return "http+sse" if version == "2024-11-05" else "streamable-http"


def session_header(version: str) -> str | None:
    """The HTTP session header's spelling, or None where the version has no sessions."""
    if version in ("2025-03-26", "2025-06-18"):
        return "Mcp-Session-Id"
    if version == "2025-11-25":
        return "MCP-Session-Id"
    return None


def sends_version_header(version: str) -> bool:
    """MCP-Protocol-Version on HTTP requests (after initialize) from 2025-06-18 on."""
    return at_least(version, "2025-06-18")


def sse_event_ids(version: str) -> bool:
    """SSE resumability (event ids, Last-Event-ID) existed from 2025-03-26 to 2025-11-25."""
    return version in ("2025-03-26", "2025-06-18", "2025-11-25")
