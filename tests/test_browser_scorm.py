"""A SCORM package in a stand-in LMS, with scorm-again playing the LMS's runtime (docs/SCORM.md).

The lab runs on one 127.0.0.1 port and lets the LMS's origin frame it (LAB_FRAME_ANCESTORS). The
LMS, on another port, serves tests/scorm_lms (its page and the npm scorm-again pinned in
package.json) and the packages exactly as the viewer's links download them, unpacked. A student
works through the lesson inside both frames (the launch page's, then the lab's), answering the
first question wrongly at first; the runtime must then hold what an LMS grades. A student who
leaves halfway is suspended and comes back where they left off; a message forged by another
window is ignored; without an LMS the page says that nothing is recorded.
"""

from __future__ import annotations

import io
import json
import threading
import urllib.request
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from app.web.factory import create_app
from tests.conftest import default_engine, served_from_a_thread
from tests.test_browser_embed import answers, work_through

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCORM_AGAIN = ROOT / "node_modules" / "scorm-again" / "dist"
LMS_FILES = Path(__file__).parent / "scorm_lms"
SID, VERSION, TRANSPORT = "pagination", "2026-07-28", "stdio"
EDITIONS = {"1.2": "scorm12", "2004": "scorm2004"}


def serve_lms(packages: Path) -> tuple[ThreadingHTTPServer, str]:
    """The LMS: its page and script, scorm-again from node_modules, the unpacked packages."""
    roots = {"/scorm-again/": SCORM_AGAIN, "/package/": packages, "/": LMS_FILES}

    class Lms(SimpleHTTPRequestHandler):
        def translate_path(self, path: str) -> str:
            path = path.split("?", 1)[0]
            for prefix, root in roots.items():
                if path.startswith(prefix):
                    found = (root / path[len(prefix) :]).resolve()
                    return str(found) if found.is_relative_to(root.resolve()) else ""
            return ""

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Lms)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if not (SCORM_AGAIN / "scorm12.min.js").exists():
        pytest.skip("scorm-again is not installed (make assets runs npm ci)")
    packages = tmp_path_factory.mktemp("packages")
    lms, lms_url = serve_lms(packages)
    app = create_app({"LAB_ENGINE": default_engine(), "FRAME_ANCESTORS": lms_url})
    with served_from_a_thread(app) as lab:
        for scorm, folder in EDITIONS.items():  # downloaded as the viewer's link does
            query = f"scorm={scorm}&version={VERSION}&transport={TRANSPORT}&lang=en"
            with urllib.request.urlopen(f"{lab}/scenario/{SID}/scorm.zip?{query}") as response:
                zipfile.ZipFile(io.BytesIO(response.read())).extractall(packages / folder)
        yield {"lab": lab, "lms": lms_url, "app": app}
    lms.shutdown()
    lms.server_close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.warnings = []  # type: ignore[attr-defined]
    page.on(
        "console",
        lambda m: m.type in ("error", "warning") and page.warnings.append(m.text),  # type: ignore[attr-defined]
    )
    yield page
    context.close()


def open_lms(page: Page, sites: dict[str, Any], scorm: str, cmi: dict[str, Any] | None = None):
    query = f"edition={scorm}&sco=/package/{EDITIONS[scorm]}/index.html"
    if cmi is not None:
        query += "&cmi=" + quote(json.dumps(cmi))
    page.goto(f"{sites['lms']}/lms.html?{query}")
    lesson = page.frame_locator("#sco").frame_locator("#lesson")
    expect(lesson.locator("body")).to_have_attribute("data-ws", "open")
    return lesson


def cmi(page: Page, scorm: str) -> Any:
    """The runtime's data model as the LMS would store it."""
    api = "window.API_1484_11" if scorm == "2004" else "window.API"
    return page.evaluate(f"JSON.parse(JSON.stringify({api}.renderCMIToJSONObject()))")["cmi"]


STATUS = {
    "1.2": "window.API.cmi.core.lesson_status",
    "2004": "window.API_1484_11.cmi.completion_status",
}


@pytest.mark.parametrize("scorm", list(EDITIONS))
def test_a_completed_lesson_reaches_the_runtime_with_status_score_and_answers(
    page: Page, sites: dict[str, Any], scorm: str
) -> None:
    lesson = open_lms(page, sites, scorm)
    right = answers(sites["app"], SID, VERSION, TRANSPORT)
    work_through(lesson, right, wrong_first=True)
    page.wait_for_function(f"{STATUS[scorm]} === 'completed'")
    launch = page.frame_locator("#sco")
    expect(launch.locator("#status")).to_contain_text("1 of 2 questions right at the first answer")

    data = cmi(page, scorm)
    keys = [interaction["id"] for interaction in _interactions(data)]
    saved = json.loads(data["suspend_data"])
    assert len(keys) == 2 and saved["furthest"] == 15
    assert saved["answered"] == {keys[0]: 0, keys[1]: 1}
    first_choice = "abcd"[(right[min(right)] + 1) % 2]  # the wrong choice work_through made
    if scorm == "1.2":
        core = data["core"]
        assert core["score"] == {"raw": "50", "min": "0", "max": "100"}
        assert core["lesson_location"] == "15"
        assert [(i["type"], i["result"]) for i in _interactions(data)] == [
            ("choice", "wrong"),
            ("choice", "correct"),
        ]
        assert _interactions(data)[0]["student_response"] == first_choice
    else:
        assert data["score"] == {"scaled": "0.5", "raw": "50", "min": "0", "max": "100"}
        assert data["location"] == "15" and data["progress_measure"] == "1"
        found = _interactions(data)
        assert [(i["type"], i["result"]) for i in found] == [
            ("choice", "incorrect"),
            ("choice", "correct"),
        ]
        assert found[0]["learner_response"] == first_choice
        assert found[0]["description"].startswith("{lang=en}") and "?" in found[0]["description"]

    # The LMS closes the lesson: the launch page sets exit and session time, commits, finishes.
    page.evaluate("document.getElementById('sco').remove()")
    page.wait_for_function("window.lms.finished")
    data = cmi(page, scorm)
    if scorm == "1.2":
        assert data["core"]["exit"] == "" and data["core"]["session_time"] != "00:00:00"
    else:
        assert data["exit"] == "normal" and data["session_time"].startswith("PT")
    assert not [w for w in page.warnings if "SCORM" in w or "error" in w.lower()]  # type: ignore[attr-defined]


def _interactions(data: dict[str, Any]) -> list[dict[str, Any]]:
    found = data.get("interactions") or {}
    return [found[k] for k in sorted(found, key=int)] if isinstance(found, dict) else found


@pytest.mark.parametrize("scorm", list(EDITIONS))
def test_a_student_who_leaves_is_suspended_and_comes_back_where_they_left(
    page: Page, sites: dict[str, Any], scorm: str
) -> None:
    lesson = open_lms(page, sites, scorm)
    status = lesson.locator("#status")
    # Another window of the LMS's origin forges a completion: the launch page takes messages
    # from the lab's frame only, so the step taken after it is all the runtime hears of.
    page.evaluate(
        """document.getElementById('sco').contentWindow.postMessage({source: 'mcp-lab',
        type: 'completed', scenario: 'pagination', step: 15, total: 15,
        score: {raw: 2, max: 2, scaled: 1}}, '*')"""
    )
    for index in (0, 1):  # data-step counts from 0, the screen and the location from 1
        expect(status).to_have_attribute("data-step", str(index))
        lesson.locator("#btn-next").click()
    location = "cmi.core.lesson_location" if scorm == "1.2" else "cmi.location"
    api = "window.API" if scorm == "1.2" else "window.API_1484_11"
    page.wait_for_function(f"{api}.cmi.{location[4:]} === '3'")
    assert page.evaluate(STATUS[scorm]) == "incomplete"

    page.evaluate("document.getElementById('sco').remove()")
    page.wait_for_function("window.lms.finished")
    left = cmi(page, scorm)
    exit_ = left["core"]["exit"] if scorm == "1.2" else left["exit"]
    assert exit_ == "suspend"
    assert json.loads(left["suspend_data"]) == {"answered": {}, "furthest": 3}

    # The next session starts from what the LMS kept: the lesson opens at step 3.
    kept: dict[str, Any] = {"suspend_data": left["suspend_data"]}
    if scorm == "1.2":
        kept["core"] = {"lesson_location": "3", "lesson_status": "incomplete", "entry": "resume"}
    else:
        kept |= {"location": "3", "completion_status": "incomplete", "entry": "resume"}
    lesson = open_lms(page, sites, scorm, kept)
    expect(lesson.locator("#status")).to_have_attribute("data-step", "2")
    assert page.evaluate(STATUS[scorm]) == "incomplete"


def test_without_an_lms_the_lesson_still_opens_and_the_page_says_nothing_is_recorded(
    page: Page, sites: dict[str, Any]
) -> None:
    page.goto(f"{sites['lms']}/package/scorm12/index.html")
    expect(page.locator("#status")).to_contain_text("cannot record your progress or score")
    lesson = page.frame_locator("#lesson")
    expect(lesson.locator("body")).to_have_attribute("data-ws", "open")
    expect(lesson.locator("#scenario-title")).to_be_visible()
