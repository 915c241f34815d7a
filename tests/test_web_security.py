"""Security headers on every kind of response, and the Origin check on websocket upgrades.

Headers are checked through Flask's test client for each response type a browser meets: a full
page, an htmx fragment, a 404 and a static file. The Origin check needs a real handshake, so it
talks to the threaded `live_server` with a raw handshake (tests/rawws.py): 403 for a
foreign Origin, 101 for none (a script, the SDK) and for the lab's own origin.
"""

from __future__ import annotations

import pytest
from flask import Flask

from app.web.factory import create_app
from app.web.security import content_security_policy, origin_allowed
from tests.rawws import upgrade

STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'self'"
)


def assert_secure(response) -> None:
    headers = response.headers
    assert headers["Content-Security-Policy"] == STRICT
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    assert "unsafe-eval" not in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/", {}, 200),
        ("/scenario/pagination?step=2", {}, 200),
        ("/scenario/pagination?step=2", {"HX-Request": "true"}, 200),  # an htmx fragment
        ("/scenario/pagination/step?step=3", {}, 200),
        ("/scenario/no-such-thing", {}, 404),
        ("/nowhere", {}, 404),
        ("/static/css/lab.css", {}, 200),
        ("/static/js/viewer.js", {}, 200),
    ],
)
def test_every_response_type_carries_the_security_headers(client, path, headers, status):
    with client.get(path, headers=headers) as response:  # closes a static file's handle
        assert response.status_code == status
        assert_secure(response)


def test_pages_carry_no_inline_script_or_style(client):
    for path in ("/", "/scenario/pagination?step=4", "/scenario/cache?step=3", "/nowhere"):
        text = client.get(path).get_data(as_text=True)
        assert " style=" not in text and "<style" not in text, path
        assert "<script>" not in text and "<script " not in text.replace("<script src=", ""), path


def test_htmx_is_configured_from_a_meta_tag_to_need_no_inline_style_or_eval(client):
    text = client.get("/scenario/pagination").get_data(as_text=True)
    assert '"includeIndicatorStyles":false' in text
    assert '"allowEval":false' in text
    assert '"allowScriptTags":false' in text


def test_frame_ancestors_come_from_lab_frame_ancestors(lab_engine, monkeypatch):
    monkeypatch.setenv("LAB_FRAME_ANCESTORS", "https://course.example.org https://lms.example")
    app = create_app({"TESTING": True, "LAB_ENGINE": lab_engine})
    policy = app.test_client().get("/").headers["Content-Security-Policy"]
    assert policy.endswith("frame-ancestors 'self' https://course.example.org https://lms.example")
    assert content_security_policy(None).endswith("frame-ancestors 'self'")


def test_origin_rules():
    assert origin_allowed(None, "127.0.0.1:5000", [])
    assert origin_allowed("http://127.0.0.1:5000", "127.0.0.1:5000", [])
    assert origin_allowed("https://LAB.example:443", "lab.example:443", [])
    assert not origin_allowed("http://127.0.0.1:5001", "127.0.0.1:5000", [])
    assert not origin_allowed("http://evil.example", "127.0.0.1:5000", [])
    assert not origin_allowed("null", "127.0.0.1:5000", [])
    assert not origin_allowed("file://127.0.0.1:5000", "127.0.0.1:5000", [])
    assert origin_allowed(
        "https://lab.school.example", "10.0.0.2:5000", ["https://lab.school.example"]
    )


def upgrade_status(base: str, path: str, origin: str | None) -> int:
    sock, status = upgrade(base, path, origin)
    sock.close()
    return status


def test_a_websocket_from_a_foreign_origin_is_refused_before_the_handshake(live_server):
    assert upgrade_status(live_server, "/ws/scenario/pagination", "http://evil.example") == 403
    assert upgrade_status(live_server, "/ws/scenario/pagination", "null") == 403


def test_a_websocket_without_origin_or_from_the_lab_itself_opens(live_server):
    assert upgrade_status(live_server, "/ws/scenario/pagination", None) == 101
    assert upgrade_status(live_server, "/ws/scenario/pagination", live_server) == 101


def test_the_origin_check_covers_websocket_routes_added_later(lab_engine):
    from flask_sock import Sock

    app: Flask = create_app({"TESTING": True, "LAB_ENGINE": lab_engine})
    sock = Sock(app)

    @sock.route("/ws/later")
    def later(ws):  # pragma: no cover - never reached: refused before the view
        ws.send("hello")

    refused = app.test_client().get(
        "/ws/later",
        headers={"Upgrade": "websocket", "Connection": "Upgrade", "Origin": "http://evil.example"},
    )
    assert refused.status_code == 403
    assert_secure(refused)
