"""`mcp-lab example ID`: it prints Python that runs, and what the official SDK sees when it runs
against the lab's own server is what the lesson's trace shows.

Every lesson of the library is run once, each with one protocol version and transport, taken in
turn so that both eras and both transports come up (a run costs one Python start and a server
or two; every combination of every lesson would take minutes). What is compared: the version
each server speaks, each complete tool list the client ends up with, each call's outcome, each
list_changed heard, the error of each hand-made request, and the tools of each model request.
Where a real run cannot match the lesson, the exception and its reason are listed below.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.engine.library import load_library
from app.engine.runner import run_trace
from app.engine.scenario import Scenario, default_scenarios_dir
from app.examples import plan
from app.examples.script import example_script
from tests.examples_run import REPO, Facts, from_output, from_trace, run_example

LIBRARY = load_library(default_scenarios_dir()).scenarios
COMBOS = [("modern", "stdio"), ("legacy", "http"), ("modern", "http"), ("legacy", "stdio")]


def combo(position: int, scenario: Scenario) -> tuple[str, str]:
    """The version and transport a lesson is run with: the next era and transport in turn."""
    era, transport = COMBOS[position % len(COMBOS)]
    modern = [v for v in scenario.versions if v == "2026-07-28"]
    legacy = [v for v in scenario.versions if v != "2026-07-28"]
    pool = (modern if era == "modern" else legacy) or scenario.versions
    version = pool[(position // len(COMBOS)) % len(pool)]
    return version, transport if transport in scenario.transports else scenario.transports[0]


RUNS = [(s.id, *combo(i, s)) for i, s in enumerate(LIBRARY.values())]

# A real client takes each walk whole, one request after another: where the lesson lands a
# change in the middle of a walk (a walk restarted, discarded or answered late), only the list
# each client ends with can match.
MID_WALK = {"gather-discarded", "gather-abandoned", "stale-response", "refresh-queued"}
# Host verbs whose policy is the lesson (a user's deny list, a stale tool table, an agent's
# allow-list, deferred loading): the script's host is a plain one that offers every tool it knows.
HOST_VERBS = {"set_host", "set_user", "set_agent", "tool_search"}


def _host_has_policy(scenario: Scenario) -> bool:
    verbs = {verb for action in scenario.data.get("script", []) for verb in action}
    return bool(scenario.data.get("host")) or bool(verbs & HOST_VERBS)


def _sdk_drops_on_stdio(scenario: Scenario, version: str, transport: str) -> bool:
    """The SDK drops a tool with an invalid x-mcp-header on every transport; the spec's MUST
    (and the lab) concerns Streamable HTTP only, so over stdio the lesson keeps it."""
    modern_stdio = version == "2026-07-28" and transport == "stdio"
    return modern_stdio and "x-mcp-header" in json.dumps(scenario.data["servers"])


def _authorizes(scenario: Scenario) -> bool:
    """A server whose list depends on the token: mcp-lab mcp-server serves no authorization
    (no 401, no scopes), so the script sees every tool where the lesson's client sees its
    token's."""
    return any("auth" in spec for spec in scenario.data["servers"])


def _last_lists(facts: Facts) -> dict[str, tuple[str, ...]]:
    return dict(facts.lists)


@pytest.mark.parametrize(("scenario_id", "version", "transport"), RUNS)
def test_exported_script_sees_what_the_lesson_shows(
    scenario_id: str, version: str, transport: str, tmp_path: Path
) -> None:
    scenario = LIBRARY[scenario_id]
    trace = run_trace(scenario, version, transport)
    got = from_output(run_example(scenario, version, transport, tmp_path))
    want = from_trace(trace)
    assert got.versions == want.versions
    assert got.calls == want.calls
    assert got.heard == want.heard
    assert got.refused == want.refused
    if _sdk_drops_on_stdio(scenario, version, transport) or _authorizes(scenario):
        return
    events = {event["kind"] for step in trace for event in step["events"]}
    if events & MID_WALK:
        assert _last_lists(got) == _last_lists(want)
    else:
        assert got.lists == want.lists
    if not _host_has_policy(scenario):
        assert got.offered == want.offered


def test_the_runs_cover_both_eras_and_both_transports() -> None:
    seen = {("modern" if v == "2026-07-28" else "legacy", t) for _, v, t in RUNS}
    assert seen == set(COMBOS)
    assert {v for _, v, _ in RUNS} >= {"2024-11-05", "2026-07-28"}  # HTTP+SSE and modern


def test_every_script_in_every_language_is_clean_python(tmp_path: Path) -> None:
    """ruff, with the repository's rules and format, over every lesson's script in en, zh, ru."""
    for i, scenario in enumerate(LIBRARY.values()):
        version, transport = combo(i, scenario)
        for lang in ("en", "zh", "ru"):
            text = example_script(scenario, version, transport, lang)
            ast.parse(text)
            (tmp_path / f"{scenario.id.replace('-', '_')}_{lang}.py").write_text(text, "utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    for command in (["check", "--no-cache"], ["format", "--check", "--no-cache"]):
        done = subprocess.run(
            [str(ruff), *command, "--config", str(REPO / "pyproject.toml"), str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_cli_prints_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["example", "intro", "--protocol-version", "2025-06-18", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    ast.parse(out)
    assert 'VERSION = "2025-06-18"' in out
    assert "# 第 2 步 · weather：客户端打开会话。" in out  # comments in the chosen language
    assert "weather = await open_legacy_stdio(stack, SCENARIO, " in out


def test_cli_refuses_a_version_or_transport_the_lesson_lacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["example", "param-headers", "--protocol-version", "2025-11-25"]) == 2
    assert "param-headers does not run under 2025-11-25" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no scenario 'nope'"):
        main(["example", "nope"])


def test_http_script_names_the_servers_to_start() -> None:
    text = example_script(LIBRARY["collisions"], "2025-11-25", "http")
    assert "mcp-lab mcp-server collisions --server files --transport http --port 3001" in text
    assert "mcp-lab mcp-server collisions --server drive --transport http --port 3002" in text
    assert 'URLS = {"files": "http://127.0.0.1:3001", "drive": "http://127.0.0.1:3002"}' in text
    assert "open_legacy_http(stack, URLS[" in text and "stdio_client" not in text
    sse = example_script(LIBRARY["collisions"], "2024-11-05", "http")
    assert "open_legacy_sse(" in sse and "sse_client(base" in sse


def test_acts_follow_what_the_client_does_on_the_wire() -> None:
    lesson = LIBRARY["list-changed-add"]
    acts = plan.plan(run_trace(lesson, "2026-07-28", "stdio"), lesson.data["script"])
    kinds = [type(a).__name__ for a in acts]
    assert kinds == ["Open", "Walk", "Offer", "Change", "Walk", "Offer", "Call"]
    opening, change = acts[0], acts[3]
    assert isinstance(opening, plan.Open) and opening.probe and opening.listen
    assert isinstance(change, plan.Change) and change.notifies
    # intro's modern client neither probes nor listens: its first message is tools/list
    first = plan.plan(run_trace(LIBRARY["intro"], "2026-07-28", "http"))[0]
    assert first == plan.Open(first.step, "weather", "modern", "2026-07-28")
    # 2026 pages expire one by one: a walk may fetch page 2 alone and keep page 1
    cache = plan.plan(run_trace(LIBRARY["cache"], "2026-07-28", "http"))
    assert [a.pages for a in cache if isinstance(a, plan.Walk)] == [(), (2,), (1,), (), ()]
    # no-list-changed's server changes silently: nothing to wait for
    silent = plan.plan(run_trace(LIBRARY["no-list-changed"], "2025-11-25", "stdio"))
    assert [a.notifies for a in silent if isinstance(a, plan.Change)] == [False, False, False]
