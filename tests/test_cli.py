"""The mcp-lab command as course pages and scripts use it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.mcp.schemas import check_message
from app.mcp.versions import VERSIONS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_scenarios_as_json_lists_ids_titles_versions_and_transports(capsys):
    code, out, _ = run(capsys, "scenarios", "--format", "json")
    rows = json.loads(out)
    assert code == 0
    assert {"handshake", "pagination"} <= {r["id"] for r in rows}
    for row in rows:
        assert set(row["title"]) == {"en", "zh", "ru"}
        assert set(row["versions"]) <= set(VERSIONS) and row["transports"]


def test_scenarios_as_text_is_one_line_each(capsys):
    code, out, _ = run(capsys, "scenarios")
    assert code == 0 and any(line.startswith("pagination ") for line in out.splitlines())


def test_validate_passes_the_shipped_library(capsys):
    code, out, _ = run(capsys, "validate")
    assert code == 0 and out == ""


def test_validate_prints_file_line_messages_and_exits_1(tmp_path: Path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\ntitle: {en: x}\n", "utf-8")
    code, out, _ = run(capsys, "validate", str(bad))
    assert code == 1
    lines = out.splitlines()
    assert lines and all(line.startswith("bad.yaml:") for line in lines)
    assert any(line.startswith("bad.yaml:2: title:") for line in lines)


@pytest.mark.parametrize("version", ["2024-11-05", "2026-07-28"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_trace_jsonl_steps_carry_the_contract_keys_and_valid_messages(capsys, version, transport):
    code, out, _ = run(
        capsys,
        "trace",
        "pagination",
        "--protocol-version",
        version,
        "--transport",
        transport,
        "--format",
        "jsonl",
    )
    steps = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and steps
    for step in steps:
        assert {
            "index",
            "kind",
            "from",
            "to",
            "protocolVersion",
            "message",
            "frame",
            "narration",
            "checkpoint",
        } <= set(step)
        assert set(step["narration"]) == {"en", "zh", "ru"}
        if step["message"] is not None:
            sender = "client" if step["from"].startswith("client") else "server"
            method = None if "method" in step["message"] else step["method"]
            assert (
                check_message(
                    step["message"], step["protocolVersion"], sender=sender, request_method=method
                )
                == []
            )
    asked = [s["checkpoint"] for s in steps if s["checkpoint"]]
    assert asked and all({"question", "choices", "answer"} <= set(c) for c in asked)
    if version == "2026-07-28":
        assert not any(s["method"] == "initialize" for s in steps)


@pytest.mark.parametrize(("lang", "sample"), [("zh", "客户端"), ("ru", "клиент"), ("en", "client")])
def test_trace_text_reads_as_a_lesson_in_each_language(capsys, lang, sample):
    code, out, _ = run(capsys, "trace", "handshake", "--format", "text", "--lang", lang)
    assert code == 0 and sample in out.lower()
    assert "──▶" in out


def test_trace_refuses_an_unknown_scenario_and_a_version_it_does_not_run_under(tmp_path, capsys):
    with pytest.raises(SystemExit, match="no scenario 'no-such-scenario'"):
        main(["trace", "no-such-scenario"])
    text = (
        Path("scenarios/pagination.yaml")
        .read_text("utf-8")
        .replace("versions: all", 'versions: ["2026-07-28"]')
    )
    (tmp_path / "pagination.yaml").write_text(text, "utf-8")
    code, out, err = run(
        capsys, "trace", str(tmp_path / "pagination.yaml"), "--protocol-version", "2024-11-05"
    )
    assert code == 2 and out == "" and "runs under 2026-07-28" in err


def test_trace_text_opens_with_the_goals_and_closes_with_the_myths_it_refutes(capsys):
    code, out, _ = run(capsys, "trace", "pagination", "--lang", "ru")
    assert code == 0
    assert "Чему вы научитесь:" in out.split("[  0]")[0]
    tail = out.split("Заблуждения, которые опровергает урок:")[1]
    assert "Миф: Один вызов tools/list возвращает все инструменты." in tail
    assert "(см. шаг " in tail
