"""Course modules over plain HTTP: exports, the embed's frame policy, the summary fragment."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from app.engine.jsonl import jsonl_lines
from app.web.course import question_key, questions
from app.web.factory import create_app
from tests.test_web_pages import answers


def test_trace_jsonl_is_the_trace_on_screen_one_step_a_line(client: FlaskClient, app: Flask):
    response = client.get("/scenario/pagination/trace.jsonl?version=2024-11-05&transport=http")
    assert response.status_code == 200
    assert response.mimetype == "application/x-ndjson"
    with app.app_context():
        trace = app.extensions["lab"].trace("pagination", "2024-11-05", "http")
    assert response.data == "".join(jsonl_lines(trace)).encode()
    assert response.data.count(b"\n") == len(trace)
    assert client.get("/scenario/nope/trace.jsonl").status_code == 404


def test_without_chromium_the_pdf_download_says_to_print_from_the_browser(app: Flask):
    app.config["CHROMIUM"] = "/nonexistent/chromium"
    response = app.test_client().get("/scenario/cache/handout.pdf?lang=ru")
    assert response.status_code == 503
    assert "PDF" in response.get_data(as_text=True)
    assert "Chromium" in response.get_data(as_text=True)


def test_the_embed_may_be_framed_only_by_configured_origins(lab_engine):
    app = create_app(
        {
            "TESTING": True,
            "LAB_ENGINE": lab_engine,
            "FRAME_ANCESTORS": "https://course.example.org https://lms.example/",
        }
    )
    past = answers(app, "handshake")  # handshake asks at its first step: answered, it goes on
    response = app.test_client().get(f"/embed/handshake?lang=zh&step=3&{past}")
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://course.example.org https://lms.example" in policy
    html = response.get_data(as_text=True)
    assert 'class="viewer embedded"' in html
    assert 'data-embed-origins="https://course.example.org https://lms.example"' in html
    assert 'data-step="2"' in html  # step=3 in the URL is the third step, as in the viewer


def test_only_the_last_step_carries_the_summary_with_every_question_linked(
    client: FlaskClient, app: Flask
):
    with app.app_context():
        trace = app.extensions["lab"].trace("cache", "2026-07-28", "stdio")
    asked = questions(trace)
    middle = client.get("/scenario/cache/step?step=2").get_data(as_text=True)
    assert '<section id="summary" class="summary-step" hidden></section>' in middle
    past = answers(app, "cache", "2026-07-28", "stdio")  # a deep link stops at open questions
    last = client.get(f"/scenario/cache/step?step={len(trace)}&{past}").get_data(as_text=True)
    for q in asked:
        assert f'data-question="{q["key"]}"' in last
        assert f'"step": {q["step"]}' in last
    assert 'id="summary-next"' in last


def test_a_question_key_names_what_is_asked_not_where():
    checkpoint = {"question": {"en": "Q?"}, "choices": [{"text": {"en": "a"}}], "answer": 0}
    moved = dict(checkpoint, action=7)
    assert question_key(checkpoint) == question_key(moved)
    assert question_key(checkpoint) != question_key(dict(checkpoint, answer=1))
    assert question_key(None) == ""
