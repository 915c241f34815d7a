"""The scenario editor's routes (/author): errors in mcp-lab validate's words, the preview, share
links that reproduce the text, bounds on everything typed, and the instructor's save, refused
from other sites, outside the library folder and from other machines without the key."""

from __future__ import annotations

import base64
import html
import random
import re
import shutil
import urllib.parse
import urllib.request
import zlib
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.engine.authoring import MAX_CHARS, preview
from app.engine.scenario import default_scenarios_dir
from app.engine.whatif import WhatIf, encode
from app.web.author import share
from app.web.factory import create_app
from tests.hostile import gunicorn

SHIPPED = default_scenarios_dir()
SMALL = (SHIPPED / "challenge-silent-server.yaml").read_text("utf-8")
OWN = {"Sec-Fetch-Site": "same-origin"}
HTMX = OWN | {"HX-Request": "true"}
KEY = "correct horse battery staple"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A library folder of the instructor's own, with one challenge in it."""
    shutil.copy(SHIPPED / "challenge-silent-server.yaml", tmp_path)
    return tmp_path


@pytest.fixture
def web(folder: Path) -> Flask:
    return create_app({"TESTING": True, "SCENARIOS_DIR": str(folder), "INSTRUCTOR_KEY": KEY})


@pytest.fixture
def client(web: Flask) -> FlaskClient:
    return web.test_client()


def textarea(page: str) -> str:
    found = re.search(r'<textarea id="author-text"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def error_lines(page: str) -> list[str]:
    return [
        html.unescape(s) for s in re.findall(r'<code class="error-line">(.*?)</code>', page, re.S)
    ]


def status(page: str) -> str:
    found = re.search(r'id="author-status"[^>]*>(.*?)</(?:p|span)>', page, re.S)
    return html.unescape(found.group(1)).strip() if found else ""


def test_the_editor_answers_200_and_starts_from_a_scenario_of_the_library(client):
    empty = client.get("/author").get_data(as_text=True)
    assert textarea(empty) == "" and "Nothing to check yet." in empty
    page = client.get("/author?from=challenge-silent-server").get_data(as_text=True)
    assert textarea(page) == SMALL
    assert 'value="challenge-silent-server.yaml"' in page
    assert status(page).startswith("No errors. The preview has")
    assert 'id="panel-overview"' in page and 'id="panel-output"' in page
    missing = client.get("/author?from=nowhere").get_data(as_text=True)
    assert "There is no scenario nowhere in the library." in missing


def test_errors_are_the_cli_s_lines_and_a_fix_brings_the_preview_back(client):
    broken = SMALL.replace("listChanged: false", "listChanged: maybe", 1)
    data = {"text": broken, "name": "challenge-silent-server.yaml"}
    page = client.post("/author/check", data=data, headers=HTMX).get_data(as_text=True)
    expected = preview(broken, "challenge-silent-server.yaml").lines
    assert expected and error_lines(page) == expected
    assert re.match(r"challenge-silent-server\.yaml:\d+: servers\[0\]\.listChanged: ", expected[0])
    line = expected[0].split(":")[1]
    assert f'data-line="{line}"' in page and 'id="author-preview"' not in page
    fixed = client.post("/author/check", data=data | {"text": SMALL}, headers=HTMX)
    shown = fixed.get_data(as_text=True)
    assert error_lines(shown) == [] and "Step 1 of " in shown and 'id="panel-transport"' in shown


def test_the_preview_steps_and_clamps_the_step_asked_for(client):
    steps = len(preview(SMALL).trace or [])
    for asked, shown in (("3", 3), ("0", 1), ("999999", steps), ("-2", 1), ("x", 1)):
        page = client.post("/author/check", data={"text": SMALL, "go": asked}, headers=HTMX)
        assert f"Step {shown} of {steps}" in page.get_data(as_text=True), asked


def test_windows_line_endings_are_the_same_text(client):
    crlf = SMALL.replace("\n", "\r\n")
    page = client.post("/author", data={"text": crlf}, headers=OWN).get_data(as_text=True)
    assert textarea(page) == SMALL and status(page).startswith("No errors")


def test_a_share_link_gives_back_the_same_text(client):
    page = client.post("/author/check", data={"text": SMALL}, headers=HTMX).get_data(as_text=True)
    link = html.unescape(re.search(r'id="author-link"[^>]*value="([^"]+)"', page).group(1))
    assert "/author?scenario=1." in link and len(link) < 8190
    opened = client.get(link[link.index("/author") :]).get_data(as_text=True)
    assert textarea(opened) == SMALL


def test_a_text_too_long_for_a_link_says_to_download_it(client):
    long = (SHIPPED / "tool-search.yaml").read_text("utf-8")
    page = client.post("/author/check", data={"text": long}, headers=HTMX).get_data(as_text=True)
    assert "Too long for a link" in page and 'id="author-link"' not in page


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("1." + "A" * (share.MAX_VALUE + 1), "Too long for a link"),
        ("9.AAAA", "another version of the lab"),
        ("1.!!!!", "damaged"),
        ("not a link", "damaged"),
        ("1." + share.encode(SMALL)[2:-40], "damaged"),  # cut short
        ("", "Nothing to check yet."),
    ],
)
def test_a_bad_share_link_gets_a_sentence_and_the_server_goes_on(client, value, said):
    page = client.get("/author", query_string={"scenario": value})
    assert page.status_code == 200 and said in page.get_data(as_text=True)
    assert client.get("/author?from=challenge-silent-server").status_code == 200


def pack(data: bytes) -> str:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return "1." + base64.urlsafe_b64encode(packer.compress(data) + packer.flush()).decode().rstrip(
        "="
    )


def test_a_link_cannot_inflate_past_the_bound():
    assert share.decode(pack(b"a" * share.MAX_BYTES)) == "a" * share.MAX_BYTES
    bomb = pack(b"a" * 50 * share.MAX_BYTES)  # a few hundred characters, 3 MB inflated
    assert len(bomb) < 5000
    with pytest.raises(share.ShareError) as inflated:
        share.decode(bomb)
    assert inflated.value.key == "too-long"
    with pytest.raises(share.ShareError) as latin:
        share.decode(pack("é".encode("latin-1")))
    assert latin.value.key == "unreadable"
    with pytest.raises(share.ShareError) as refused:
        share.encode("c" * (share.MAX_BYTES + 1))
    assert refused.value.key == "too-long"


def test_a_what_if_opens_as_its_saved_scenario_and_shares_as_whatif(client):
    value = encode(
        WhatIf(
            "challenge-silent-server", "2025-11-25", "stdio", ({"change": "cache", "value": False},)
        )
    )
    page = client.get("/author", query_string={"whatif": value}).get_data(as_text=True)
    text = textarea(page)
    assert "whatIf:" in text and status(page).startswith("No errors")
    assert f"/author?whatif={value}" in html.unescape(page)
    edited = client.post(
        "/author/check",
        data={
            "text": text + "\n# mine\n",
            "whatif": value,
            "origin": re.search(r'name="origin" value="(\w+)"', page).group(1),
        },
        headers=HTMX,
    ).get_data(as_text=True)
    assert "/author?scenario=1." in html.unescape(edited)  # no longer that what-if
    bad = client.get("/author", query_string={"whatif": "1.AAAA"}).get_data(as_text=True)
    assert 'id="author-start-error"' in bad


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x" * (MAX_CHARS + 1), "at most"),
        ("[" * 5000 + "]" * 5000, "nested deeper"),
        ("id: x\x00\x07", "(yaml)"),
    ],
)
def test_hostile_text_gets_an_error_line(client, text, said):
    """The engine's bounds (tests/test_whatif_authoring.py has them all), through the page."""
    page = client.post("/author/check", data={"text": text}, headers=HTMX)
    assert page.status_code == 200
    assert said in " ".join(error_lines(page.get_data(as_text=True)))


def test_a_body_past_the_bound_is_a_413_page(client):
    page = client.post("/author/check", data={"text": "x" * (2 * 1024 * 1024)}, headers=OWN)
    assert page.status_code == 413


def test_download_is_the_text_as_its_file(client):
    got = client.post("/author/download", data={"text": SMALL, "name": "mine.yaml"}, headers=OWN)
    assert got.get_data(as_text=True) == SMALL
    assert got.headers["Content-Disposition"] == 'attachment; filename="mine.yaml"'
    odd = client.post(
        "/author/download", data={"text": "a", "name": '../"x\r\nY: z.yaml'}, headers=OWN
    )
    assert odd.headers["Content-Disposition"] == 'attachment; filename="scenario.yaml"'


# --- Saving into the library folder ---

MINE = SMALL.replace("id: challenge-silent-server", "id: my-challenge", 1)


def save(
    client: FlaskClient, text: str = MINE, name: str = "my-challenge.yaml", headers=HTMX, **more
):
    environ = {"REMOTE_ADDR": more.pop("remote", "127.0.0.1")}
    return client.post(
        "/author/save",
        data={"text": text, "name": name, **more},
        headers=headers,
        environ_base=environ,
    )


def test_the_instructor_saves_on_the_lab_s_machine_and_the_library_lists_it(client, folder):
    answer = save(client)
    assert (
        answer.status_code == 200
        and "Saved into the library as my-challenge.yaml" in answer.get_data(as_text=True)
    )
    assert (folder / "my-challenge.yaml").read_text("utf-8") == MINE
    assert 'id="card-my-challenge"' in client.get("/").get_data(as_text=True)
    again = save(client)
    assert again.status_code == 409 and "tick Replace" in again.get_data(as_text=True)
    assert save(client, replace="1").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://localhost:5001", "Sec-Fetch-Site": "same-site"},
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
    ],
)
def test_a_save_from_another_site_is_refused_by_the_guard(client, folder, headers):
    answer = save(client, headers=headers, key=KEY)
    assert answer.status_code == 403 and not (folder / "my-challenge.yaml").exists()


@pytest.mark.parametrize(
    ("remote", "headers"),
    [
        ("10.0.0.7", HTMX),  # another machine
        ("127.0.0.1", HTMX | {"X-Forwarded-For": "203.0.113.9"}),  # a proxy on this machine
        ("127.0.0.1", HTMX | {"Forwarded": "for=203.0.113.9"}),
        ("127.0.0.1", HTMX | {"Host": "rebound.example"}),  # DNS rebinding to 127.0.0.1
    ],
)
def test_a_save_from_elsewhere_needs_the_instructor_s_key(client, folder, remote, headers):
    refused = save(client, headers=headers, remote=remote)
    assert refused.status_code == 403 and "Only the instructor" in refused.get_data(as_text=True)
    assert save(client, headers=headers, remote=remote, key="guess").status_code == 403
    assert not (folder / "my-challenge.yaml").exists()
    assert save(client, headers=headers, remote=remote, key=KEY).status_code == 200
    assert (folder / "my-challenge.yaml").exists()


def test_without_a_configured_key_no_key_opens_the_library(folder):
    client = create_app({"TESTING": True, "SCENARIOS_DIR": str(folder)}).test_client()
    assert save(client, remote="10.0.0.7", key="").status_code == 403
    assert save(client, remote="10.0.0.7", key="anything").status_code == 403


@pytest.mark.parametrize(
    "name",
    [
        "../my-challenge.yaml",
        "/etc/my-challenge.yaml",
        "sub/my-challenge.yaml",
        "..\\my-challenge.yaml",
        ".my-challenge.yaml",
        "My-Challenge.yaml",
        "my-challenge.yaml\x00.txt",
        "my-challenge.yml",
        "my-challenge",
        "%2e%2e%2fmy-challenge.yaml",
        "my-challenge.yaml/",
        "ｍｙ-challenge.yaml",
        "a" * 70 + ".yaml",
    ],
)
def test_a_hostile_file_name_is_refused_and_nothing_is_written(
    client, folder, tmp_path_factory, name
):
    before = sorted(p.name for p in folder.iterdir())
    answer = save(client, name=name)
    assert answer.status_code == 400 and "A file name is" in answer.get_data(as_text=True)
    assert sorted(p.name for p in folder.iterdir()) == before
    assert not (folder.parent / "my-challenge.yaml").exists()


def test_a_text_not_named_yet_is_saved_under_its_id(client, folder):
    answer = save(client, name="")
    assert answer.status_code == 200 and (folder / "my-challenge.yaml").read_text("utf-8") == MINE


def test_a_name_that_is_not_the_id_or_a_link_out_of_the_folder_is_refused(client, folder, tmp_path):
    other = save(client, name="other-name.yaml")
    assert other.status_code == 400 and "followed by .yaml" in other.get_data(as_text=True)
    outside = tmp_path.parent / f"outside-{tmp_path.name}.yaml"
    (folder / "my-challenge.yaml").symlink_to(outside)
    linked = save(client, replace="1")
    assert linked.status_code == 400 and "outside the library folder" in linked.get_data(
        as_text=True
    )
    assert not outside.exists()


def test_only_a_valid_scenario_is_saved(client, folder):
    broken = MINE.replace("listChanged: false", "listChanged: maybe", 1)
    answer = save(client, text=broken)
    assert answer.status_code == 400 and "without errors" in answer.get_data(as_text=True)
    assert not (folder / "my-challenge.yaml").exists()


def test_without_javascript_a_save_answers_with_the_whole_editor(client, folder):
    answer = save(client, headers=OWN)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200 and textarea(page) == MINE and "Saved into the library" in page


# --- The library lists challenges apart ---


def test_the_library_lists_challenges_apart_from_lessons_with_their_goal():
    page = create_app({"TESTING": True}).test_client().get("/?lang=en").get_data(as_text=True)
    lessons, challenges = page.split('id="challenges-title"')
    assert 'id="card-pagination"' in lessons and 'id="card-challenge-' not in lessons
    assert challenges.count('class="card challenge"') >= 6
    card = challenges.split('id="card-challenge-silent-server"')[1].split("</li>")[0]
    assert "Goal" in card and "desk__merge_tickets" in card and "1 move" in card
    zh = create_app({"TESTING": True}).test_client().get("/?lang=zh").get_data(as_text=True)
    assert "挑战" in zh and "目标" in zh


# --- Under gunicorn's gevent worker, as `mcp-lab serve` runs it ---


def test_under_gevent_a_check_runs_and_a_long_share_link_fits_the_request_line():
    """The check leaves the hub for a native thread (app.web.author.checking) and comes back
    with the same lines; a link of nearly 8,000 characters passes gunicorn's request line."""
    noise = base64.b64encode(random.Random(17).randbytes(3_000)).decode()
    text = SMALL + f"# {noise}\n"
    value = share.encode(text)
    assert 7_000 < len(value) <= share.MAX_VALUE
    broken = SMALL.replace("listChanged: false", "listChanged: maybe", 1)
    body = urllib.parse.urlencode({"text": broken}).encode()
    with gunicorn() as (base, _):
        checked = urllib.request.Request(f"{base}/author/check", body, OWN | {"HX-Request": "1"})
        with urllib.request.urlopen(checked, timeout=120) as answer:
            assert error_lines(answer.read().decode()) == preview(broken).lines
        with urllib.request.urlopen(f"{base}/author?scenario={value}", timeout=120) as answer:
            assert textarea(answer.read().decode()) == text
