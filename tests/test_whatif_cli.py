"""The command line's contract for what-ifs: `mcp-lab trace ID --what-if VALUE --format jsonl`
prints the what-if's trace like any other (VALUE a whatif= value, a link, or a file), and a
bad value is one readable line on stderr with exit status 2."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.engine.library import default_scenarios_dir, load_library
from app.engine.whatif import WhatIf, encode, run_whatif

LIBRARY = load_library(default_scenarios_dir()).scenarios
WHATIF = WhatIf(
    "pagination",
    "2026-07-28",
    "http",
    (
        {"change": "pageSize", "server": "files", "value": 2},
        {"change": "restartServer", "after": 6, "server": "files"},
    ),
)


def traced(capsys, *argv: str) -> list[dict]:
    assert main(["trace", *argv]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_trace_with_a_what_if_prints_the_what_if_s_trace_as_jsonl(capsys):
    steps = traced(capsys, "pagination", "--what-if", encode(WHATIF), "--format", "jsonl")
    expected = run_whatif(WHATIF, LIBRARY).trace
    assert steps == json.loads(json.dumps(expected))
    assert {s["protocolVersion"] for s in steps} == {"2026-07-28"} and steps[1][
        "transport"
    ] == "http"
    assert any(e["kind"] == "server-restarted" for s in steps for e in s["events"])


def test_the_value_may_come_as_a_link_or_in_a_file(capsys, tmp_path):
    value = encode(WHATIF)
    direct = traced(capsys, "pagination", "--what-if", value, "--format", "jsonl")
    link = f"http://127.0.0.1:5000/scenario/pagination?step=7&whatif={value}"
    assert traced(capsys, "pagination", "--what-if", link, "--format", "jsonl") == direct
    (tmp_path / "w.json").write_text(json.dumps(WHATIF.as_data()))
    assert (
        traced(capsys, "pagination", "--what-if", str(tmp_path / "w.json"), "--format", "jsonl")
        == direct
    )
    assert main(["trace", "pagination", "--what-if", value, "--lang", "zh"]) == 0
    assert "分页" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["pagination", "--what-if", "1.broken!"], "cannot be read"),
        (["cache", "--what-if", encode(WHATIF)], "changes 'pagination', not 'cache'"),
        (["pagination", "--what-if", encode(WHATIF), "--transport", "stdio"], "drop --transport"),
        (
            [
                "pagination",
                "--what-if",
                encode(
                    WhatIf(
                        "pagination",
                        "2025-11-25",
                        "stdio",
                        ({"change": "ttl", "server": "files", "ms": 5},),
                    )
                ),
            ],
            "ttlMs exists only from 2026-07-28",
        ),
    ],
)
def test_a_bad_what_if_is_one_readable_line_and_exit_2(capsys, argv, said):
    assert main(["trace", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and said in err and "Traceback" not in err
    assert err.startswith("mcp-lab: ") and err.count("\n") == 1
