"""Running a what-if: from the base scenario and the changes to a checked trace, compared with
the base's trace.

`build` replays the changes in order on a draft of the base (world changes edit the data, each
intervention is placed against the trace of the draft so far), and the result is judged like
any scenario file: the scenario schema and its rules, then the trace's own checks (every
message valid against the official schema of its version, list_changed only from a server
that declared it, every step narrated). What it cannot pass is refused with a sentence.

Up to the first step that differs the what-if's trace is the base's, so those steps keep the
base's narration; after it the engine's own phrases speak, and a note of the lesson says it
was written for the scenario as it was. A trace that differs carries no questions: their
answer keys were derived from the base's trace (`questions_hidden`). A what-if that changes
nothing is the base's trace itself, questions and all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..checks import check_trace
from ..runner import run_trace
from ..scenario import Scenario, validate
from ..step import Step, Text
from . import placement, shape, worldchanges
from .codec import encode
from .compare import Comparison, compare
from .draft import Draft
from .model import Change, WhatIf, WhatIfError, is_intervention


@dataclass(frozen=True)
class WhatIfRun:
    whatif: WhatIf
    base: Scenario
    scenario: Scenario  # the what-if as a scenario: versions and transports its run's only
    draft: Draft
    trace: list[Step]
    base_trace: list[Step]
    comparison: Comparison

    @property
    def version(self) -> str:
        return self.draft.version

    @property
    def transport(self) -> str:
        return self.draft.transport

    @property
    def questions_hidden(self) -> bool:
        """True when the trace differs from the base's: its questions are not asked."""
        return self.comparison.firstDifference is not None

    @property
    def base_questions(self) -> int:
        return sum(1 for s in self.base_trace if s["checkpoint"])

    def summary(self) -> dict[str, Any]:
        """What the page shows beside the trace (JSON-ready)."""
        return {
            "scenario": self.base.id,
            "version": self.version,
            "transport": self.transport,
            "moves": self.whatif.moves,
            "comparison": self.comparison.as_dict(),
            "questionsHidden": self.questions_hidden,
            "baseQuestions": self.base_questions,
        }


def base_of(whatif: WhatIf, scenarios: Mapping[str, Scenario]) -> Scenario:
    base = scenarios.get(whatif.scenario)
    if base is None:
        raise WhatIfError("no-scenario", scenario=whatif.scenario)
    if whatif.version not in base.versions:
        raise WhatIfError("version-not-offered", scenario=base.id, version=whatif.version)
    if whatif.transport not in base.transports:
        raise WhatIfError("transport-not-offered", scenario=base.id, transport=whatif.transport)
    return base


def build(whatif: WhatIf, base: Scenario) -> Draft:
    draft = Draft.of(base, whatif.version, whatif.transport)
    for n, change in enumerate(whatif.changes, 1):
        apply_change(draft, change, n)
    return draft


def apply_change(draft: Draft, change: Change, n: int) -> None:
    shape.check_change(change, n)  # a WhatIf made in Python is as untrusted as a link
    if is_intervention(change):
        placement.place(draft, draft.run(), change, n)
    else:
        worldchanges.APPLY[change["change"]](draft, change, n)
        draft.trace = None


def run_whatif(
    whatif: WhatIf,
    scenarios: Mapping[str, Scenario],
    base_trace: list[Step] | None = None,
) -> WhatIfRun:
    """The what-if's trace, checked, beside the base's (pass base_trace when it is cached)."""
    encode(whatif)  # one made in Python gets the bounds a link has
    base = base_of(whatif, scenarios)
    draft = build(whatif, base)
    scenario = draft.scenario()
    errors = validate(scenario.data, None, f"{base.id}.yaml")
    if errors:
        raise WhatIfError("invalid", str(errors[0]))
    trace = draft.run()
    problems = check_trace(scenario, trace)
    if problems:
        raise WhatIfError("protocol", problems[0][1][:300])
    if base_trace is None:
        base_trace = run_trace(base, whatif.version, whatif.transport)
    comparison = compare(base_trace, trace)
    if comparison.firstDifference is None:
        trace = base_trace
    else:
        trace = _narrated(draft, trace, base_trace, comparison.firstDifference)
    return WhatIfRun(whatif, base, scenario, draft, trace, base_trace, comparison)


def try_change(
    whatif: WhatIf, change: Change, scenarios: Mapping[str, Scenario]
) -> tuple[WhatIf, WhatIfRun]:
    """The what-if with one more change, and its run; WhatIfError when the move is refused."""
    longer = whatif.with_change(change)
    return longer, run_whatif(longer, scenarios)


def _narrated(draft: Draft, trace: list[Step], base_trace: list[Step], first: int) -> list[Step]:
    from .. import narration

    out: list[Step] = []
    marker = narration.text("whatif.note-written-for-base")
    for step in trace:
        step = dict(step)  # type: ignore[assignment]
        index = step["index"]
        if index < first:
            step["narration"] = base_trace[index]["narration"]
        elif step["action"] >= 0 and "note" in draft.script[step["action"]]:
            step["narration"] = _prefixed(marker, step["narration"])
        out.append(step)
    return out


def _prefixed(marker: Text, text: Text) -> Text:
    return {
        "en": f"{marker['en']} {text['en']}",
        "zh": f"{marker['zh']}{text['zh']}",
        "ru": f"{marker['ru']} {text['ru']}",
    }
