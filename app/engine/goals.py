"""The goal language of challenges: a small declarative condition over a trace, checked by the
engine, never code.

A goal is an object with exactly one operator:

    all: [goal, ...]        every one holds
    any: [goal, ...]        at least one holds
    not: goal               it does not hold
    some: matcher           some step matches       (window: from, until)
    none: matcher           no step matches         (window: from, until)
    count: matcher          the matching steps number atLeast and/or atMost (window too)
    last: matcher           the final step (the state the run ends in) matches
    inOrder: [matcher, ...] steps match each matcher, one after another

Matchers are the scenario files' own (app.engine.matcher); `from` and `until` are step
indexes as the trace counts them (from 0), both included. "The model is offered
search_invoices" is `some: {kind: model-request, state.model.tools: {$contains: {name:
orders__search_invoices}}}`; "at most 4 requests" is `count: {kind: request}, atMost: 4`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .matcher import first_match, matches

Goal = Mapping[str, Any]
OPERATORS = ("all", "any", "not", "some", "none", "count", "last", "inOrder")
_WINDOWED = ("some", "none", "count")
_MATCH_OPS = ("$present", "$in", "$contains", "$len", "$not")
_PREFIX_LIMIT = 400  # beyond this many steps "reached at" is the last step (cost, not meaning)


@dataclass(frozen=True)
class GoalResult:
    reached: bool
    at: int | None  # the step from which the goal holds to the end (None: not reached)


def problems(goal: Any, path: list[Any] | None = None) -> list[tuple[list[Any], str]]:
    """What the schema cannot say: one operator per goal, keys that fit it, known matcher ops."""
    path = path or []
    if not isinstance(goal, Mapping):
        return [(path, "a goal is a mapping")]
    ops = [k for k in goal if k in OPERATORS]
    if len(ops) != 1:
        return [(path, f"a goal needs exactly one of: {', '.join(OPERATORS)}")]
    op = ops[0]
    out: list[tuple[list[Any], str]] = []
    extra = set(goal) - {op} - (set(("from", "until")) if op in _WINDOWED else set())
    extra -= {"atLeast", "atMost"} if op == "count" else set()
    for key in sorted(extra):
        out.append(([*path, key], f"{key} does not go with {op}"))
    if op == "count" and "atLeast" not in goal and "atMost" not in goal:
        out.append((path, "count needs atLeast, atMost or both"))
    if op in ("all", "any"):
        for n, sub in enumerate(goal[op]):
            out += problems(sub, [*path, op, n])
    elif op == "not":
        out += problems(goal[op], [*path, op])
    elif op == "inOrder":
        for n, m in enumerate(goal[op]):
            out += [([*path, op, n], p) for p in _matcher_problems(m)]
    else:
        out += [([*path, op], p) for p in _matcher_problems(goal[op])]
    return out


def _matcher_problems(matcher: Any) -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping) and value and all(str(k).startswith("$") for k in value):
            for op, arg in value.items():
                if op not in _MATCH_OPS:
                    found.append(f"unknown matcher operator {op}")
                elif op == "$not":
                    walk(arg)
                elif op == "$contains" and isinstance(arg, Mapping):
                    for inner in arg.values():
                        walk(inner)

    if not isinstance(matcher, Mapping) or not matcher:
        return ["a matcher is a non-empty mapping"]
    for expected in matcher.values():
        walk(expected)
    return found


def holds(goal: Goal, trace: Sequence[Any]) -> bool:
    op = next(k for k in goal if k in OPERATORS)
    arg = goal[op]
    if op == "all":
        return all(holds(g, trace) for g in arg)
    if op == "any":
        return any(holds(g, trace) for g in arg)
    if op == "not":
        return not holds(arg, trace)
    if op == "last":
        return bool(trace) and matches(trace[-1], arg)
    if op == "inOrder":
        start = 0
        for matcher in arg:
            found = first_match(trace, matcher, start)
            if found is None:
                return False
            start = found + 1
        return True
    low, high = goal.get("from", 0), goal.get("until", len(trace) - 1)
    hits = sum(1 for s in trace[low : high + 1] if matches(s, arg))
    if op == "some":
        return hits > 0
    if op == "none":
        return hits == 0
    return bool(goal.get("atLeast", 0) <= hits <= goal.get("atMost", hits))


def evaluate(goal: Goal, trace: Sequence[Any]) -> GoalResult:
    """Whether the goal holds for the whole run, and from which step on it holds."""
    if not holds(goal, trace):
        return GoalResult(False, None)
    if len(trace) > _PREFIX_LIMIT:
        return GoalResult(True, len(trace) - 1)
    at = len(trace) - 1
    while at > 0 and holds(goal, trace[:at]):
        at -= 1
    return GoalResult(True, at)
