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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from app.cli import main as cli_main
from app.mcp import versions
from app.mcp.schemas import check_message
from app.probe.run import probe, report_json
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.web.factory import create_app
from tests.sdk_probe_server import sdk_server
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


@contextmanager
def sdk_http(mode: str) -> Iterator[str]:
    """The SDK's Streamable HTTP app for one of our servers, on uvicorn in a thread."""
    app = sdk_server(mode).streamable_http_app()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started:
                break
            threading.Event().wait(0.05)
        assert server.started
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)


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


def verdicts(result: dict[str, Any]) -> dict[str, bool]:
    return {c["id"]: c["ok"] for c in result["checks"]}


def failed(result: dict[str, Any]) -> set[str]:
    return {c["id"] for c in result["checks"] if not c["ok"]}


def test_clean_sdk_server_over_http_passes_in_every_version() -> None:
    with sdk_http("clean") as url:
        report = probe([url], timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 0, result["checks"]
    assert result["versions"] == list(reversed(versions.VERSIONS))  # newest first
    assert result["protocolVersion"] == "2026-07-28"
    assert result["server"] == {"name": "sdk-clean", "version": "2.3.0"}
    assert result["pages"] == 3
    assert [t["name"] for t in result["tools"]] == [f"tool_{i}" for i in range(5)]
    modern = [c for c in result["checks"] if c["protocolVersion"] == "2026-07-28"]
    assert {c["id"] for c in modern} >= {"cache-hints", "list-changed", "cursors"}
    assert all(set(c) == {"id", "ok", "detail", "protocolVersion"} for c in result["checks"])


def test_broken_sdk_server_over_stdio_fails_the_checks_it_breaks() -> None:
    report = probe(sdk_command("broken"), version="2024-11-05", timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 1
    assert failed(result) == {
        "schema",  # a name with a space, a title 2024-11-05 has no field for
        "cursors",  # int() on an invented cursor: the SDK answers error code 0, not -32602
        "tool-names",
        "model-safe-names",
        "duplicate-names",
        "input-schemas",
        "version-fields",
    }
    detail = {c["id"]: c["detail"] for c in result["checks"]}
    assert "search docs" in detail["tool-names"]
    assert "share.link" in detail["model-safe-names"]
    assert "fetch ×2" in detail["duplicate-names"]
    assert detail["input-schemas"].startswith("count:")
    assert "fetch.title" in detail["version-fields"]
    assert verdicts(result)["pagination"] and verdicts(result)["stdout"]
    assert result["pages"] == 3


def test_broken_sdk_server_over_http_in_2026() -> None:
    with sdk_http("broken") as url:
        report = probe([url], version="2026-07-28", timeout=TIMEOUT)
    result = report_json(report)
    assert report.exit_code == 1
    assert result["protocolVersion"] == "2026-07-28"
    assert failed(result) == {
        "schema",
        "cursors",
        "tool-names",
        "model-safe-names",
        "duplicate-names",
        "input-schemas",
    }  # title exists in 2026-07-28: version-fields passes there
    detail = {c["id"]: c["detail"] for c in result["checks"]}
    assert "-32603" in detail["cursors"]


def test_a_cursor_loop_and_stdout_noise_are_caught() -> None:
    loop = report_json(probe(sdk_command("loop"), version="2025-06-18", timeout=TIMEOUT))
    assert {"pagination", "duplicate-names"} <= failed(loop)
    assert "twice" in {c["id"]: c["detail"] for c in loop["checks"]}["pagination"]
    noisy = report_json(probe(sdk_command("noisy"), version="2025-11-25", timeout=TIMEOUT))
    assert failed(noisy) == {"stdout"}


def test_unreachable_servers_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["probe", "http://127.0.0.1:9/mcp"]) == 2
    assert "unreachable" in capsys.readouterr().out
    assert cli_main(["probe", "--", str(REPO / "no-such-server")]) == 2
    assert cli_main(["probe", "--format", "json", "--", sys.executable, "-c", "pass"]) == 2
    result = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert result["checks"][0]["ok"] is False


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
