"""The scenario library: every scenario file in a folder, with the broken ones reported
beside the good ones so that one bad file never hides the rest.

`validate` is the one judgement of a file, shared by `mcp-lab validate` and the web library:
the schema and YAML checks of `load_scenario`, then the meaning checks of `check_scenario`
(every version and transport run, expectations met). A file the CLI rejects is never served.
Its verdict is remembered per (path, content hash), so the many apps a test run builds pay
for each file once per process, and an edited file is judged again; and it is kept on disk by
`verdicts` (keyed by the file and the validating code), so a server that starts again, or the
next `mcp-lab` command, only reloads the files it has judged before.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from . import verdicts
from .challenge import check_challenge
from .checks import check_scenario
from .scenario import (
    Scenario,
    ScenarioError,
    ScenarioInvalid,
    default_scenarios_dir,
    load_scenario,
)

__all__ = [
    "Library",
    "Scenario",
    "ScenarioError",
    "default_scenarios_dir",
    "load_library",
    "validate",
]

Verdict = tuple[Scenario | None, list[ScenarioError]]
_verdicts: dict[tuple[str, str], Verdict] = {}


@dataclass
class Library:
    scenarios: dict[str, Scenario]
    errors: list[ScenarioError]
    broken: dict[str, list[ScenarioError]] = field(default_factory=dict)


def validate(path: str | Path) -> Verdict:
    """(the scenario, []) when the file is valid, else (None, every error it has)."""
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError:
        return _judge(path)  # load_scenario says why it cannot read the file
    memo = (str(path.resolve()), hashlib.sha256(content).hexdigest())
    verdict = _verdicts.get(memo)
    if verdict is None:
        entry = verdicts.key(path.name, content)
        verdict = _recalled(path, verdicts.load(entry))
        if verdict is None:
            verdict = _judge(path)
            verdicts.store(entry, verdict[1])
        _verdicts[memo] = verdict
    return verdict


def _judge(path: Path) -> Verdict:
    """The full judgement: load (YAML, schema) and run every version and transport."""
    try:
        scenario: Scenario | None = load_scenario(path)
        errors = check_scenario(scenario) if scenario is not None else []
        if scenario is not None and not errors:
            errors = check_challenge(scenario)  # its goal, start and reference solution
    except ScenarioInvalid as exc:
        scenario, errors = None, exc.errors
    return (None if errors else scenario, errors)


def _recalled(path: Path, errors: list[ScenarioError] | None) -> Verdict | None:
    """The verdict from its kept errors: a broken file needs no loading, a valid one only
    its (cheap) load; None when nothing was kept."""
    if errors is None:
        return None
    if errors:
        return (None, errors)
    try:
        return (load_scenario(path), [])
    except ScenarioInvalid:
        return None  # cannot happen for the same bytes and code; judge it again to be sure


def load_library(directory: str | Path) -> Library:
    """Every *.yaml in the folder that `validate` accepts; the others with all their errors."""
    found: list[Scenario] = []
    errors: list[ScenarioError] = []
    broken: dict[str, list[ScenarioError]] = {}
    for path in sorted(Path(directory).glob("*.yaml")):
        scenario, problems = validate(path)
        if scenario is not None:
            found.append(scenario)
        else:
            errors += problems
            broken[path.name] = problems
    found.sort(key=lambda s: (s.order, s.id))
    return Library({s.id: s for s in found}, errors, broken)
