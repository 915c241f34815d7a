"""What a what-if is: a base scenario seen under one version and transport, and the changes a
student made to it, in order. Plain data, so it can travel in a link, be saved, undone and
replayed: the same what-if always gives the same trace.

A change is a small JSON object named by its `change` key. World changes (no `after`) edit the
world the scenario starts from; interventions (with `after`, the index of the step on show, as
a trace counts from 0) become actions in the script right after that step. Every refusal is a
`WhatIfError` whose sentence comes from the engine's phrase catalog in en, zh and ru.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import narration
from ..step import Text

FORMAT = 1  # bump when a change's meaning changes; old links then say which format they are

# Bounds on what a student (or a forged link) may ask for: each is far past any lesson's needs.
MAX_CHANGES = 32
MAX_ENCODED = 6000  # characters of a whatif= value
MAX_JSON = 24_000  # bytes of its JSON once inflated
MAX_STEPS = 1000  # a run stops there with the engine's own terminal step
MAX_SECONDS = 10.0  # wall clock for one run; the step cap makes this a net, not a rule
MAX_PAGE_SIZE = 500
MAX_TTL_MS = 86_400_000  # a day
MAX_POLL_SECONDS = 3600
MAX_WAIT_SECONDS = 86_400

WORLD_CHANGES = (
    "pageSize",
    "ttl",
    "pageTtl",
    "listChanged",
    "addTool",
    "removeTool",
    "renameTool",
    "toolSchema",
    "twinServer",
    "protocolVersion",
    "transport",
    "cache",
    "refreshOnListChanged",
    "poll",
    "rediscover",
)
INTERVENTIONS = (
    "addToolNow",
    "removeToolNow",
    "toolSchemaNow",
    "loseNext",
    "restartServer",
    "wait",
    "callTool",
)
KINDS = WORLD_CHANGES + INTERVENTIONS

Change = Mapping[str, Any]


class WhatIfError(Exception):
    """A what-if the lab refuses, with the sentence a student reads (`text`, en/zh/ru).

    `key` names the phrase (`whatif.error.<key>` in phrases.yaml), `params` fill it, and
    `detail` is an optional English note for the command line and logs (never shown alone)."""

    def __init__(self, key: str, detail: str = "", **params: Any):
        self.key = key
        self.params = params
        self.detail = detail
        super().__init__(self.text["en"] + (f" ({detail})" if detail else ""))

    @property
    def text(self) -> Text:
        return narration.text(f"whatif.error.{self.key}", dict(self.params))


@dataclass(frozen=True)
class WhatIf:
    """The base scenario's id, the version and transport it was seen under, and the changes."""

    scenario: str
    version: str
    transport: str
    changes: tuple[Change, ...] = field(default=())

    def as_data(self) -> dict[str, Any]:
        """The JSON object a link and a what-if file carry."""
        return {
            "format": FORMAT,
            "scenario": self.scenario,
            "version": self.version,
            "transport": self.transport,
            "changes": [dict(c) for c in self.changes],
        }

    def with_change(self, change: Change) -> WhatIf:
        if len(self.changes) >= MAX_CHANGES:
            raise WhatIfError("too-many", most=MAX_CHANGES)
        return WhatIf(self.scenario, self.version, self.transport, (*self.changes, change))

    def undo(self) -> WhatIf:
        """Without the last change (the same what-if when there is none)."""
        return WhatIf(self.scenario, self.version, self.transport, self.changes[:-1])

    @property
    def moves(self) -> int:
        """How many changes it holds: a challenge counts these as moves."""
        return len(self.changes)


def is_intervention(change: Change) -> bool:
    return change.get("change") in INTERVENTIONS
