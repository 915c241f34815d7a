"""The viewer opens a recorded session: a `mcp-lab probe --trace` file, uploaded at /recorded or
named by `mcp-lab serve --trace FILE`, shown in the four views like a scenario; a broken file
gets an error naming its line and nothing is kept."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from app.probe.run import probe, write_trace
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.web.factory import create_app


@pytest.fixture(scope="module")
def probe_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real session: the probe against the lab's served pagination server over HTTP."""
    endpoint = McpEndpoint(load_served("pagination", "files"))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    try:
        report = probe([f"http://127.0.0.1:{shell.port}/mcp"], version="2025-11-25", timeout=60)
    finally:
        shell.stop()
        thread.join(5)
    assert report.exit_code == 0
    path = tmp_path_factory.mktemp("traces") / "session.jsonl"
    write_trace(report, str(path))
    return path


@pytest.fixture
def web() -> Iterator[FlaskClient]:
    yield create_app({"TESTING": True}).test_client()


def upload(web: FlaskClient, data: bytes, name: str = "session.jsonl", **headers: str):  # type: ignore[no-untyped-def]
    import io

    return web.post(
        "/recorded",
        data={"trace": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
        headers=headers,
    )


def test_an_uploaded_probe_trace_opens_in_the_viewer(web: FlaskClient, probe_trace: Path) -> None:
    form = web.get("/recorded")
    assert form.status_code == 200
    assert b'type="file"' in form.data and b"<script>" not in form.data
    sent = upload(web, probe_trace.read_bytes())
    assert sent.status_code == 303
    url = sent.headers["Location"]
    assert "/scenario/rec-" in url
    page = web.get(url)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Recorded session: file-server 2.1.0 · 2025-11-25 · http" in text
    steps = [json.loads(line) for line in probe_trace.read_text().splitlines()]
    first_list = next(i for i, s in enumerate(steps) if s["method"] == "tools/list")
    sid = url.split("/scenario/")[1].split("?")[0]
    transport = web.get(f"/scenario/{sid}/step?step={first_list + 1}&view=transport")
    assert transport.status_code == 200
    assert "POST /mcp HTTP/1.1" in transport.get_data(as_text=True)
    listed = web.get("/recorded").get_data(as_text=True)
    assert "Recorded session: file-server" in listed


def test_a_broken_trace_is_refused_with_its_line(web: FlaskClient, probe_trace: Path) -> None:
    lines = probe_trace.read_text().splitlines()
    step = json.loads(lines[2])
    del step["state"]
    broken = "\n".join([lines[0], lines[1], json.dumps(step), *lines[3:]]).encode()
    refused = upload(web, broken)
    assert refused.status_code == 400
    assert "line 3: the step has no &#39;state&#39;" in refused.get_data(as_text=True)
    assert upload(web, b"not json\n").status_code == 400
    assert upload(web, b"").status_code == 400
    assert "rec-" not in web.get("/recorded").get_data(as_text=True)


def test_a_foreign_origin_cannot_upload(web: FlaskClient, probe_trace: Path) -> None:
    sent = upload(web, probe_trace.read_bytes(), Origin="http://elsewhere.example")
    assert sent.status_code == 403


def test_serve_trace_loads_the_file_at_start(
    probe_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_TRACE_FILES", json.dumps([str(probe_trace)]))
    client = create_app({"TESTING": True}).test_client()
    listed = client.get("/recorded").get_data(as_text=True)
    assert "Recorded session: file-server 2.1.0" in listed
    href = listed.split('href="/scenario/rec-')[1].split('"')[0]
    assert client.get("/scenario/rec-" + href.replace("&amp;", "&")).status_code == 200


def test_steps_are_checked_against_the_step_schema(web: FlaskClient, probe_trace: Path) -> None:
    """The schema generated from the step types decides, not a list kept by hand: a key the
    types do not name, or a value of the wrong type deep inside the state, names its place."""
    lines = probe_trace.read_text().splitlines()
    extra, mistyped = json.loads(lines[1]), json.loads(lines[1])
    extra["secret"] = 1
    mistyped["state"]["clockMs"] = "soon"
    for step, said in (
        (extra, "line 2: the step has a key the step format does not know: &#39;secret&#39;"),
        (mistyped, "line 2: &#39;state.clockMs&#39; has the wrong type (string)"),
    ):
        broken = "\n".join([lines[0], json.dumps(step), *lines[2:]]).encode()
        refused = upload(web, broken)
        assert refused.status_code == 400 and said in refused.get_data(as_text=True)


def test_every_scenario_s_trace_is_a_file_the_viewer_takes() -> None:
    """The compiled schema and the step types agree: what `mcp-lab trace --format jsonl`
    prints for every shipped scenario (its default version, both transports) opens as a
    recording."""
    from app.engine.runner import run_trace
    from app.web.recorded import parse_trace
    from tests.test_engine_step import LIBRARY  # loaded once for the suite, at collection

    assert len(LIBRARY.scenarios) > 10
    for scenario in LIBRARY.scenarios.values():
        for transport in scenario.transports:
            steps = run_trace(scenario, scenario.default_version, transport)
            jsonl = "".join(json.dumps(step, ensure_ascii=False) + "\n" for step in steps)
            assert len(parse_trace(jsonl.encode())) == len(steps), (scenario.id, transport)
