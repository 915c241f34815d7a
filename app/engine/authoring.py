"""The authoring backend: a scenario typed in a browser, judged as `mcp-lab validate` judges a
file, and previewed as a trace.

`preview(text)` gives the errors in the CLI's own words (`file:line: field: message`), or the
scenario and the trace of one of its runs. Nothing in the text is trusted: its size is bounded
before it is parsed, YAML aliases may not expand it past a bound (a few lines of anchors can
stand for millions of values), nesting is bounded, every run is capped in steps and time, and
all the runs of one preview together (every version x transport the text declares: up to a few
dozen) share one wall-clock budget, so a text cannot buy dozens of capped runs with one request.
"""

from __future__ import annotations

import time
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
    parse_scenario,
)
from .scenario_errors import yaml_error
from .step import Step
from .whatif.draft import run as capped_run
from .whatif.model import MAX_SECONDS as MAX_RUN_SECONDS
from .whatif.model import WhatIfError

MAX_CHARS = 64_000  # a shipped lesson is 20-40 kB
MAX_NODES = 50_000  # values once aliases are expanded (the largest lesson has a few thousand)
MAX_DEPTH = 40
TOTAL_SECONDS = 20.0  # all runs of one preview; a shipped lesson's dozen runs take 1-3 s


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
    runs = _Runs(time.monotonic() + TOTAL_SECONDS)
    errors = check_scenario(scenario, node, runs.run) or check_challenge(scenario, node)
    if runs.out_of_time:
        return Preview([_too_slow(file)], scenario)
    if errors:
        return Preview(errors, scenario)
    version = version if version in scenario.versions else scenario.default_version
    transport = transport if transport in scenario.transports else scenario.transports[0]
    return Preview([], scenario, runs.run(scenario, version, transport), version, transport)


class _Runs:
    """The capped runs of one preview: each run at most once (the check has already played
    the one on show), and all of them within one deadline."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.out_of_time = False
        self._traces: dict[tuple[str, str], list[Step]] = {}

    def run(self, scenario: Scenario, version: str, transport: str) -> list[Step]:
        key = (version, transport)
        if key in self._traces:
            return self._traces[key]
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.out_of_time = True
            raise RuntimeError("out of time")
        try:
            trace = capped_run(scenario, version, transport, min(left, MAX_RUN_SECONDS))
        except WhatIfError as exc:  # check_scenario reports what a run raises, with its line
            if exc.key == "too-slow" and time.monotonic() >= self.deadline:
                self.out_of_time = True
            raise RuntimeError(exc.text["en"]) from None
        self._traces[key] = trace
        return trace


def _too_slow(file: str) -> ScenarioError:
    return ScenarioError(
        file,
        1,
        "(file)",
        f"its runs under every version and transport took longer than {TOTAL_SECONDS:g} s "
        "together, the limit of a preview: declare fewer versions or transports, or shorten "
        "the script",
    )


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
        return None, yaml_error(file, _loader_error(text) or exc)
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
