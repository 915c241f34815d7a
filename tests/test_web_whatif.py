"""The "What if?" panel over HTTP (app.web.whatif): the page, a move, a refusal in the
student's language, undo, Save as scenario, challenges, and hostile whatif= values.

Each move is a GET that answers 303 to the next what-if's page, so these tests follow what a
student's browser does without JavaScript; tests/test_browser_whatif.py drives the same in
Chromium.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from app.engine.whatif import decode, encode
from app.engine.whatif.model import WhatIf
from app.web.factory import create_app
from tests.conftest import default_engine
from tests.test_hostile import PAYLOADS as CORPUS
from tests.xss import PAYLOADS as XSS

ROOT = Path(__file__).resolve().parent.parent
PAGINATION = "/scenario/pagination?version=2025-11-25&transport=stdio&lang=en"
MOVE = "/scenario/pagination/whatif?version=2025-11-25&transport=stdio&lang=en"
ERROR = re.compile(r'id="whatif-error" role="alert" tabindex="-1">([^<]*)<')


@pytest.fixture(scope="module")
def app() -> Flask:
    """One app for the module: the library (challenges replayed as it loads) is read once."""
    return create_app({"TESTING": True, "LAB_ENGINE": default_engine()})


def counts(page: str) -> dict[str, tuple[str, str]]:
    rows = re.findall(
        r'data-count="(\w+)"[^>]*>\s*<th[^>]*>[^<]*</th>\s*<td>(\d+)</td><td>(\d+)</td>', page
    )
    return {name: (before, after) for name, before, after in rows}


def move(client: FlaskClient, query: str, start: str = MOVE) -> str:
    """Make a move; the what-if page it lands on (after checking the redirect)."""
    answer = client.get(f"{start}&{query}")
    assert answer.status_code == 303, answer.text[:300]
    return str(answer.headers["Location"])


def value_of(location: str) -> str:
    return parse_qs(urlsplit(location).query)["whatif"][0]


def test_the_viewer_has_the_what_if_button_and_a_page_size_per_server(client):
    page = client.get(PAGINATION).text
    assert re.search(
        r'<button[^>]*id="btn-whatif"[^>]*aria-keyshortcuts="W"[^>]*>What if\?</button>', page
    )
    assert re.search(r'<label for="ps-1">Page size \(files\)</label>', page)
    assert 'id="ps-1" type="number" name="value" min="1" max="500" value="3"' in page
    assert "/static/js/whatif.js" in page and "/static/css/whatif.css" in page


def test_a_smaller_page_size_lands_on_the_same_step_with_more_pages_counted(client):
    location = move(client, "step=4&view=transport&change=pageSize&server=files&value=2")
    query = parse_qs(urlsplit(location).query)
    assert query["step"] == ["4"] and query["view"] == ["transport"]
    assert decode(query["whatif"][0]).changes == (
        {"change": "pageSize", "server": "files", "value": 2},
    )
    page = client.get(location)
    assert page.status_code == 200
    text = page.text
    assert 'data-step="3"' in text  # the step on show is the same
    found = counts(text)
    assert found["lists"] == ("4", "5") and found["roundTrips"] == ("5", "6")
    assert "Your changes make a difference from step 6 on." in text
    assert "files serves 2 tools per page." in text  # the engine's description of the change
    assert "You are exploring a what-if: 1 change." in text
    assert "Teach this live" not in text  # a room needs a scenario, not a link's what-if
    # the stepper's links keep the what-if
    assert f"whatif={value_of(location)}" in text


def test_the_socket_of_a_what_if_page_serves_its_trace(app, client):
    from app.web.whatif.routes import socket_lab

    location = move(client, "change=pageSize&server=files&value=2")
    client.get(location)
    value = value_of(location)
    lab = app.extensions["lab"]
    with app.test_request_context(f"/ws/scenario/x?whatif={quote(value)}"):
        shown = socket_lab(lab, "pagination", {"whatif": value})
        assert shown is lab  # the base's own id: the base's socket
        sid = next(k for k in lab.explored._ids if k.startswith("pagination~"))
        mine = socket_lab(lab, sid, {"whatif": value})
        assert len(mine.trace(sid, "2025-11-25", "stdio")) == 16  # the base has 14 steps
        assert socket_lab(lab, sid, {"whatif": "1.garbage"}) is lab  # unreadable: no what-if


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "Change 1: files already has a tool named write_file"),
        ("zh", "write_file"),
        ("ru", "write_file"),
    ],
)
def test_a_refused_move_says_why_in_the_students_language_and_changes_nothing(
    client, lang, sentence
):
    query = "change=renameTool&server=files&name=read_file&to=write_file"
    answer = client.get(f"{MOVE.replace('lang=en', 'lang=' + lang)}&{query}")
    assert answer.status_code == 422
    said = ERROR.search(answer.text)
    assert said and sentence in html.unescape(said.group(1))
    if lang != "en":
        assert "already has a tool" not in said.group(1)  # not the English sentence
    assert "You are exploring a what-if" not in answer.text  # still the scenario as written


def test_a_refused_intervention_keeps_the_what_if_it_was_made_on(client):
    first = value_of(move(client, "change=pageSize&server=files&value=2"))
    answer = client.get(f"{MOVE}&whatif={first}&step=16&change=loseNext&after=15")
    assert answer.status_code == 422
    said = html.unescape(ERROR.search(answer.text).group(1))
    assert said.startswith("Change 2: ")
    assert "You are exploring a what-if: 1 change." in answer.text


def test_interventions_are_undone_one_by_one_and_any_change_can_be_removed(client):
    first = value_of(move(client, "change=pageSize&server=files&value=2"))
    second = value_of(move(client, f"whatif={first}&step=3&change=loseNext&after=2"))
    assert [c["change"] for c in decode(second).changes] == ["pageSize", "loseNext"]
    page = client.get(f"/scenario/pagination?whatif={second}").text
    assert "message-lost" in page or "lost" in page
    undone = move(client, f"whatif={second}&undo=1")
    assert value_of(undone) == first
    dropped = move(client, f"whatif={second}&drop=1")
    assert [c["change"] for c in decode(value_of(dropped)).changes] == ["loseNext"]
    back = move(client, f"whatif={first}&undo=1")  # nothing left: the scenario as written
    assert "whatif" not in parse_qs(urlsplit(back).query)


def test_save_as_scenario_gives_a_file_mcp_lab_validate_accepts(client, tmp_path):
    value = value_of(move(client, "change=pageSize&server=files&value=2"))
    answer = client.get(f"/scenario/pagination/whatif.yaml?whatif={value}")
    assert answer.status_code == 200
    assert 'filename="pagination-what-if.yaml"' in answer.headers["Content-Disposition"]
    saved = tmp_path / "pagination-what-if.yaml"
    saved.write_bytes(answer.data)
    checked = subprocess.run(
        [sys.executable, "-m", "app.cli", "validate", str(saved)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_challenge_shows_its_goal_and_moves_and_says_when_it_is_reached(client):
    start = client.get("/scenario/challenge-silent-server?lang=en").text
    assert "The model is offered desk__merge_tickets in some request." in start
    assert "Not reached yet. Make a move below." in start
    assert "0 moves made, 2 left" in start
    assert 'name="change" value="pageSize"' not in start  # only the moves it allows
    assert 'name="change" value="cache"' in start
    base = "/scenario/challenge-silent-server/whatif?lang=en"
    solved = client.get(move(client, "change=cache&value=false", start=base)).text
    assert "Goal reached with 1 move" in solved
    assert 'data-reached="true" data-moves="1"' in solved
    wrong = client.get(move(client, "change=refreshOnListChanged&value=false", start=base)).text
    assert "Not reached yet: the goal does not hold in this trace." in wrong
    assert "1 move made, 1 left" in wrong


def test_a_move_a_challenge_does_not_allow_is_refused_with_its_sentence(client):
    answer = client.get(
        "/scenario/challenge-silent-server/whatif?lang=en&change=pageSize&server=desk&value=1"
    )
    assert answer.status_code == 422
    said = html.unescape(ERROR.search(answer.text).group(1))
    assert said.startswith("Move 1 (pageSize) is not one this challenge allows.")


def test_a_link_of_another_scenario_goes_to_that_scenario(client):
    value = encode(WhatIf("cache", "2025-11-25", "stdio", ({"change": "cache", "value": False},)))
    answer = client.get(f"/scenario/pagination?whatif={value}")
    assert answer.status_code == 302
    assert answer.headers["Location"].startswith("/scenario/cache?")


HOSTILE = {
    "empty after the dot": "1.",
    "no format": "garbage",
    "another format": "7.AAAA",
    "wrong alphabet": "1.<>!!",
    "4,000 [": "1." + "[" * 4000,
    "oversized": "1." + "A" * 7000,
    "random text": "".join(chr(32 + (i * 37) % 90) for i in range(300)),
    "NaN": '1.{"x":NaN}',
    "nul": "1.\x00\x01",
}


# tests/test_hostile.py's corpus, as the text a link would carry (cut at 100,000 characters:
# no server reads a longer request line, and the codec refuses past 6,000)
HOSTILE |= {f"corpus: {name}": raw[:100_000].decode("latin-1") for name, raw in CORPUS.items()}


@pytest.mark.parametrize(
    "value", [*HOSTILE.values(), *XSS], ids=[*HOSTILE, *[f"xss{n}" for n in range(len(XSS))]]
)
def test_a_hostile_whatif_value_gets_a_sentence_and_nothing_of_it_is_echoed(client, value):
    for path in (
        f"/scenario/pagination?whatif={quote(value, safe='')}",
        f"/scenario/pagination/whatif?whatif={quote(value, safe='')}&change=cache&value=false",
        f"/scenario/pagination/whatif.yaml?whatif={quote(value, safe='')}",
    ):
        answer = client.get(path)
        assert answer.status_code == 400, path
        if "<" in value or '"' in value:
            assert value not in answer.text
        if not path.endswith(".yaml") and "whatif.yaml" not in path:
            assert ERROR.search(answer.text), path
    assert client.get(PAGINATION).status_code == 200  # and the server goes on


@pytest.mark.parametrize("payload", XSS[::5])
def test_hostile_form_fields_are_refused_or_escaped(client, payload):
    q = quote(payload, safe="")
    for query in (
        f"change=addTool&server=files&tool={q}",
        f"change=renameTool&server={q}&name=read_file&to=x",
        f"change={q}",
        f"change=toolSchema&server=files&name=read_file&inputSchema={q}",
        f"change=callTool&after=3&tool=files__read_file&arguments={q}",
        f"change=wait&after={q}&seconds=3",
    ):
        answer = client.get(f"{MOVE}&{query}")
        assert answer.status_code == 422, query
        assert payload not in answer.text
        assert ERROR.search(answer.text), query


def test_the_lesson_summary_says_the_student_explored(client):
    location = move(client, "change=pageSize&server=files&value=2")
    last = client.get(location.replace("step=1", "step=999")).text
    assert "You explored a what-if of this scenario, with 1 change of your own." in last
    assert "This was the last scenario of the course." not in last  # the base's next lesson


def form_of(change: dict) -> str:
    """The panel's form fields that make `change` (what a student fills in and sends)."""
    fields: dict[str, str] = {}
    for key, value in change.items():
        if key == "tool" and isinstance(value, dict):
            fields["tool"] = value["name"]
            if "description" in value:
                fields["description"] = value["description"]
            if "inputSchema" in value:
                fields["inputSchema"] = json.dumps(value["inputSchema"])
        elif key in ("inputSchema", "arguments"):
            fields[key] = json.dumps(value)
        elif isinstance(value, bool):
            fields[key] = "true" if value else "false"
        elif isinstance(value, list):
            fields[key] = ", ".join(map(str, value))
        else:
            fields[key] = str(value)
    return urlencode(fields)


CHALLENGES = sorted(p.stem for p in (ROOT / "scenarios").glob("challenge-*.yaml"))


@pytest.mark.parametrize("sid", CHALLENGES)
def test_each_challenges_solution_can_be_played_from_the_panels_forms(client, sid):
    solution = yaml.safe_load((ROOT / "scenarios" / f"{sid}.yaml").read_text())["challenge"]
    start = f"/scenario/{sid}/whatif?lang=en"
    for change in solution["solution"]:
        location = move(client, form_of(change), start=start)
        start = f"/scenario/{sid}/whatif?lang=en&whatif={value_of(location)}"
        assert decode(value_of(location)).changes[-1] == change
    page = client.get(location).text
    moves = len(solution["solution"])
    assert f"Goal reached with {moves} move" in page


def test_the_panel_alone_in_another_language(client):
    value = value_of(move(client, "change=pageSize&server=files&value=2"))
    answer = client.get(f"/scenario/pagination/whatif/panel?whatif={value}&lang=zh&step=7")
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<section id="whatif"')
    assert 'lang="zh"' in answer.text and "你正在探索一个假设：1 处改动。" in answer.text
    assert 'data-fill="at">7<' in answer.text
    broken = client.get("/scenario/pagination/whatif/panel?whatif=1.x&lang=ru")
    assert broken.status_code == 200 and "whatif-error" in broken.text


def test_a_what_ifs_take_away_links_work_after_its_run_left_the_table(app: Flask) -> None:
    """The trace, handout and embed links of a what-if page carry the what-if, so they work
    however long the student waits: the run is made again when other students' runs pushed it
    out of the table of kept runs."""
    from app.web.whatif.state import runs

    client = app.test_client()
    location = move(client, "change=pageSize&server=files&value=2")
    page = client.get(location).text
    links = {
        name: html.unescape(re.search(rf'id="btn-{name}"[^>]*href="([^"]+)"', page)[1])  # type: ignore[index]
        for name in ("trace", "handout")
    }
    lines_before = client.get(links["trace"]).text.splitlines()
    table = runs(app.extensions["lab"])

    def forget() -> None:  # every other student's run since: ours is gone
        with table._lock:
            table._kept.clear()
            table._ids.clear()

    forget()
    trace = client.get(links["trace"])
    assert trace.status_code == 200 and trace.text.splitlines() == lines_before
    handout = client.get(links["handout"])
    assert handout.status_code == 200 and "tools/list" in handout.text
    forget()
    forged = links["trace"].replace("whatif=", "whatif=x")  # unreadable, or another run
    assert client.get(forged).status_code == 404
