"""A course page embeds lessons: the lab on one 127.0.0.1 port, course pages on two others.

The lab is configured with LAB_FRAME_ANCESTORS naming one course origin. On that origin a page
embeds two lessons with the snippet the Embed button gives (iframe + mcp-lab-embed.js); a student
works through both, one without a mistake and one with a wrong first answer, and the page must
receive each lesson's events in order, with xAPI statements and the right scores, and size each
frame to its lesson. A page on the other origin is refused the frame and gets no message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, FrameLocator, Page, expect
from werkzeug.serving import make_server

from app.web.factory import create_app
from tests.conftest import default_engine, free_port

pytestmark = pytest.mark.browser

LISTENER = """
window.lessons = []; window.raw = [];
window.addEventListener("message", function (e) { window.raw.push(e.data); });
document.addEventListener("mcp-lab", function (e) {
  window.lessons.push(Object.assign({frame: e.target.id}, e.detail));
});
"""


def course_page(lab: str) -> str:
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Course</title>
<script src="/listen.js"></script></head><body><h1>Week 3</h1>
<iframe id="first" src="{lab}/embed/pagination?lang=en" title="Pagination" width="100%"
  height="300"></iframe>
<iframe id="second" src="{lab}/embed/param-headers?version=2026-07-28&transport=http"
  title="Headers" width="100%" height="300"></iframe>
<script src="{lab}/static/js/mcp-lab-embed.js" defer></script></body></html>"""


def serve_course(lab: str) -> tuple[ThreadingHTTPServer, str]:
    class Course(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = (
                (LISTENER, "text/javascript")
                if self.path == "/listen.js"
                else (course_page(lab), "text/html")
            )
            self.send_response(200)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Course)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, object]]:
    """The lab, a course origin it lets frame it, and one it does not."""
    lab_port = free_port()
    lab = f"http://127.0.0.1:{lab_port}"
    allowed, allowed_url = serve_course(lab)
    refused, refused_url = serve_course(lab)
    app = create_app({"LAB_ENGINE": default_engine(), "FRAME_ANCESTORS": allowed_url})
    server = make_server("127.0.0.1", lab_port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"lab": lab, "app": app, "allowed": allowed_url, "refused": refused_url}
    for s in (server, allowed, refused):
        s.shutdown()
        s.server_close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def answers(app, sid: str, version: str, transport: str) -> dict[int, int]:
    with app.app_context():
        trace = app.extensions["lab"].trace(sid, version, transport)
    return {s["index"]: s["checkpoint"]["answer"] for s in trace if s["checkpoint"]}


def work_through(frame: FrameLocator | Page, right: dict[int, int], wrong_first: bool) -> None:
    """Step to the end, answering each question (the first one wrongly if asked)."""
    status = frame.locator("#status")
    expect(frame.locator("body")).to_have_attribute("data-ws", "open")
    last = int(frame.locator("#trace").get_attribute("data-last"))
    for index in range(last + 1):
        expect(status).to_have_attribute("data-step", str(index))
        if index in right:
            choice = right[index]
            if wrong_first:
                choice, wrong_first = (right[index] + 1) % 2, False
                frame.locator(f"#choice-{choice}").click()
                expect(frame.locator("#feedback.no")).to_be_visible()
                choice = right[index]
            frame.locator(f"#choice-{choice}").click()
            expect(frame.locator("#feedback.ok")).to_be_visible()
        if index < last:
            frame.locator("#btn-next").click()


def test_a_course_page_receives_both_lessons_events_in_order_with_scores(page: Page, sites):
    page.goto(f"{sites['allowed']}/")
    work_through(
        page.frame_locator("#first"),
        answers(sites["app"], "pagination", "2026-07-28", "stdio"),
        False,
    )
    work_through(
        page.frame_locator("#second"),
        answers(sites["app"], "param-headers", "2026-07-28", "http"),
        True,
    )
    page.wait_for_function("window.lessons.filter(e => e.type === 'completed').length === 2")
    events = page.evaluate("window.lessons")
    assert all(e["source"] == "mcp-lab" for e in events)
    assert not [m for m in page.evaluate("window.raw") if not isinstance(m, dict)]
    first = [e for e in events if e["frame"] == "first"]
    second = [e for e in events if e["frame"] == "second"]

    for lesson, sid, total in ((first, "pagination", 15), (second, "param-headers", 11)):
        types = [e["type"] for e in lesson]
        assert types[0] == "initialized" and types[-1] == "completed"
        assert types.count("initialized") == 1 and types.count("completed") == 1
        steps = [e["step"] for e in lesson if e["type"] == "progressed"]
        assert steps == list(range(2, total + 1))
        assert {e["scenario"] for e in lesson} == {sid} and {e["total"] for e in lesson} == {total}
        for e in lesson:
            s = e["statement"]
            assert s["verb"]["id"] == f"http://adlnet.gov/expapi/verbs/{e['type']}"
            assert s["object"]["id"] == f"{sites['lab']}/scenario/{sid}"
            assert s["actor"]["account"]["homePage"] == sites["lab"]

    assert first[-1]["score"] == {"raw": 2, "max": 2, "scaled": 1}
    assert first[-1]["statement"]["result"]["score"] == {"raw": 2, "min": 0, "max": 2, "scaled": 1}
    assert second[-1]["score"] == {"raw": 1, "max": 2, "scaled": 0.5}
    answered = [e for e in second if e["type"] == "answered"]
    assert [(e["success"], e["firstTry"]) for e in answered] == [
        (False, True),
        (True, False),
        (True, True),
    ]
    assert answered[0]["question"] == answered[1]["question"] != answered[2]["question"]
    assert answered[0]["statement"]["result"]["success"] is False
    assert answered[0]["statement"]["result"]["response"] == str(answered[0]["choice"])
    assert second[-1]["version"] == "2026-07-28" and second[-1]["transport"] == "http"

    # Each frame was sized to its lesson, not left at the 300 px the page gave it.
    for frame_id in ("first", "second"):
        page.wait_for_function(
            "id => document.getElementById(id).getBoundingClientRect().height > 600", arg=frame_id
        )
    # The embed has no site chrome: no masthead, no link back to the library.
    first_frame = page.frame_locator("#first")
    expect(first_frame.locator("#masthead")).to_be_hidden()
    expect(first_frame.locator("#toolbar")).to_be_visible()


def test_a_course_page_on_an_origin_not_configured_is_refused_the_frame(page: Page, sites):
    response = page.request.get(f"{sites['lab']}/embed/pagination")
    assert sites["refused"] not in response.headers["content-security-policy"]
    page.goto(f"{sites['refused']}/")

    # Chromium puts its error page in each frame the lab's CSP refuses: wait for both.
    def refused() -> int:
        return sum(f.url.startswith("chrome-error://") for f in page.frames)

    deadline = time.monotonic() + 30
    while refused() < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert refused() == 2
    assert page.evaluate("window.raw") == []
    assert page.evaluate("window.lessons") == []
    lab_frames = [f for f in page.frames if f.url.startswith(sites["lab"])]
    assert all(f.locator("#status").count() == 0 for f in lab_frames)
