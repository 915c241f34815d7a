"""Verdicts kept on disk: a server that starts again reloads the library without running every
scenario under every version and transport, and an edit to a file, to the scenario schema or to
the validating code is judged afresh."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine import library, verdicts

ROOT = Path(__file__).resolve().parent.parent
PAGINATION = ROOT / "scenarios" / "pagination.yaml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and a process that has judged nothing yet."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LAB_CACHE_DIR", str(folder))
    monkeypatch.setattr(library, "_verdicts", {})
    return folder


def new_process(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Forget what this process judged (as a restarted server has) and record every scenario
    that is run through the meaning checks from now on."""
    judged: list[str] = []
    check = library.check_scenario
    monkeypatch.setattr(library, "_verdicts", {})
    monkeypatch.setattr(
        library, "check_scenario", lambda scenario: judged.append(scenario.id) or check(scenario)
    )
    return judged


def test_a_restarted_lab_reloads_a_valid_file_without_running_it(cache, tmp_path, monkeypatch):
    path = tmp_path / "pagination.yaml"
    shutil.copy(PAGINATION, path)
    first, errors = library.validate(path)
    assert first is not None and errors == []
    assert len(list((cache / "verdicts").glob("*.json"))) == 1

    judged = new_process(monkeypatch)
    again, errors = library.validate(path)
    assert judged == [] and errors == []
    assert again is not None and again.data == first.data


def test_a_broken_file_keeps_its_errors_and_lines(cache, tmp_path, monkeypatch):
    path = tmp_path / "pagination.yaml"
    path.write_text(PAGINATION.read_text("utf-8").replace("name: read_file", "name: 'a b'"))
    _, errors = library.validate(path)
    assert errors and all(e.file == "pagination.yaml" and e.line > 1 for e in errors)

    judged = new_process(monkeypatch)
    assert library.validate(path) == (None, errors)
    assert judged == []


def test_an_edited_file_is_judged_again(cache, tmp_path, monkeypatch):
    path = tmp_path / "pagination.yaml"
    shutil.copy(PAGINATION, path)
    library.validate(path)

    judged = new_process(monkeypatch)
    path.write_text(PAGINATION.read_text("utf-8").replace("name: read_file", "name: 'a b'"))
    scenario, errors = library.validate(path)
    assert judged == ["pagination"]
    assert scenario is None and errors


def test_a_change_to_the_schema_or_the_code_changes_every_key(tmp_path):
    code = tmp_path / "app"
    for package in ("engine", "mcp"):
        shutil.copytree(ROOT / "app" / package, code / package)
    before = verdicts.fingerprint(code)
    assert verdicts.fingerprint(code) == before

    schema = code / "engine" / "scenario.schema.json"
    schema.write_text(schema.read_text("utf-8").replace('"id"', '"id" ', 1), "utf-8")
    after_schema = verdicts.fingerprint(code)
    checks = code / "engine" / "checks.py"
    checks.write_text(checks.read_text("utf-8") + "\nMIN_CHECKPOINTS = 3\n", "utf-8")
    after_code = verdicts.fingerprint(code)
    message_schema = next((code / "mcp" / "schema").rglob("schema.json"))
    message_schema.write_bytes(message_schema.read_bytes() + b"\n")
    assert len({before, after_schema, after_code, verdicts.fingerprint(code)}) == 4


def test_validation_uses_no_code_of_the_lab_that_the_key_leaves_out():
    """The key hashes app/*.py, app/engine and app/mcp; a validating import from elsewhere in
    the lab (app.web, app.serving, ...) could change a verdict without changing its key."""
    program = (
        "import sys; from app.engine.library import validate; "
        f"validate({str(PAGINATION)!r}); "
        "print(' '.join(m for m in sys.modules if m == 'app' or m.startswith('app.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert "app.engine.checks" in loaded
    top = {path.stem for path in (ROOT / "app").glob("*.py")}
    inside = ("app.engine", "app.mcp")
    outside = {
        m
        for m in loaded
        if m not in inside
        and not m.startswith(("app.engine.", "app.mcp."))
        and m.removeprefix("app.") not in top
    }
    assert outside <= {"app"}


def test_a_change_to_a_module_at_the_top_of_the_lab_changes_every_key(tmp_path):
    code = tmp_path / "app"
    for package in ("engine", "mcp"):
        shutil.copytree(ROOT / "app" / package, code / package)
    for module in (ROOT / "app").glob("*.py"):
        shutil.copy(module, code / module.name)
    before = verdicts.fingerprint(code)
    reader = code / "bounded_json.py"
    reader.write_text(reader.read_text("utf-8") + "\n# changed\n", "utf-8")
    assert verdicts.fingerprint(code) != before


def test_a_cache_that_cannot_be_written_or_read_only_costs_time(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("LAB_CACHE_DIR", str(blocked))
    monkeypatch.setattr(library, "_verdicts", {})
    scenario, errors = library.validate(PAGINATION)
    assert scenario is not None and errors == []

    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(library, "_verdicts", {})
    library.validate(PAGINATION)
    [entry] = (tmp_path / "cache" / "verdicts").glob("*.json")
    entry.write_text('{"errors": [["half')
    judged = new_process(monkeypatch)
    assert library.validate(PAGINATION)[0] is not None
    assert judged == ["pagination"]
