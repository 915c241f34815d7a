"""The Code view served: its region in the page and over the socket's paths, and its part loaded
by itself (a room sends it as a placeholder when it is large)."""

from __future__ import annotations

from flask.testing import FlaskClient


def test_the_page_has_a_fifth_view_named_code(client: FlaskClient) -> None:
    html = client.get("/scenario/pagination?step=2&view=code&version=2025-11-25").get_data(True)
    assert 'id="tab-code"' in html and 'aria-keyshortcuts="5"' in html
    assert 'data-view="code"' in html
    assert "await session.initialize()" in html
    assert "mcp-lab example pagination --protocol-version 2025-11-25 --transport stdio" in html


def test_an_unknown_view_falls_back_to_the_overview(client: FlaskClient) -> None:
    html = client.get("/scenario/pagination?view=kode").get_data(True)
    assert 'data-view="overview"' in html


def test_the_code_part_loads_by_itself_in_the_page_language(client: FlaskClient) -> None:
    query = "version=2025-11-25&transport=stdio&lang=ru"
    response = client.get(f"/scenario/pagination/part/1/code-step?{query}")
    assert response.status_code == 200
    body = response.get_data(True)
    assert body.startswith('<div id="code-step">') and "session.initialize()" in body
    assert "Сторона клиента" in body
    assert client.get(f"/scenario/pagination/part/1/no-such-part?{query}").status_code == 404


def test_a_recorded_session_has_code_but_no_lesson_command(client: FlaskClient) -> None:
    import io

    from app.engine.jsonl import jsonl_lines
    from app.engine.library import load_library
    from app.engine.runner import run_trace
    from app.engine.scenario import default_scenarios_dir

    scenario = load_library(default_scenarios_dir()).scenarios["pagination"]
    data = "".join(jsonl_lines(run_trace(scenario, "2025-11-25", "stdio"))).encode()
    sent = client.post(
        "/recorded",
        data={"trace": (io.BytesIO(data), "session.jsonl")},
        content_type="multipart/form-data",
    )
    assert sent.status_code == 303
    html = client.get(sent.headers["Location"] + "&step=2&view=code").get_data(True)
    assert "await session.initialize()" in html  # the same step, the same code
    assert "The whole lesson, for real" not in html  # a recording is no lesson to print
