"""The authoring backend /author will call: a scenario typed as text gets exactly the errors
`mcp-lab validate` prints for the same file, or its scenario and a trace to preview; hostile
text (huge, alias bombs, deep nesting) gets an error line, never a hang or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.engine.authoring import MAX_CHARS, preview
from app.engine.scenario import default_scenarios_dir

PAGINATION = (default_scenarios_dir() / "pagination.yaml").read_text("utf-8")


def validate_lines(tmp_path: Path, capsys, text: str, name: str = "pagination.yaml") -> list[str]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    main(["validate", str(path)])
    return capsys.readouterr().out.splitlines()


def test_a_good_scenario_previews_its_trace_in_the_version_asked_for():
    shown = preview(PAGINATION, "pagination.yaml", version="2026-07-28", transport="http")
    assert shown.errors == [] and shown.scenario is not None and shown.trace is not None
    assert (shown.version, shown.transport) == ("2026-07-28", "http")
    assert (
        shown.trace[0]["protocolVersion"] == "2026-07-28" and shown.trace[-1]["kind"] == "terminal"
    )
    fallback = preview(PAGINATION, "pagination.yaml", version="1999-01-01")
    assert fallback.version == "2026-07-28" and fallback.transport == "stdio"


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("pageSize: 3", "pageSize: three"),  # a schema error
        lambda t: t.replace("list_tools: files", "list_tools: nowhere", 1),  # a rule
        lambda t: t.replace("  - connect: files", "  - connect: files\n  bad: [", 1),  # YAML
        lambda t: t.replace("answer: 0", "answer: 2", 1),  # a meaning check: the answer key
    ],
)
def test_errors_are_the_ones_mcp_lab_validate_prints(tmp_path, capsys, edit):
    text = edit(PAGINATION)
    shown = preview(text, "pagination.yaml")
    assert shown.errors and shown.trace is None
    assert shown.lines == validate_lines(tmp_path, capsys, text)
    assert all(line.startswith("pagination.yaml:") for line in shown.lines)


def test_a_challenge_typed_in_the_editor_is_checked_like_a_file(tmp_path, capsys):
    text = (default_scenarios_dir() / "challenge-silent-server.yaml").read_text("utf-8")
    assert preview(text, "challenge-silent-server.yaml").errors == []
    broken = text.replace("{change: cache, value: false}", "{change: poll, seconds: 600}")
    shown = preview(broken, "challenge-silent-server.yaml")
    assert any("the solution does not reach the goal" in line for line in shown.lines)
    assert shown.lines == validate_lines(tmp_path, capsys, broken, "challenge-silent-server.yaml")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x" * (MAX_CHARS + 1), "at most"),
        (
            "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
            + "".join(
                f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
                for p, c in zip("abcdef", "bcdefg", strict=True)
            ),
            "aliases are expanded",
        ),
        ("[" * 5000 + "]" * 5000, "nested deeper"),
        ("a:\n" + "".join("  " * n + f"k{n}:\n" for n in range(1, 60)), "nested deeper"),
        ("- just\n- a list\n", "a scenario is a mapping"),
        ("id: x\n\tbad", "(yaml)"),
    ],
)
def test_hostile_text_gets_an_error_line_not_a_hang(text, said):
    shown = preview(text)
    assert shown.trace is None and shown.errors
    assert said in shown.lines[0]
    assert shown.lines[0].startswith("scenario.yaml:")


def test_one_preview_plays_each_run_once_and_all_of_them_within_one_budget(monkeypatch):
    """A text declaring every version and transport buys dozens of capped runs with one
    request; the preview stops at its total budget with a line saying so."""
    import app.engine.authoring as authoring

    played: list[tuple[str, str]] = []
    real = authoring.capped_run

    def counting(scenario, version, transport, seconds):
        played.append((version, transport))
        return real(scenario, version, transport, seconds)

    monkeypatch.setattr(authoring, "capped_run", counting)
    shown = preview(PAGINATION, "pagination.yaml")
    assert shown.errors == [] and shown.trace is not None
    assert (
        len(played)
        == len(set(played))
        == len(shown.scenario.versions) * len(shown.scenario.transports)
    )

    class Clock:  # each reading is 7.5 s on: the budget of 20 s holds two runs
        now = 0.0

        def monotonic(self) -> float:
            self.now += 7.5
            return self.now

    played.clear()
    monkeypatch.setattr(authoring, "time", Clock())
    slow = preview(PAGINATION, "pagination.yaml")
    assert slow.trace is None and len(played) < len(shown.scenario.versions) * len(
        shown.scenario.transports
    )
    assert [e.field for e in slow.errors] == ["(file)"]
    assert "took longer than 20 s" in slow.lines[0]
