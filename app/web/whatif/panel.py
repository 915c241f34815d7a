"""What the "What if?" panel shows, as plain data for templates/whatif/_panel.html.

The panel is drawn with the page (a change reloads the page at the same step, so the panel
never has to follow the socket): the world as the what-if stands (each server's page size,
TTLs, listChanged and tools; the protocol version and transport; the client's policy), the
interventions at the step on show, the changes made so far (each described by the engine in
the student's language, the last one undoable), the side-by-side count, and for a challenge
its goal, the moves it allows and how many are left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine import challenge as engine_challenge
from app.engine.scenario import Scenario
from app.engine.whatif import INTERVENTIONS, WORLD_CHANGES, WhatIf, describe
from app.mcp.versions import VERSIONS, Era, era_of
from app.web.i18n import pick
from app.web.whatif.state import Explored

DEFAULT_PAGE_SIZE = 50  # docs/SCENARIOS.md: a server's pageSize default
DEFAULT_TTL_MS = 300_000
COUNTS = ("messages", "roundTrips", "bytes", "lists")
# the world changes that edit one server come first in the engine's list, up to twinServer
SERVER_KINDS = WORLD_CHANGES[: WORLD_CHANGES.index("twinServer")]


@dataclass(frozen=True)
class Server:
    id: str
    page_size: int
    ttl_ms: int
    page_ttl: str  # the per-page TTLs as the form shows them, "" when none
    list_changed: bool
    tools: list[str]


@dataclass
class Panel:
    """Everything the panel's template reads."""

    sid: str  # the base scenario's id (forms go to /scenario/<sid>/whatif)
    value: str  # the whatif= value on show, "" for the scenario as written
    version: str
    transport: str
    step: int  # the 0-based index of the step on show when the page was drawn
    servers: list[Server]
    policy: dict[str, Any]
    modern: bool  # ttlMs exists (2026-07-28)
    kinds: tuple[str, ...]  # the change kinds offered (a challenge's moves, else all)
    changes: list[str] = field(default_factory=list)  # described in the page's language
    counts: list[tuple[str, Any, Any]] = field(default_factory=list)  # (name, base, what-if)
    model_tools: tuple[list[str], list[str]] = ([], [])
    first_difference: int | None = None
    differs: bool = False
    questions_hidden: int = 0
    call_names: list[str] = field(default_factory=list)  # model-facing tool names
    error: str = ""
    challenge: dict[str, Any] | None = None
    versions: tuple[str, ...] = VERSIONS
    transports: tuple[str, ...] = ("stdio", "http")

    @property
    def world_kinds(self) -> list[str]:
        return [k for k in WORLD_CHANGES if k in self.kinds]

    @property
    def server_kinds(self) -> list[str]:
        """The allowed kinds that edit one server (ttlMs only where results carry it)."""
        kinds = [k for k in SERVER_KINDS if k in self.kinds]
        return [k for k in kinds if self.modern or k not in ("ttl", "pageTtl")]

    @property
    def intervention_kinds(self) -> list[str]:
        return [k for k in INTERVENTIONS if k in self.kinds]

    @property
    def open(self) -> bool:
        """Open on arrival: a what-if, a refused move, or a challenge."""
        return bool(self.value or self.error or self.challenge)

    @property
    def tool_names(self) -> list[str]:
        return sorted({t for s in self.servers for t in s.tools})


def _servers(data: dict[str, Any]) -> list[Server]:
    out = []
    for spec in data.get("servers", []):
        tools = [str(t.get("name")) for t in spec.get("tools", []) if isinstance(t, dict)]
        later = [
            str(t.get("name"))
            for a in data.get("script", [])
            if a.get("server_change") == spec["id"]
            for t in a.get("add", [])
            if isinstance(t, dict)
        ]
        out.append(
            Server(
                id=str(spec["id"]),
                page_size=int(spec.get("pageSize", DEFAULT_PAGE_SIZE)),
                ttl_ms=int(spec.get("ttlMs", DEFAULT_TTL_MS)),
                page_ttl=", ".join(str(ms) for ms in spec.get("pageTtlMs", [])),
                list_changed=bool(spec.get("listChanged", False)),
                tools=tools + [t for t in later if t not in tools],
            )
        )
    return out


def _policy(data: dict[str, Any]) -> dict[str, Any]:
    client = data.get("client", {})
    return {
        "cache": bool(client.get("cache", True)),
        "refreshOnListChanged": bool(client.get("refreshOnListChanged", True)),
        "rediscover": bool(client.get("rediscoverOnFailedCall", True)),
        "poll": int(client.get("pollSeconds", 0) or 0),
    }


def _call_names(trace: list[Any]) -> list[str]:
    names: list[str] = []
    for step in trace:
        for tool in step["state"]["model"].get("tools", []) or []:
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names[:200]


def challenge_view(scenario: Scenario, attempt: Any, lang: str) -> dict[str, Any] | None:
    """The goal, hint, allowed moves and the attempt's progress, or None for a lesson."""
    found = engine_challenge.challenge_of(scenario)
    if found is None:
        return None
    if attempt is None:  # no move yet: the start, which never reaches the goal
        attempt = engine_challenge.attempt(scenario, engine_challenge.start(scenario))
    return {
        "id": scenario.id,
        "goal": pick(found.goal, lang),
        "hint": pick(found.hint, lang) if found.hint else "",
        "moves": list(found.moves),
        "max": found.max_moves,
        "used": attempt.moves,
        "left": attempt.moves_left,
        "reached": attempt.reached,
        "at": attempt.at,
        "par": attempt.par,
    }


def panel(
    base: Scenario,
    shown: Explored | None,
    version: str,
    transport: str,
    step: int,
    trace: list[Any],
    lang: str,
    error: str = "",
) -> Panel:
    """The panel for the base scenario (shown None) or a what-if of it."""
    data = shown.run.draft.data if shown is not None else base.data
    found = engine_challenge.challenge_of(base)
    if shown is not None:
        version, transport = shown.run.version, shown.run.transport
    elif found is not None:
        start = engine_challenge.start(base)
        version, transport = start.version, start.transport
    p = Panel(
        sid=base.id,
        value=shown.value if shown is not None else "",
        version=version,
        transport=transport,
        step=step,
        servers=_servers(data),
        policy=_policy(data),
        modern=era_of(version) is Era.MODERN,
        kinds=tuple(found.moves) if found is not None else WORLD_CHANGES + INTERVENTIONS,
        call_names=_call_names(trace),
        error=error,
        challenge=challenge_view(base, shown.attempt if shown else None, lang),
    )
    if shown is not None:
        comparison = shown.run.comparison
        p.changes = [pick(describe(c), lang) for c in shown.whatif.changes]
        p.counts = [
            (name, getattr(comparison.base, name), getattr(comparison.whatif, name))
            for name in COUNTS
        ]
        p.model_tools = (list(comparison.base.modelTools), list(comparison.whatif.modelTools))
        p.first_difference = comparison.firstDifference
        p.differs = shown.differs
        p.questions_hidden = shown.run.base_questions if shown.differs else 0
    return p


def start_of(base: Scenario, version: str, transport: str) -> WhatIf:
    """The what-if a first change starts from: a challenge's own start, else the scenario as
    seen under the page's version and transport."""
    if engine_challenge.challenge_of(base) is not None:
        return engine_challenge.start(base)
    return WhatIf(base.id, version, transport)
