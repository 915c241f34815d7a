"""Every shipped scenario under every version and transport matches its golden trace, and the
same file and options always give a byte-identical trace."""

from __future__ import annotations

import json

import pytest

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from tests.golden import canonical, cases, golden_path, render
from tests.test_engine_step import problems as step_problems

LIBRARY = load_library(default_scenarios_dir())


@pytest.mark.parametrize(("scenario_id", "version", "transport"), cases())
def test_trace_matches_its_golden_file(scenario_id, version, transport):
    path = golden_path(scenario_id, version, transport)
    assert path.exists(), f"no golden trace {path.name}: run `make golden` and review it"
    trace = run_trace(LIBRARY.scenarios[scenario_id], version, transport)
    assert step_problems(trace) == []  # every trace keeps the typed step contract
    expected = path.read_text("utf-8").splitlines()
    actual = render(trace).splitlines()
    for want, got in zip(expected, actual, strict=False):
        assert json.loads(got) == json.loads(want)
    assert len(actual) == len(expected)


def test_no_golden_file_is_left_over_from_a_removed_case():
    wanted = {golden_path(*case).name for case in cases()}
    present = {p.name for p in golden_path("x", "y", "z").parent.glob("*.jsonl")}
    assert present <= wanted


@pytest.mark.parametrize("scenario_id", list(LIBRARY.scenarios))
def test_the_same_scenario_gives_a_byte_identical_trace(scenario_id):
    scenario = LIBRARY.scenarios[scenario_id]
    for transport in scenario.transports:
        first = [canonical(s) for s in run_trace(scenario, scenario.default_version, transport)]
        second = [canonical(s) for s in run_trace(scenario, scenario.default_version, transport)]
        assert first == second
