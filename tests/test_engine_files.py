"""Broken scenario files give errors naming file, line and field, and never hide the good ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.library import load_library
from app.engine.scenario import ScenarioInvalid, default_scenarios_dir, load_scenario

GOOD = (default_scenarios_dir() / "pagination.yaml").read_text("utf-8")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


def errors_of(path: Path) -> list[str]:
    with pytest.raises(ScenarioInvalid) as caught:
        load_scenario(path)
    return [str(e) for e in caught.value.errors]


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_yaml_syntax_error_names_its_line(tmp_path):
    text = GOOD.replace("pageSize: 3", "pageSize: [3")
    [error] = errors_of(write(tmp_path, "pagination.yaml", text))
    assert error.startswith("pagination.yaml:") and "(yaml)" in error


def test_a_wrong_type_names_the_field_and_its_line(tmp_path):
    text = GOOD.replace("pageSize: 3", "pageSize: three")
    [error] = errors_of(write(tmp_path, "pagination.yaml", text))
    assert error.startswith(
        f"pagination.yaml:{line_of(text, 'pageSize: three')}: servers[0].pageSize:"
    )


def test_an_unknown_key_and_a_missing_translation_are_both_reported(tmp_path):
    text = GOOD.replace("    listChanged: true", "    listChanged: true\n    colour: red")
    text = text.replace('  ru: "Пагинация: собрать все страницы tools/list"\n', "")
    errors = errors_of(write(tmp_path, "pagination.yaml", text))
    assert any("servers[0]: unknown key" in e and "colour" in e for e in errors)
    title_line = line_of(text, "title:")
    assert any(
        e.startswith(f"pagination.yaml:{title_line}: title:") and "'ru'" in e for e in errors
    )


def test_meaning_errors_point_at_the_action(tmp_path):
    text = GOOD.replace("  - send: files", "  - send: mail")
    [error] = errors_of(write(tmp_path, "pagination.yaml", text))
    assert f":{line_of(text, '- send: mail')}: script[4].send: unknown server 'mail'" in error


def test_the_id_must_match_the_file_name(tmp_path):
    [error] = errors_of(write(tmp_path, "other.yaml", GOOD))
    assert error.startswith("other.yaml:1: id:")


def test_not_utf8_and_not_a_mapping_are_clear_errors(tmp_path):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00junk")
    assert "cannot read" in errors_of(binary)[0]
    assert "a scenario is a mapping" in errors_of(write(tmp_path, "list.yaml", "- 1\n- 2\n"))[0]


def test_a_broken_file_never_hides_the_others(tmp_path):
    write(tmp_path, "pagination.yaml", GOOD)
    write(tmp_path, "broken.yaml", "id: broken\ntitle: [unclosed\n")
    library = load_library(tmp_path)
    assert list(library.scenarios) == ["pagination"]
    assert list(library.broken) == ["broken.yaml"]
    assert library.errors[0].file == "broken.yaml" and library.errors[0].line >= 1


def test_folded_chinese_text_loses_the_spaces_yaml_puts_between_characters(tmp_path):
    text = GOOD.replace(
        '  zh: "分页：把 tools/list 的每一页都取回来"',
        "  zh: >-\n    分页：把 tools/list 的\n    每一页都取回来。\n    然后 nextCursor",
    )
    scenario = load_scenario(write(tmp_path, "pagination.yaml", text))
    assert scenario.title["zh"] == "分页：把 tools/list 的每一页都取回来。然后 nextCursor"
