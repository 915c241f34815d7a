"""Challenges: a scenario file whose `challenge` names a goal and the what-if moves a student
may use to reach it (Learn Git Branching's levels: a start, a goal, allowed commands, a
solution, and a count of the moves made).

The scenario's own world and script are the start. An attempt is a what-if on it whose
changes are the moves; the goal (app.engine.goals) is checked on the attempt's trace. A file
is only valid when its start does not already reach the goal and its reference `solution`
(a list of what-if changes) does, with allowed moves only: `mcp-lab validate` runs both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import goals
from .scenario import Scenario
from .scenario_errors import ScenarioError, line_of
from .step import Text
from .whatif.model import Change, WhatIf, WhatIfError
from .whatif.sandbox import WhatIfRun, run_whatif


@dataclass(frozen=True)
class Challenge:
    goal: Text  # what the page shows
    when: goals.Goal  # what the engine checks
    moves: tuple[str, ...]  # the change kinds a student may use
    max_moves: int | None
    solution: tuple[Change, ...]
    hint: Text | None = None

    @property
    def par(self) -> int:
        """The reference solution's number of moves (a student may do better)."""
        return len(self.solution)


def challenge_of(scenario: Scenario) -> Challenge | None:
    spec = scenario.data.get("challenge")
    if spec is None:
        return None
    return Challenge(
        goal=spec["goal"]["text"],
        when=spec["goal"]["when"],
        moves=tuple(spec["moves"]),
        max_moves=spec.get("maxMoves"),
        solution=tuple(spec["solution"]),
        hint=spec.get("hint"),
    )


def start(scenario: Scenario) -> WhatIf:
    """The attempt before any move: the challenge's own world, version and transport."""
    return WhatIf(scenario.id, scenario.default_version, scenario.transports[0])


@dataclass(frozen=True)
class Attempt:
    reached: bool
    at: int | None  # the step from which the goal holds (None: not reached)
    moves: int
    moves_left: int | None
    par: int
    run: WhatIfRun

    def summary(self) -> dict[str, Any]:
        return {
            "reached": self.reached,
            "at": self.at,
            "moves": self.moves,
            "movesLeft": self.moves_left,
            "par": self.par,
        }


def allowed(challenge: Challenge, whatif: WhatIf) -> None:
    """WhatIfError for a move the challenge does not allow, or one move too many."""
    if challenge.max_moves is not None and whatif.moves > challenge.max_moves:
        raise WhatIfError("too-many-moves", most=challenge.max_moves)
    for n, change in enumerate(whatif.changes, 1):
        if change.get("change") not in challenge.moves:
            kind = str(change.get("change"))[:40]
            raise WhatIfError("move-not-allowed", n=n, kind=kind, allowed=list(challenge.moves))


def attempt(scenario: Scenario, whatif: WhatIf) -> Attempt:
    """Play the student's moves on the challenge and check its goal."""
    challenge = challenge_of(scenario)
    if challenge is None or whatif.scenario != scenario.id:
        raise WhatIfError("no-scenario", scenario=whatif.scenario)
    allowed(challenge, whatif)
    run = run_whatif(whatif, {scenario.id: scenario})
    result = goals.evaluate(challenge.when, run.trace)
    left = None if challenge.max_moves is None else challenge.max_moves - whatif.moves
    return Attempt(result.reached, result.at, whatif.moves, left, challenge.par, run)


def check_challenge(scenario: Scenario, node: yaml.Node | None = None) -> list[ScenarioError]:
    """The checks `mcp-lab validate` adds for a challenge: a sound goal, a start that does not
    reach it, and a solution that does, using allowed moves only."""
    challenge = challenge_of(scenario)
    if challenge is None:
        return []
    found: list[tuple[list[Any], str]] = [
        (["challenge", "goal", "when", *path], message)
        for path, message in goals.problems(challenge.when)
    ]
    if not found:
        found += _replays(scenario, challenge)
    if not found:
        return []
    node = node if node is not None else _node(scenario)
    file = Path(scenario.path).name
    return [
        ScenarioError(file, line_of(node, path), ".".join(map(str, path)), message)
        for path, message in found
    ]


def _replays(scenario: Scenario, challenge: Challenge) -> list[tuple[list[Any], str]]:
    out: list[tuple[list[Any], str]] = []
    first = start(scenario)
    try:
        if attempt(scenario, first).reached:
            out.append((["challenge", "goal", "when"], "the start already reaches the goal"))
        solved = attempt(
            scenario, WhatIf(first.scenario, first.version, first.transport, challenge.solution)
        )
    except WhatIfError as exc:
        return [(["challenge", "solution"], f"the solution is refused: {exc}")]
    if not solved.reached:
        out.append((["challenge", "solution"], "the solution does not reach the goal"))
    return out


def _node(scenario: Scenario) -> yaml.Node | None:
    try:
        return yaml.compose(Path(scenario.path).read_text("utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
