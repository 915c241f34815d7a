"""The step contract: docs/step.schema.json is generated from app.engine.step's types, and every
trace the tests produce validates against it: the web tests' stand-in here, the engine's for
every scenario, version and transport in test_engine_golden (which runs them all anyway)."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from app.engine import stepschema
from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from tests import fakelab

LIBRARY = load_library(default_scenarios_dir())
VALIDATOR = jsonschema.Draft202012Validator(json.loads(stepschema.SCHEMA_PATH.read_text("utf-8")))


def problems(trace: list) -> list[str]:
    return [
        f"step {step['index']}: {error.json_path}: {error.message}"
        for step in trace
        for error in VALIDATOR.iter_errors(step)
    ]


def test_the_schema_file_is_generated_from_the_step_types():
    assert stepschema.SCHEMA_PATH.read_text("utf-8") == stepschema.render(), (
        "docs/step.schema.json is out of date: run `python -m app.engine.stepschema`"
    )
    jsonschema.Draft202012Validator.check_schema(stepschema.generate())


@pytest.mark.parametrize("scenario_id", ["pagination", "hostile"])
def test_the_stand_in_engine_builds_steps_of_the_same_contract(scenario_id):
    scenario = fakelab.load_library(None).scenarios[scenario_id]
    for version in scenario.versions:
        for transport in scenario.transports:
            assert problems(fakelab.run_trace(scenario, version, transport)) == []


def test_a_step_with_a_key_missing_or_unknown_or_mistyped_is_refused():
    step = run_trace(LIBRARY.scenarios["pagination"], "2025-11-25", "stdio")[3]
    missing, extra, mistyped = copy.deepcopy(step), copy.deepcopy(step), copy.deepcopy(step)
    del missing["reply"]
    extra["state"]["clients"]["files"]["secret"] = 1
    mistyped["narration"]["zh"] = None
    assert "'reply' is a required property" in " ".join(problems([missing]))
    assert "secret" in " ".join(problems([extra]))
    assert "$.narration.zh" in " ".join(problems([mistyped]))
