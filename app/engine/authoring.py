"""The authoring backend: a scenario typed in a browser, judged as `mcp-lab validate` judges a
file, and previewed as a trace.

`preview(text)` gives the errors in the CLI's own words (`file:line: field: message`), or the
scenario and the trace of one of its runs. Nothing in the text is trusted: its size is bounded
before it is parsed, YAML aliases may not expand it past a bound (a few lines of anchors can
stand for millions of values), nesting is bounded, and every run is capped in steps and time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from app.bounded_json import depth_of

from .challenge import check_challenge
from .checks import check_scenario
from .scenario import (
    _FAST_LOADER,
    Scenario,
    ScenarioError,
    ScenarioInvalid,
    _yaml_error,
    parse_scenario,
)
from .step import Step
from .whatif.draft import run as capped_run
from .whatif.model import WhatIfError

MAX_CHARS = 64_000  # a shipped lesson is 20-40 kB
MAX_NODES = 50_000  # values once aliases are expanded (the largest lesson has a few thousand)
MAX_DEPTH = 40


@dataclass(frozen=True)
class Preview:
    errors: list[ScenarioError] = field(default_factory=list)
    scenario: Scenario | None = None
    trace: list[Step] | None = None
    version: str | None = None
    transport: str | None = None

    @property
    def lines(self) -> list[str]:
        """The errors as `mcp-lab validate` prints them."""
        return [str(e) for e in self.errors]


def preview(
    text: str,
    file: str = "scenario.yaml",
    version: str | None = None,
    transport: str | None = None,
) -> Preview:
    """The errors of `text`, or its scenario and the trace of (version, transport): by default
    the scenario's default version and first transport."""
    node, problem = _compose(text, file)
    if problem is not None:
        return Preview([problem])
    try:
        scenario = parse_scenario(text, file, None, file)
    except ScenarioInvalid as exc:
        return Preview(list(exc.errors))
    errors = check_scenario(scenario, node, _run) or check_challenge(scenario, node)
    if errors:
        return Preview(errors, scenario)
    version = version if version in scenario.versions else scenario.default_version
    transport = transport if transport in scenario.transports else scenario.transports[0]
    return Preview([], scenario, _run(scenario, version, transport), version, transport)


def _run(scenario: Scenario, version: str, transport: str) -> list[Step]:
    try:
        return capped_run(scenario, version, transport)
    except WhatIfError as exc:  # check_scenario reports what a run raises, with its line
        raise RuntimeError(exc.text["en"]) from None


def _compose(text: str, file: str) -> tuple[yaml.Node | None, ScenarioError | None]:
    def refuse(message: str) -> tuple[None, ScenarioError]:
        return None, ScenarioError(file, 1, "(file)", message)

    if not isinstance(text, str):
        return refuse("a scenario is text")
    if len(text) > MAX_CHARS:
        return refuse(f"{len(text)} characters; a scenario may have at most {MAX_CHARS}")
    if depth_of(text, MAX_DEPTH) > MAX_DEPTH or _indent_depth(text) > MAX_DEPTH:
        return refuse(f"nested deeper than {MAX_DEPTH} levels")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        return None, _yaml_error(file, _loader_error(text) or exc)
    except RecursionError:
        return refuse(f"nested deeper than {MAX_DEPTH} levels")
    if _expanded(node) > MAX_NODES:
        return refuse(f"more than {MAX_NODES} values once its aliases are expanded")
    return node, None


def _loader_error(text: str) -> yaml.YAMLError | None:
    """The YAML error in the words `mcp-lab validate` uses: it reads with the fast loader."""
    try:
        yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError as exc:
        return exc
    return None


def _indent_depth(text: str) -> int:
    """Block-style nesting, roughly: the deepest indentation in steps of two spaces."""
    widest = max((len(line) - len(line.lstrip(" ")) for line in text.splitlines()), default=0)
    return widest // 2


def _expanded(node: yaml.Node | None) -> int:
    """How many nodes the tree has with every alias expanded; stops counting past the bound."""
    count, stack = 0, [node] if node is not None else []
    while stack and count <= MAX_NODES:
        current = stack.pop()
        count += 1
        if isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
        elif isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                stack.extend((key, value))
    return count
