"""`mcp-lab probe` grades real servers: SDK servers of our own, clean and broken, over stdio and
Streamable HTTP, and the lab's own served server; exit 0/1/2, the JSON contract, --trace.

The SDK servers live in tests/sdk_probe_server.py. Over HTTP they run on uvicorn in a thread
(the SDK's own Streamable HTTP app); over stdio the probe starts them as a child process.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.cli import main as cli_main
from app.mcp import versions
from app.mcp.schemas import check_message
from app.probe.run import probe, report_json
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.web.factory import create_app
from tests.sdk_probe_server import notes_server, sdk_server
from tests.tap_peers import asgi_http
from tests.test_engine_step import problems as schema_problems

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0  # a loaded CI machine can take many seconds to import the SDK
TRACE_KEYS = {
    "index", "kind", "from", "to", "protocolVersion", "era", "transport", "method", "id",
    "message", "frame", "channel", "reply", "events", "state", "changes", "narration",
    "checkpoint", "action",
}  # fmt: skip


def sdk_command(mode: str) -> list[str]:
    return [sys.executable, "-m", "tests.sdk_probe_server", mode]


def sdk_http(mode: str) -> AbstractContextManager[str]:
    """The SDK's Streamable HTTP app for one of our servers, on uvicorn in a thread."""
    return asgi_http(sdk_server(mode).streamable_http_app())


@contextmanager
def lab_http(scenario: str, server: str) -> Iterator[str]:
    endpoint = McpEndpoint(load_served(scenario, server))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{shell.port}/mcp"
    finally:
        shell.stop()
        thread.join(5)


def levels(result: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["level"] for c in result["checks"]}


def findings(result: dict[str, Any]) -> dict[str, str]:
    """Every check that is not a pass: id -> level."""
    return {c["id"]: c["level"] for c in result["checks"] if c["level"] != "pass"}


def detail(result: dict[str, Any], check: str) -> str:
    return str(next(c["detail"] for c in result["checks"] if c["id"] == check))


def spec_of(result: dict[str, Any], check: str) -> dict[str, str]:
    spec: dict[str, str] = next(c["spec"] for c in result["checks"] if c["id"] == check)
    return spec


def notes_http() -> AbstractContextManager[str]:
    """FastMCP (the SDK's MCPServer) with its defaults, over its own Streamable HTTP app."""
    return asgi_http(notes_server().streamable_http_app())


def test_clean_sdk_server_over_http_passes_every_check_in_every_version() -> None:
    with sdk_http("clean") as url:
        report = probe([url], timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 0, result["checks"]
    assert result["versions"] == list(reversed(versions.VERSIONS))  # newest first
    assert result["protocolVersion"] == "2026-07-28"
    assert result["server"] == {"name": "sdk-clean", "version": "2.3.0"}
    assert result["pages"] == 3
    assert [t["name"] for t in result["tools"]] == [f"tool_{i}" for i in range(5)]
    assert {c["level"] for c in result["checks"]} == {"pass"}
    modern = [c for c in result["checks"] if c["protocolVersion"] == "2026-07-28"]
    assert {c["id"] for c in modern} >= {"cache-hints", "list-changed", "cursors"}
    keys = {"id", "level", "ok", "detail", "protocolVersion", "spec"}
    assert all(set(c) == keys for c in result["checks"])
    for check in result["checks"]:  # each rests on a sentence of a version that has the rule
        assert set(check["spec"]) == {"version", "page", "text"}
        assert check["spec"]["page"].startswith(
            f"https://modelcontextprotocol.io/specification/{check['spec']['version']}/"
        )
    assert spec_of(result, "cursors")["text"] == (
        "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."
    )


def test_a_broken_must_is_one_failure_and_exit_1() -> None:
    """An inputSchema whose property has "type": "text" is no JSON Schema: from 2025-11-25 a
    MUST, one failure; the official schema itself leaves property schemas open."""
    with sdk_http("must") as url:
        report = probe([url], version="2025-11-25", timeout=TIMEOUT)
    result = report_json(report)
    assert findings(result) == {"input-schemas": "fail"}
    assert detail(result, "input-schemas").startswith("tool_3: not valid JSON Schema")
    assert report.exit_code == 1
    assert spec_of(result, "input-schemas") == {
        "version": "2025-11-25",
        "page": "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
        "text": "MUST be a valid JSON Schema object (not null)",
    }


def test_a_broken_should_is_one_warning_that_fails_only_under_strict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`bad name!` breaks the naming advice 2025-11-25 added as a SHOULD: one warning (not also
    a schema fault or a model-safe note); before 2025-11-25 there is no rule, so a note names
    the version that has it."""
    with sdk_http("should") as url:
        newer = report_json(probe([url], version="2025-11-25", timeout=TIMEOUT))
        older = report_json(probe([url], version="2024-11-05", timeout=TIMEOUT))
        assert cli_main(["probe", "--protocol-version", "2025-11-25", url]) == 0
        assert cli_main(["probe", "--strict", "--protocol-version", "2025-11-25", url]) == 1
    assert findings(newer) == {"tool-names": "warn"}
    assert "'bad name!'" in detail(newer, "tool-names")
    assert spec_of(newer, "tool-names")["text"].startswith(
        "The following SHOULD be the only allowed characters"
    )
    assert findings(older) == {"tool-names": "note"}
    assert "2024-11-05 sets no rule" in detail(older, "tool-names")
    assert spec_of(older, "tool-names")["version"] == "2025-11-25"
    out = capsys.readouterr().out
    assert "WARN tool-names" in out and "1 warning (passes)" in out and "1 warning (fails)" in out


def test_a_host_rule_is_a_note_and_fastmcp_defaults_pass() -> None:
    """FastMCP's defaults: 12 tools, `send.email` (dots are the spec's own example), title and
    outputSchema on every tool, any cursor ignored. A host's model-name rule is one note; on
    2024-11-05 the fields that version does not define are one note naming 2025-06-18, and the
    official schema (open objects) accepts the list."""
    with notes_http() as url:
        current = probe([url], version="2025-11-25", timeout=TIMEOUT)
        oldest = probe([url], version="2024-11-05", timeout=TIMEOUT)
    now, old = report_json(current), report_json(oldest)
    assert current.exit_code == 0 and oldest.exit_code == 0
    assert len(now["tools"]) == 12 and now["pages"] == 1
    assert findings(now) == {"model-safe-names": "note"}
    assert "send.email" in detail(now, "model-safe-names")
    assert findings(old) == {"model-safe-names": "note", "version-fields": "note"}
    fields = detail(old, "version-fields")
    assert "outputSchema (from 2025-06-18) on 12 tools" in fields
    assert "title (from 2025-06-18) on 12 tools" in fields
    assert levels(old)["schema"] == "pass" and levels(old)["cursors"] == "pass"
    assert "may ignore a cursor" in detail(old, "cursors")


def test_broken_sdk_server_over_stdio_one_finding_per_fault() -> None:
    report = probe(sdk_command("broken"), version="2025-11-25", timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 1
    assert findings(result) == {
        "cursors": "warn",  # int() on an invented cursor: error code 0, not -32602 (a SHOULD)
        "tool-names": "warn",  # 'search docs'
        "model-safe-names": "note",  # share.link: the spec allows it, model APIs do not
        "duplicate-names": "warn",
        "input-schemas": "fail",  # "type": "text" is no JSON Schema: a MUST from 2025-11-25
    }
    assert "search docs" in detail(result, "tool-names")
    assert "search docs" not in detail(result, "model-safe-names")
    assert "share.link" in detail(result, "model-safe-names")
    assert "fetch ×2" in detail(result, "duplicate-names")
    assert detail(result, "input-schemas").startswith("count:")
    assert levels(result)["pagination"] == "pass" and levels(result)["stdout"] == "pass"
    assert result["pages"] == 3


def test_broken_sdk_server_over_http_in_2026() -> None:
    with sdk_http("broken") as url:
        report = probe([url], version="2026-07-28", timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 1
    assert result["protocolVersion"] == "2026-07-28"
    assert set(findings(result)) == {
        "cursors",
        "tool-names",
        "model-safe-names",
        "duplicate-names",
        "input-schemas",
    }  # title exists in 2026-07-28: no version-fields note there
    assert "-32603" in detail(result, "cursors")


def test_a_cursor_loop_and_stdout_noise_are_caught() -> None:
    loop = report_json(probe(sdk_command("loop"), version="2025-06-18", timeout=TIMEOUT))
    # Two faults: the loop, and a cursor it never issued answered with a page. The page
    # served again is not reported a third time, as names listed twice.
    assert findings(loop) == {"pagination": "warn", "cursors": "warn"}
    assert "twice" in detail(loop, "pagination")
    noisy = report_json(probe(sdk_command("noisy"), version="2025-11-25", timeout=TIMEOUT))
    assert findings(noisy) == {"stdout": "fail"}
    assert spec_of(noisy, "stdout")["text"] == (
        "The server MUST NOT write anything to its stdout that is not a valid MCP message."
    )


def test_unreachable_servers_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["probe", "http://127.0.0.1:9/mcp"]) == 2
    assert "unreachable" in capsys.readouterr().out
    assert cli_main(["probe", "--", str(REPO / "no-such-server")]) == 2
    assert cli_main(["probe", "--format", "json", "--", sys.executable, "-c", "pass"]) == 2
    result = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert result["checks"][0]["level"] == "fail"


def test_probe_cli_on_the_lab_server_writes_json_and_a_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "session.jsonl"
    with lab_http("pagination", "files") as url:
        code = cli_main(
            [
                "probe",
                "--protocol-version",
                "2025-11-25",
                "--format",
                "json",
                "--trace",
                str(trace),
                url,
            ]
        )
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["checks"]
    assert set(result) >= {"server", "protocolVersion", "pages", "tools", "checks"}
    assert result["pages"] == 3 and len(result["tools"]) == 8
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    assert all(set(step) == TRACE_KEYS for step in steps)
    assert schema_problems(steps) == []  # docs/step.schema.json, as every scenario's trace
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert steps[-1]["kind"] == "terminal"
    wire = [s for s in steps if s["message"] is not None]
    assert [s["method"] for s in wire][:3] == [
        "initialize",
        "initialize",
        "notifications/initialized",
    ]
    assert wire[0]["frame"].startswith("POST /mcp HTTP/1.1\r\n")
    assert wire[1]["frame"].startswith("HTTP/1.1 200 OK\r\n")
    assert all(
        s["narration"]["en"] and s["narration"]["zh"] and s["narration"]["ru"] for s in steps
    )
    assert steps[-1]["state"]["clients"]["target"]["cache"]["generation"] == 1
    for step in wire:  # the recorded session is valid protocol, as any trace is
        sender = "client" if step["from"].startswith("client") else "server"
        answered = step["method"] if "method" not in step["message"] else None
        problems = check_message(
            step["message"], "2025-11-25", sender=sender, request_method=answered
        )
        assert problems == [], (step["index"], problems)


def test_serve_trace_opens_a_probe_trace_in_the_viewer(tmp_path: Path) -> None:
    """`mcp-lab serve --trace FILE` (config TRACE_FILES) shows the probe's session in the four
    views, its last step the tools the probe found."""
    trace = tmp_path / "probe.jsonl"
    with lab_http("pagination", "files") as url:
        code = cli_main(["probe", "--protocol-version", "2025-06-18", "--trace", str(trace), url])
    assert code == 0
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    app = create_app({"TESTING": True, "TRACE_FILES": [str(trace)]})
    (rec_id,) = app.config["_TRACE_IDS"]
    web = app.test_client()
    page = web.get(f"/scenario/{rec_id}?step={len(steps)}&view=output").get_data(as_text=True)
    assert f"Step {len(steps)} of {len(steps)}" in page
    for panel in ("panel-overview", "panel-transport", "panel-transform", "panel-output"):
        assert f'id="{panel}"' in page
    assert "Tools the model receives in its next request (8)" in page
    first = web.get(f"/scenario/{rec_id}?step=1&view=transport").get_data(as_text=True)
    assert "POST /mcp HTTP/1.1" in first and "initialize" in first
