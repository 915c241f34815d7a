"""One validation: the web library serves a file only if `mcp-lab validate` accepts it.

A scenario that loads (its YAML and schema are fine) but fails the meaning checks, here a tool
name the MCP schema forbids, used to appear in the web library although the CLI rejected it.
Now both act on `app.engine.library.validate`, and a file with several errors is one card.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from app.cli import main
from app.engine.library import validate
from app.web.factory import create_app

ROOT = Path(__file__).resolve().parent.parent


def copy_with(tmp: Path, name: str, edit) -> Path:
    source = (ROOT / "scenarios" / "pagination.yaml").read_text("utf-8")
    path = tmp / name
    path.write_text(edit(source), "utf-8")
    return path


def test_a_file_the_cli_rejects_is_not_served_and_one_card_lists_all_its_errors(tmp_path, capsys):
    shutil.copy(ROOT / "scenarios" / "cache.yaml", tmp_path / "cache.yaml")
    # Every tool name becomes one the MCP schema's pattern refuses: several errors, one file.
    bad = copy_with(
        tmp_path,
        "pagination.yaml",
        lambda text: re.sub(r"(\n\s*- name: )(\w+)", r"\1<script>\2</script>", text),
    )
    assert main(["validate", str(bad)]) == 1
    printed = [line for line in capsys.readouterr().out.splitlines() if line]
    assert len(printed) >= 2
    assert all(re.match(r"pagination\.yaml:\d+: [\w.\[\]]+: .+", line) for line in printed)
    scenario, errors = validate(bad)
    assert scenario is None and [str(e) for e in errors] == printed

    app = create_app({"TESTING": True, "SCENARIOS_DIR": str(tmp_path)})
    html = app.test_client().get("/").get_data(as_text=True)
    assert html.count('class="card unavailable"') == 1
    assert app.test_client().get("/scenario/pagination").status_code == 404
    assert app.test_client().get("/scenario/cache").status_code == 200
    card = html[html.index('class="card unavailable"') :]
    for line in printed:
        assert line.replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;") in card


def test_a_valid_file_is_served_and_validates(tmp_path):
    good = copy_with(tmp_path, "pagination.yaml", lambda text: text)
    scenario, errors = validate(good)
    assert errors == [] and scenario is not None and scenario.id == "pagination"
    assert main(["validate", str(good)]) == 0
