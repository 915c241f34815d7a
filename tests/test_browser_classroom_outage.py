"""A student's page in Chromium through a Redis outage and a room the store lost
(static/js/classroom-link.js): while Redis is down the page says the classroom service is not
answering and keeps trying; when Redis is back (with its append-only file) the page follows the
room again; when the store no longer has the room, the page says the class ended.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from playwright.sync_api import Page, expect

from app.web.factory import create_app
from tests.classroom_client import LiveSocket, start_room
from tests.conftest import served_from_a_thread
from tests.test_browser_viewer import (  # noqa: F401 (fixtures)
    ARGS,
    WIDE,
    browser,
    connected,
    playwright,
)
from tests.test_classroom_outage import OwnRedis, rejoin

pytestmark = pytest.mark.browser


@pytest.fixture
def persistent_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make redis installs it)")
    server = OwnRedis(tmp_path, persist=True)
    server.start()
    yield server
    server.stop()


def test_a_page_is_told_of_an_outage_follows_again_and_hears_the_room_ended(
    browser,  # noqa: F811
    persistent_redis: OwnRedis,
):
    app = create_app(
        {"TESTING": True, "REDIS_URL": persistent_redis.url, "LIVE_PRESENCE_SECONDS": 2}
    )
    with served_from_a_thread(app) as base:
        code, cookie = start_room(base)
        teacher = LiveSocket(base, code, cookie)
        teacher.until('data-mode="full"')
        context = browser.new_context(base_url=base, viewport=WIDE, locale="en-US")
        page: Page = context.new_page()
        try:
            page.goto(f"/live/{code}?lang=en")
            connected(page)
            conn, body = page.locator("#conn"), page.locator("body")

            persistent_redis.stop()
            expect(conn).to_contain_text("The classroom service is not answering", timeout=30000)
            expect(body).to_have_attribute("data-live", "outage")

            persistent_redis.start()
            expect(body).to_have_attribute("data-live", "open", timeout=60000)
            teacher, _ = rejoin(base, code, cookie)
            teacher.send("next")
            expect(page.locator("#counter .count")).to_contain_text("Step 2 of", timeout=30000)

            redis.Redis.from_url(persistent_redis.url).delete(f"lab:room:{code}")  # lost
            bar = page.locator("#live-bar")
            expect(bar).to_contain_text("no longer has this room", timeout=30000)
            expect(body).not_to_have_attribute("data-live", "outage")  # said, not retried
        finally:
            context.close()
            app.extensions["classroom"].close()
