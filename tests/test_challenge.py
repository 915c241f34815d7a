"""Challenges: each shipped one is solvable (its reference solution reaches the goal), a wrong
attempt does not, its start does not, moves are counted and bounded, and the goal language
means what docs/WHATIF.md says. A challenge file that is trivial or unsolvable fails
`mcp-lab validate`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from app.cli import main
from app.engine import goals
from app.engine.challenge import attempt, challenge_of, check_challenge, start
from app.engine.library import default_scenarios_dir, load_library
from app.engine.scenario import Scenario, load_scenario
from app.engine.whatif import WhatIf, WhatIfError

LIBRARY = load_library(default_scenarios_dir()).scenarios
CHALLENGES = sorted(sid for sid, s in LIBRARY.items() if "challenge" in s.data)

# A wrong attempt per challenge: a plausible idea that must not reach the goal.
WRONG = {
    "challenge-silent-server": [{"change": "refreshOnListChanged", "value": True}],
    "challenge-stale-then-fresh": [{"change": "refreshOnListChanged", "value": False}],
    "challenge-two-searches": [
        {"change": "twinServer", "name": "search", "server": "tickets"},
        {"change": "callTool", "after": 14, "tool": "search", "arguments": {"query": "vpn"}},
    ],
    "challenge-fewest-round-trips": [{"change": "pageSize", "server": "assets", "value": 4}],
    "challenge-expired-page": [{"change": "ttl", "server": "catalog", "ms": 90000}],
    "challenge-stale-cursor": [
        {"change": "addToolNow", "after": 3, "server": "shelf", "tool": {"name": "suggest_book"}}
    ],
}


def play(sid: str, changes) -> object:
    scenario = LIBRARY[sid]
    first = start(scenario)
    return attempt(scenario, WhatIf(first.scenario, first.version, first.transport, tuple(changes)))


def test_at_least_six_challenges_ship_each_in_three_languages():
    assert len(CHALLENGES) >= 6 and set(WRONG) <= set(CHALLENGES)
    for sid in CHALLENGES:
        challenge = challenge_of(LIBRARY[sid])
        assert challenge is not None
        for text in (challenge.goal, LIBRARY[sid].title, LIBRARY[sid].summary):
            assert all(text[lang].strip() for lang in ("en", "zh", "ru")), sid


@pytest.mark.parametrize("sid", CHALLENGES)
def test_the_reference_solution_reaches_the_goal_and_the_start_does_not(sid):
    challenge = challenge_of(LIBRARY[sid])
    assert challenge is not None
    assert not play(sid, []).reached
    solved = play(sid, challenge.solution)
    assert solved.reached and solved.at is not None
    assert solved.moves == challenge.par == len(challenge.solution)
    assert solved.moves_left == (
        None if challenge.max_moves is None else challenge.max_moves - solved.moves
    )


@pytest.mark.parametrize("sid", sorted(WRONG))
def test_a_wrong_attempt_does_not_reach_the_goal(sid):
    tried = play(sid, WRONG[sid])
    assert not tried.reached and tried.at is None
    assert tried.summary()["moves"] == len(WRONG[sid])


def test_both_ways_to_fewer_round_trips_count_and_the_cost_shows_in_the_tally():
    cached = play("challenge-fewest-round-trips", [{"change": "cache", "value": True}])
    bigger = play(
        "challenge-fewest-round-trips", [{"change": "pageSize", "server": "assets", "value": 8}]
    )
    assert cached.reached and bigger.reached
    assert bigger.run.comparison.whatif.lists == 3 and cached.run.comparison.whatif.lists == 4
    assert cached.run.comparison.whatif.bytes < bigger.run.comparison.whatif.bytes


def test_a_move_the_challenge_does_not_allow_and_one_move_too_many_are_refused():
    with pytest.raises(WhatIfError) as refused:
        play(
            "challenge-silent-server", [{"change": "listChanged", "server": "desk", "value": True}]
        )
    assert refused.value.key == "move-not-allowed" and "listChanged" in refused.value.text["en"]
    with pytest.raises(WhatIfError) as refused:
        play("challenge-silent-server", [{"change": "cache", "value": False}] * 3)
    assert refused.value.key == "too-many-moves" and "2" in refused.value.text["zh"]


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ({"some": {"kind": "request"}}, True),
        ({"some": {"kind": "request"}, "from": 3}, False),
        ({"none": {"kind": "error"}}, True),
        ({"count": {"kind": "request"}, "atLeast": 2, "atMost": 2}, True),
        ({"count": {"kind": "request"}, "atMost": 1}, False),
        ({"last": {"kind": "terminal"}}, True),
        ({"inOrder": [{"kind": "response"}, {"kind": "request"}]}, True),
        ({"inOrder": [{"index": 3}, {"index": 1}]}, False),
        ({"all": [{"some": {"kind": "request"}}, {"not": {"some": {"kind": "error"}}}]}, True),
        ({"any": [{"some": {"kind": "error"}}, {"last": {"kind": "request"}}]}, False),
    ],
)
def test_the_goal_language(goal, expected):
    trace = [
        {"index": 0, "kind": "request"},
        {"index": 1, "kind": "response"},
        {"index": 2, "kind": "request"},
        {"index": 3, "kind": "terminal"},
    ]
    assert goals.problems(goal) == []
    assert goals.holds(goal, trace) is expected


def test_reached_at_is_the_step_from_which_the_goal_holds_to_the_end():
    trace = [
        {"kind": "request"},
        {"kind": "response"},
        {"kind": "model-request"},
        {"kind": "terminal"},
    ]
    assert goals.evaluate({"some": {"kind": "model-request"}}, trace) == goals.GoalResult(True, 2)
    assert goals.evaluate({"some": {"kind": "error"}}, trace) == goals.GoalResult(False, None)


@pytest.mark.parametrize(
    ("goal", "problem"),
    [
        ({"some": {"kind": "x"}, "none": {"kind": "y"}}, "exactly one"),
        ({"count": {"kind": "x"}}, "atLeast, atMost"),
        ({"last": {"kind": "x"}, "from": 2}, "from does not go with last"),
        ({"some": {"kind": {"$regex": "x"}}}, "unknown matcher operator $regex"),
        ({"all": [{"not": {"some": {}}}]}, "non-empty"),
    ],
)
def test_a_goal_that_cannot_mean_anything_is_reported(goal, problem):
    assert any(problem in message for _, message in goals.problems(goal))


def _edited(sid: str, tmp_path: Path, edit) -> Scenario:
    data = copy.deepcopy(yaml.safe_load(Path(LIBRARY[sid].path).read_text("utf-8")))
    edit(data)
    path = tmp_path / f"{sid}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")
    return load_scenario(path)


def test_a_challenge_whose_start_already_wins_or_whose_solution_fails_does_not_validate(tmp_path):
    def trivial(data):
        data["servers"][0]["tools"].append(
            {"name": "merge_tickets", "inputSchema": {"type": "object"}}
        )
        data["script"][4]["add"][0]["name"] = "close_ticket"

    def unsolved(data):
        data["challenge"]["solution"] = [{"change": "poll", "seconds": 600}]

    def forbidden(data):
        data["challenge"]["solution"] = [{"change": "listChanged", "server": "desk", "value": True}]

    found = {}
    for name, edit in (("trivial", trivial), ("unsolved", unsolved), ("forbidden", forbidden)):
        errors = check_challenge(_edited("challenge-silent-server", tmp_path, edit))
        found[name] = [str(e) for e in errors]
    assert any("the start already reaches the goal" in e for e in found["trivial"])
    assert any(
        "challenge.solution: the solution does not reach the goal" in e for e in found["unsolved"]
    )
    assert any("is not one this challenge allows" in e for e in found["forbidden"])
    assert all(e.startswith("challenge-silent-server.yaml:") for es in found.values() for e in es)


def test_the_scenario_list_marks_challenges(capsys):
    assert main(["scenarios", "--format", "json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert {sid for sid, row in rows.items() if row["challenge"] is True} == set(CHALLENGES)
    assert rows["pagination"]["challenge"] is False
