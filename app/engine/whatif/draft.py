"""The scenario a what-if is turning into, and one capped run of it.

A `Draft` starts as a copy of the base scenario's data with what only held for the base taken
out: expectations, misconceptions, checkpoints (their answer keys were derived from the base's
trace) and the hand-written narration of every action but a note (the engine's own phrases are
generated from what happens, so they stay true; a note is nothing but its text). Each change
then edits the data; `origins` remembers which base action each script entry came from, so
what is provably unchanged can get its narration back (sandbox, save).

`run` plays a draft under the engine's step cap for what-ifs and a wall-clock net, and turns
anything the engine refuses into a WhatIfError: a student's move never ends in a traceback.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

from ..interventions import InterventionError
from ..runner import Runner
from ..scenario import Scenario
from ..step import Step
from . import model
from .model import WhatIfError

NARRATION = ("say", "sayLast", "checkpoint")


@dataclass
class Draft:
    base: Scenario
    version: str
    transport: str
    data: dict[str, Any] = field(default_factory=dict)
    origins: list[int | None] = field(default_factory=list)  # base script index, or None
    # The trace of the data as it stands, once run; whoever edits `data` sets it to None.
    trace: list[Step] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, base: Scenario, version: str, transport: str) -> Draft:
        data = copy.deepcopy(base.data)
        for key in ("expect", "misconceptions", "order", "challenge"):
            data.pop(key, None)
        data["whatIf"] = {"base": base.id}
        for action in data["script"]:
            for key in NARRATION:
                if key != "say" or "note" not in action:
                    action.pop(key, None)
        return cls(base, version, transport, data, list(range(len(data["script"]))))

    @property
    def script(self) -> list[dict[str, Any]]:
        script: list[dict[str, Any]] = self.data["script"]
        return script

    def insert(self, at: int, actions: list[dict[str, Any]]) -> None:
        """New actions before script position `at`: they come from no base action."""
        self.script[at:at] = actions
        self.origins[at:at] = [None] * len(actions)
        self.trace = None

    def replace(self, at: int, action: dict[str, Any]) -> None:
        """A base action changed in place (split, say): it no longer is the base's action."""
        self.script[at] = action
        self.origins[at] = None
        self.trace = None

    def scenario(self) -> Scenario:
        data = copy.deepcopy(self.data)
        data["versions"] = [self.version]
        data["transports"] = [self.transport]
        data["defaultVersion"] = self.version
        return Scenario(self.base.id, self.base.path, data)

    def run(self) -> list[Step]:
        if self.trace is None:
            self.trace = run(self.scenario(), self.version, self.transport)
        return self.trace


def run(
    scenario: Scenario, version: str, transport: str, seconds: float | None = None
) -> list[Step]:
    """The trace, stopped at model.MAX_STEPS by the engine's terminal step, or refused after
    `seconds` of wall clock (model.MAX_SECONDS unless told)."""
    seconds = model.MAX_SECONDS if seconds is None else seconds
    started = time.monotonic()
    runner = Runner(scenario, version, transport, max_steps=model.MAX_STEPS)
    try:
        for _ in runner.run():
            if time.monotonic() - started > seconds:
                raise WhatIfError("too-slow", seconds=max(1, int(seconds)))
    except WhatIfError:
        raise
    except InterventionError as exc:
        raise WhatIfError("impossible", str(exc)) from None
    except Exception as exc:  # the engine refused (a lifecycle rule, say): one sentence
        raise WhatIfError("engine", f"{type(exc).__name__}: {exc}"[:300]) from None
    return runner.trace
