"""The MCP Inspector CLI through `mcp-lab tap`: over stdio to a server built on the official SDK,
over Streamable HTTP to `mcp-lab mcp-server`; the Inspector prints the same answer with and
without the tap, and its session is graded. And the commands docs/REAL-PEERS.md gives for the
Inspector over stdio run as written (`--` keeps `--server files` from the Inspector, which
would take it as a server of its own config file).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from app.tap.report import report_json
from tests.tap_peers import REPO, card, lab_http, tap_command, tapped
from tests.test_serving_inspector import LAUNCHER, NODE, inspector

pytestmark = pytest.mark.skipif(
    not (NODE.exists() and LAUNCHER.exists()), reason="run `make inspector` first"
)

SDK_SERVER = [sys.executable, "-m", "tests.sdk_probe_server", "clean"]


def test_inspector_over_stdio_sees_the_same_list_through_the_tap(tmp_path: Path) -> None:
    direct = inspector(tmp_path, "--method", "tools/list", "--", *SDK_SERVER)
    report = tmp_path / "card.json"
    through = inspector(
        tmp_path,
        "--method", "tools/list", "--",
        *tap_command("--format", "json", "--report", str(report)), *SDK_SERVER,
    )  # fmt: skip
    assert through == direct
    assert [t["name"] for t in direct["tools"]] == [f"tool_{i}" for i in range(5)]
    result = json.loads(report.read_text())
    assert result["sessions"][0]["client"]["name"] == "inspector-cli"
    assert set(card(result).values()) == {"pass"}  # every page, then it left


def test_inspector_over_http_sees_the_same_list_through_the_tap(tmp_path: Path) -> None:
    with lab_http() as shell:
        upstream = f"http://127.0.0.1:{shell.port}/mcp"
        direct = inspector(tmp_path, upstream, "--method", "tools/list")
        with tapped(upstream) as (base, log):
            through = inspector(tmp_path, base + "/mcp", "--method", "tools/list")
            result = report_json(log)
    assert through == direct and len(direct["tools"]) == 8
    assert card(result)["all-pages"] == "pass"


def documented(marker: str) -> list[str]:
    """The command line docs/REAL-PEERS.md gives for the Inspector, containing `marker`, with
    npx's package replaced by the Inspector installed for the tests."""
    text = (REPO / "docs" / "REAL-PEERS.md").read_text()
    prefix = "npx @modelcontextprotocol/inspector "
    (line,) = [ln.strip() for ln in text.splitlines() if ln.startswith(prefix) and marker in ln]
    return [str(NODE), str(LAUNCHER), *shlex.split(line.removeprefix(prefix))]


@pytest.mark.parametrize("marker", ["tools/list -- .venv/bin/mcp-lab mcp-server", "tap --"])
def test_the_documented_stdio_commands_run_as_written(tmp_path: Path, marker: str) -> None:
    command = documented(marker)
    assert "--server" in command  # the reason the docs put `--` before the server's command
    result = inspector(tmp_path, *command[3:])  # after NODE, LAUNCHER and --cli
    assert len(result["tools"]) == 8
