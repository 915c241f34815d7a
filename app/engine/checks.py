"""The meaning checks of a scenario: run it under every version and transport it declares and
verify what a schema cannot. Checkpoint answer keys are derived from the trace (exactly the
answer's `match` fits the step asked about), expectations hold, misconceptions point at a real
step in some run, every step is narrated in every language, and every message validates against the
official schema of its version. `mcp-lab validate` and the tests both use this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from app.mcp.schemas import check_message

from .matcher import first_match, matches
from .runner import run_trace
from .scenario import Scenario
from .scenario_errors import ScenarioError, line_of, yaml_error
from .step import LANGUAGES, Step

MIN_CHECKPOINTS = 2


def sender_of(step: Step) -> Literal["client", "server"]:
    return "client" if str(step["from"]).startswith("client") else "server"


def message_problems(step: Step) -> list[str]:
    if step["message"] is None:
        return []
    return check_message(
        step["message"],
        step["protocolVersion"],
        sender=sender_of(step),
        request_method=step["method"] if "method" not in step["message"] else None,
        closed=not sends_other_fields(step),
    )


def sends_other_fields(step: Step) -> bool:
    """Is this a message of a server built for another version (`builtFor`), whose extra fields
    the official schema allows though the lab's closed check would report them?"""
    if sender_of(step) != "server":
        return False
    sid = str(step["from"]).split(":", 1)[1]
    server = step["state"]["servers"].get(sid)
    return bool(server and server.get("builtFor"))


def count(trace: Sequence[Step], key: str) -> int:
    """Steps of a kind (`cache-hit`), or requests of a method (`tools/list`)."""
    return sum(
        1 for s in trace if s["kind"] == key or (s["kind"] == "request" and s["method"] == key)
    )


def expectation_for(scenario: Scenario, era: str, transport: str = "stdio") -> dict[str, Any]:
    """The common expectations with the era's, the transport's and then the era's transport
    keys laid over them."""
    expect = dict(scenario.data.get("expect", {}))
    by_era = {"legacy": expect.pop("legacy", {}), "modern": expect.pop("modern", {})}
    by_transport = {"stdio": expect.pop("stdio", {}), "http": expect.pop("http", {})}
    # An era's own transport keys (modern: {http: ...}) come last: the most specific wins.
    of_era = dict(by_era[era])
    era_transport = {"stdio": of_era.pop("stdio", {}), "http": of_era.pop("http", {})}
    return {**expect, **of_era, **by_transport[transport], **era_transport[transport]}


def check_trace(scenario: Scenario, trace: Sequence[Step]) -> list[tuple[list[Any], str]]:
    """Problems in one trace, each with the path of the scenario field it concerns."""
    problems: list[tuple[list[Any], str]] = []
    version, transport = trace[0]["protocolVersion"], trace[0]["transport"]
    where = f"under {version} over {transport}"
    era = trace[-1]["era"]
    script = scenario.data["script"]
    asked = {s["checkpoint"]["action"]: s["index"] for s in trace if s["checkpoint"]}
    produced = {s["action"] for s in trace}
    for i, action in enumerate(script):
        applies = (
            action.get("era") in (None, era)
            and version in action.get("versions", [version])
            and transport in action.get("transports", [transport])
        )
        if applies and i not in produced:
            for key in ("say", "sayLast", "checkpoint"):
                if key in action:
                    problems.append((["script", i, key], f"its action shows no step {where}"))
        cp = action.get("checkpoint")
        if not cp or not applies:
            continue
        if i not in asked:
            problems.append((["script", i, "checkpoint", "at"], f"never matches a step {where}"))
            continue
        moment = trace[asked[i] + 1]
        fitting = [n for n, c in enumerate(cp["choices"]) if matches(moment, c["match"])]
        if fitting != [cp["answer"]]:
            problems.append(
                (
                    ["script", i, "checkpoint", "answer"],
                    f"the trace {where} fits choices {fitting}, the key says {cp['answer']}",
                )
            )
    # A challenge asks its question as a goal, and a saved what-if's trace is not the one its
    # base's questions were written for: neither needs questions of its own.
    exploring = "challenge" in scenario.data or "whatIf" in scenario.data
    if len(asked) < MIN_CHECKPOINTS and not exploring:
        problems.append(
            (["script"], f"only {len(asked)} checkpoint(s) {where}; at least {MIN_CHECKPOINTS}")
        )
    expect = expectation_for(scenario, era, transport)
    final = [t["name"] for t in trace[-1]["state"]["model"]["tools"]]
    if "modelTools" in expect and final != expect["modelTools"]:
        problems.append((["expect", "modelTools"], f"the model got {final} {where}"))
    start = 0
    for n, m in enumerate(expect.get("contains", [])):
        found = first_match(trace, m, start)
        if found is None:
            problems.append((["expect", "contains", n], f"no step matches, in order, {where}"))
        else:
            start = found + 1
    for n, m in enumerate(expect.get("absent", [])):
        found = first_match(trace, m)
        if found is not None:
            problems.append((["expect", "absent", n], f"step {found} matches {where}"))
    for key, want in expect.get("counts", {}).items():
        got = count(trace, key)
        if got != want:
            problems.append((["expect", "counts", key], f"{got}, not {want}, {where}"))
    for step in trace:
        if step["method"] == "notifications/tools/list_changed" and step["kind"] == "notification":
            sid = str(step["from"]).split(":", 1)[1]
            declared = step["state"]["clients"][sid]["serverCapabilities"].get("tools") or {}
            if not declared.get("listChanged"):
                problems.append(
                    (
                        ["script"],
                        f"step {step['index']}: list_changed from {sid}, "
                        f"which never declared tools.listChanged {where}",
                    )
                )
        narration = cast(Mapping[str, str], step["narration"])
        missing = [lang for lang in LANGUAGES if not narration.get(lang, "").strip()]
        if missing:
            problems.append(
                (["script"], f"step {step['index']} has no {missing} narration {where}")
            )
        for p in message_problems(step):
            problems.append((["script"], f"step {step['index']} {where}: {p}"))
    return problems


def refuted_myths(scenario: Scenario, trace: Sequence[Step]) -> set[int]:
    """The misconceptions (by index) a step of this trace refutes. Some myths are refuted only
    in one era (a counter-offer needs a version to counter), so a myth must be refuted in at least
    one run of the scenario, not in each."""
    return {
        n
        for n, myth in enumerate(scenario.misconceptions)
        if first_match(trace, myth["refutedBy"]) is not None
    }


def check_scenario(
    scenario: Scenario,
    node: yaml.Node | None = None,
    run: Callable[[Scenario, str, str], list[Step]] = run_trace,
) -> list[ScenarioError]:
    """Run every version x transport; report each distinct problem once, with its line (from
    `node`, the composed file, read from the scenario's path when not given; `run` may cap
    the runs of a text nobody vetted)."""
    path = Path(scenario.path)
    if node is None:
        try:
            node = yaml.compose(path.read_text("utf-8"), Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:  # the C loader accepted what the pure one cannot compose
            return [yaml_error(path.name, exc)]
    seen: dict[tuple[str, ...], ScenarioError] = {}
    refuted: set[int] = set()
    for version in scenario.versions:
        for transport in scenario.transports:
            try:
                trace = run(scenario, version, transport)
            except Exception as exc:  # a scenario must never crash the engine; report it
                problems = [
                    (["script"], f"the engine failed under {version} over {transport}: {exc!r}")
                ]
            else:
                problems = check_trace(scenario, trace)
                refuted |= refuted_myths(scenario, trace)
            for field_path, message in problems:
                error = ScenarioError(
                    path.name, line_of(node, field_path), ".".join(map(str, field_path)), message
                )
                seen.setdefault((error.field, message.split(" under ")[0]), error)
    for n in range(len(scenario.misconceptions)):
        if n not in refuted:
            where = ["misconceptions", n, "refutedBy"]
            message = "no step of any version or transport matches"
            seen[(".".join(map(str, where)), message)] = ScenarioError(
                path.name, line_of(node, where), ".".join(map(str, where)), message
            )
    return list(seen.values())
