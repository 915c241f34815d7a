"""The scenario library: every scenario file in a folder, with the broken ones reported
beside the good ones so that one bad file never hides the rest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .scenario import (
    Scenario,
    ScenarioError,
    ScenarioInvalid,
    default_scenarios_dir,
    load_scenario,
)

__all__ = ["Library", "Scenario", "ScenarioError", "default_scenarios_dir", "load_library"]


@dataclass
class Library:
    scenarios: dict[str, Scenario]
    errors: list[ScenarioError]
    broken: dict[str, list[ScenarioError]]


def load_library(directory: str | Path) -> Library:
    """Every *.yaml in the folder; broken files are reported, the rest still load."""
    found: list[Scenario] = []
    errors: list[ScenarioError] = []
    broken: dict[str, list[ScenarioError]] = {}
    for path in sorted(Path(directory).glob("*.yaml")):
        try:
            found.append(load_scenario(path))
        except ScenarioInvalid as exc:
            errors += exc.errors
            broken[path.name] = exc.errors
    found.sort(key=lambda s: (s.order, s.id))
    return Library({s.id: s for s in found}, errors, broken)
