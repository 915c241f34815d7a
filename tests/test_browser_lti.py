"""The lab launched from a learning management system over LTI 1.3, in a real browser.

The platform is tests/lti_platform.py, an independent implementation on joserfc (the tool's
pylti1p3 uses PyJWT and jwcrypto); both sides' keys are generated for the test. An instructor
deep-links a scenario into the course; a student launches it from the course, works through it
(one wrong first answer) and the platform's gradebook receives the score; a launch signed with
a key the platform never published is refused.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator

import pytest
from joserfc.jwk import RSAKey
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from app.web.factory import create_app
from tests.conftest import default_engine, free_port
from tests.lti_platform import Platform, create_platform
from tests.test_browser_embed import answers, work_through

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lms(tmp_path_factory) -> Iterator[dict]:
    folder = tmp_path_factory.mktemp("lti")
    tool_key = RSAKey.generate_key(2048)
    (folder / "tool-private.pem").write_bytes(tool_key.as_pem(private=True))
    (folder / "tool-public.pem").write_bytes(tool_key.as_pem(private=False))
    tool_port, platform_port = free_port(), free_port()
    tool_url, platform_url = f"http://127.0.0.1:{tool_port}", f"http://127.0.0.1:{platform_port}"
    platform = Platform(platform_url, tool_url)
    config = folder / "lti.json"
    config.write_text(json.dumps(platform.tool_config("tool-private.pem", "tool-public.pem")))
    tool = create_app({"LAB_ENGINE": default_engine(), "LTI_CONFIG": str(config)})
    servers = [
        make_server("127.0.0.1", tool_port, tool, threaded=True),
        make_server("127.0.0.1", platform_port, create_platform(platform), threaded=True),
    ]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"platform": platform, "tool": tool, "tool_url": tool_url}
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 900}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def test_an_instructor_deep_links_a_scenario_into_the_course(page: Page, lms):
    platform = lms["platform"]
    page.goto(f"{platform.url}/start/deeplink")
    expect(page.locator("h1")).to_contain_text("Pick a scenario")
    page.locator("#pick-cache").click()
    expect(page.locator("#added")).to_be_visible()
    assert len(platform.content_items) == 1
    item = platform.content_items[0]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == f"{lms['tool_url']}/lti/launch"
    assert item["custom"] == {"scenario": "cache"}
    assert "Caching" in item["title"]
    assert item["lineItem"] == {
        "scoreMaximum": 100,
        "label": item["title"],
        "resourceId": "cache",
        "tag": "mcp-lab",
    }


def test_a_student_launch_opens_the_scenario_and_the_gradebook_gets_the_score(page: Page, lms):
    platform = lms["platform"]
    page.goto(f"{platform.url}/start/resource?scenario=param-headers")
    expect(page).to_have_url(re.compile(re.escape(f"{lms['tool_url']}/scenario/param-headers?")))
    work_through(page, answers(lms["tool"], "param-headers", "2026-07-28", "http"), True)
    expect(page.locator("body")).to_have_attribute("data-lti-score", "sent")
    assert len(platform.scores) == 1
    score = platform.scores[0]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1, 2)
    assert score["userId"] == "student-42"
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")


def test_a_launch_signed_with_a_key_the_platform_never_published_is_refused(page: Page, lms):
    platform = lms["platform"]
    platform.forged_key = RSAKey.generate_key(2048, parameters={"kid": "platform-key"})
    try:
        page.goto(f"{platform.url}/start/resource?scenario=cache")
        expect(page.locator("h1")).to_contain_text("Launch refused")
    finally:
        platform.forged_key = None
    assert page.url == f"{lms['tool_url']}/lti/launch"


def test_a_deep_linked_lessons_scores_go_to_the_column_its_link_made(page: Page, lms):
    platform = lms["platform"]
    page.goto(f"{platform.url}/start/deeplink")
    page.locator("#pick-pagination").click()
    expect(page.locator("#added")).to_be_visible()
    column = platform.links["pagination"]
    assert column != 1 and platform.lineitems[column]["resourceId"] == "pagination"

    before = len(platform.scores)
    page.goto(f"{platform.url}/start/resource?scenario=pagination")
    work_through(page, answers(lms["tool"], "pagination", "2026-07-28", "stdio"), False)
    expect(page.locator("body")).to_have_attribute("data-lti-score", "sent")
    assert platform.scored[before:] == [column]
    assert (platform.scores[-1]["scoreGiven"], platform.scores[-1]["scoreMaximum"]) == (2, 2)
