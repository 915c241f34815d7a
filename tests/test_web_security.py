"""Security headers on every kind of response, and the guard's answers as a person meets them.

Headers are checked through Flask's test client for each response type a browser meets: a full
page, an htmx fragment, a 404, a static file and the guard's own refusals. The guard needs a
real handshake for websockets, so those talk to the threaded `live_server` with a raw handshake
(tests/rawws.py): 403 for a foreign Origin, 101 for none (a script, the SDK) and for the lab's
own origin. The same cases against every POST and socket of the app are in test_hostile.py.
"""

from __future__ import annotations

import pytest
from flask import Flask

from app.web.factory import create_app
from app.web.security import CROSS_SITE, content_security_policy
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


def test_a_refused_post_is_a_page_in_the_reader_s_language_and_changes_nothing(client):
    refused = client.post(
        "/live",
        data={"scenario": "pagination"},
        headers={
            "Origin": "http://evil.example",
            "Sec-Fetch-Site": "cross-site",
            "Accept-Language": "ru",
        },
    )
    assert refused.status_code == 403
    assert_secure(refused)
    text = refused.get_data(as_text=True)
    assert '<html lang="ru"' in text and "с другого сайта" in text
    assert "Set-Cookie" not in refused.headers  # no room, no instructor cookie


def test_lab_allowed_origins_lets_a_named_site_post(lab_engine, monkeypatch):
    monkeypatch.setenv("LAB_ALLOWED_ORIGINS", "https://lab.school.example")
    app = create_app({"TESTING": True, "LAB_ENGINE": lab_engine})
    named = {"Origin": "https://lab.school.example", "Sec-Fetch-Site": "cross-site"}
    assert (
        app.test_client().post("/live", data={"scenario": "pagination"}, headers=named).status_code
        == 303
    )
    other = {"Origin": "https://other.school.example", "Sec-Fetch-Site": "cross-site"}
    assert (
        app.test_client().post("/live", data={"scenario": "pagination"}, headers=other).status_code
        == 403
    )


def test_only_the_lti_launch_and_login_are_taken_from_another_site(client):
    assert set(CROSS_SITE) == {"lti.login", "lti.launch"}
    cross = {"Origin": "https://lms.example", "Sec-Fetch-Site": "cross-site"}
    assert client.post("/lti/launch", headers=cross).status_code != 403  # pylti1p3 decides
    assert client.post("/lti/deep-link", headers=cross).status_code == 403
    assert client.post("/lti/score", headers=cross).status_code == 403


def test_a_bare_request_passes_unless_it_carries_cookies(client):
    """No Origin and no Sec-Fetch-Site: a script (passes), or a browser too old to say, which
    would ride the user's cookies (refused where a cookie is what authorises the request)."""
    made = client.post("/live", data={"scenario": "pagination"})
    assert made.status_code == 303
    code = made.headers["Location"].split("/live/")[1].split("/")[0]
    bare = client.post(f"/live/{code}/device")  # the test client sends the instructor cookie
    assert bare.status_code == 403
    own_page = client.post(f"/live/{code}/device", headers={"Sec-Fetch-Site": "same-origin"})
    assert own_page.status_code == 200


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
