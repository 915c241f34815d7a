"""Running what `mcp-lab example` prints, and reading a lesson's trace the same way.

`run_example` writes the script to a file and runs it with this Python: over stdio it launches
`mcp-lab mcp-server` itself; over HTTP the servers run here, on free loopback ports, in threads
(the same shell `mcp-lab mcp-server --transport http` runs), and the script is pointed at them
with --url. `from_output` and `from_trace` reduce a run and a trace to the same facts, found
independently: the version each server speaks, each complete list a client ends up with, each
call's outcome, each list_changed heard, each hand-made request's error code and each model
request's tools.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.scenario import Scenario
from app.engine.step import Trace
from app.examples.script import example_script
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins

REPO = Path(__file__).resolve().parent.parent
RUN_TIMEOUT_S = 120


@dataclass
class Facts:
    versions: dict[str, str] = field(default_factory=dict)
    lists: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    heard: dict[str, int] = field(default_factory=dict)
    refused: list[tuple[str, str, int]] = field(default_factory=list)
    offered: list[tuple[str, ...]] = field(default_factory=list)


def from_output(lines: list[str]) -> Facts:
    facts = Facts()
    for line in lines:
        if found := re.match(r"\[open\] (\S+): .*protocol (\S+),", line):
            facts.versions[found[1]] = found[2]
        elif found := re.match(r"\[tools\] (\S+): \d+ tools: (.*)$", line):
            names = () if found[2] == "(none)" else tuple(found[2].split(", "))
            facts.lists.append((found[1], names))
        elif found := re.match(r"\[tools/call\] (\S+) (\S+) -> (ok|isError|error (-?\d+))", line):
            facts.calls.append((found[1], found[2], found[3].split(":")[0]))
        elif found := re.match(r"\[list_changed\] (\S+):", line):
            facts.heard[found[1]] = facts.heard.get(found[1], 0) + 1
        elif found := re.match(r"\[(tools/list|server/discover)\] (\S+) .* -> error (-?\d+)", line):
            facts.refused.append((found[2], found[1], int(found[3])))
        elif found := re.match(r"\[model\] [^:]+: ?(.*)$", line):
            facts.offered.append(tuple(n for n in found[1].split(", ") if n))
    return facts


def from_trace(trace: Trace) -> Facts:
    facts = Facts()
    for step in trace:
        sid = next((end.split(":", 1)[1] for end in (step["from"], step["to"]) if ":" in end), None)
        kinds = {event["kind"] for event in step["events"]}
        message = step["message"] or {}
        client = step["state"]["clients"].get(sid or "")
        if sid and client and "published" in kinds:
            facts.lists.append((sid, tuple(t["name"] for t in client["cache"]["tools"])))
        if sid and step["method"] == "tools/call" and step["kind"] in ("response", "error"):
            request = next(
                s
                for s in trace[: step["index"]][::-1]
                if s["id"] == step["id"] and s["from"] == step["to"]
            )
            name = (request["message"] or {})["params"]["name"]
            result = message.get("result") or {}
            outcome = (
                f"error {message['error']['code']}"
                if "error" in message
                else ("isError" if result.get("isError") else "ok")
            )
            facts.calls.append((sid, name, outcome))
        if sid and step["method"] == "notifications/tools/list_changed":
            facts.heard[sid] = facts.heard.get(sid, 0) + 1
        if sid and "manual-error" in kinds and step["method"] != "tools/call":
            facts.refused.append((sid, str(step["method"]), message["error"]["code"]))
        if step["kind"] == "model-request":
            facts.offered.append(tuple(t["name"] for t in step["state"]["model"]["tools"]))
    for sid, client in trace[-1]["state"]["clients"].items():
        facts.versions[sid] = client["protocolVersion"]
    return facts


@contextmanager
def http_servers(scenario: Scenario) -> Iterator[dict[str, str]]:
    """Every server of the scenario on a free loopback port; their base URLs by id."""
    urls: dict[str, str] = {}
    with ExitStack() as stack:
        for spec in scenario.data["servers"]:
            endpoint = McpEndpoint(load_served(scenario.path, spec["id"]))
            shell = HttpShell(endpoint, "127.0.0.1", 0)
            endpoint.origins = loopback_origins("127.0.0.1", shell.port)
            thread = threading.Thread(target=shell.serve_forever, daemon=True)
            thread.start()
            assert shell.ready.wait(5)
            stack.callback(thread.join, 5)
            stack.callback(shell.stop)
            urls[spec["id"]] = f"http://127.0.0.1:{shell.port}"
        yield urls


def run_example(scenario: Scenario, version: str, transport: str, tmp: Path) -> list[str]:
    """The lines the exported script printed; fails with its stderr when it did not exit 0."""
    script = tmp / f"{scenario.id}.py"
    script.write_text(example_script(scenario, version, transport), encoding="utf-8")
    with ExitStack() as stack:
        args = [sys.executable, str(script)]
        if transport == "http":
            urls = stack.enter_context(http_servers(scenario))
            args += [f"--url={sid}={url}" for sid, url in urls.items()]
        done = subprocess.run(
            args, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=tmp, check=False
        )
    assert done.returncode == 0, f"{scenario.id} {version} {transport}:\n{done.stderr[-3000:]}"
    return done.stdout.splitlines()
