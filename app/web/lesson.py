"""The lesson panel's data: a scenario's learning goals, and the myths it refutes in this trace.

A scenario file lists `goals` ({en, zh, ru} each) and `misconceptions` ({claim, truth,
refutedBy}), where `refutedBy` is a matcher over steps. Which step refutes a myth depends on the
trace (a version or transport can add or drop steps), so `lesson` runs each matcher over the
trace being viewed with the engine's own `first_match`; a myth with no matching step keeps its
text and simply gets no "See step N" link. The result depends on the scenario, version and
transport only, so it is rendered with the toolbar and cached per language like it.
"""

from __future__ import annotations

from typing import Any

from app.engine.matcher import first_match
from app.engine.step import Step


def refuting_step(trace: list[Step], matcher: Any) -> int | None:
    """Index of the first step the matcher fits, or None (bad matcher, no match)."""
    if not isinstance(matcher, dict) or not matcher:
        return None
    try:
        return first_match(trace, matcher)
    except (ValueError, TypeError):  # an unknown operator: the myth is still worth showing
        return None


def lesson(scenario: Any, trace: list[Step]) -> dict[str, Any]:
    """{"goals": [{en,zh,ru}], "myths": [{"claim", "truth", "step": int | None}]}."""
    myths = [
        {
            "claim": m.get("claim"),
            "truth": m.get("truth"),
            "step": refuting_step(trace, m.get("refutedBy")),
        }
        for m in getattr(scenario, "misconceptions", None) or []
        if isinstance(m, dict)
    ]
    return {"goals": list(getattr(scenario, "goals", None) or []), "myths": myths}
