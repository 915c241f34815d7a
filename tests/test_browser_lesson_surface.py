"""What a newcomer meets first, in Chromium at 1440 px (a desk) and 390 px (a phone): the intro
a click or two from the library, a stage whose every label step 1 explains, the Transform view's
words before any page arrives and for a server's own change, and its tables whole on a desk
and saying that they scroll on a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine.library import load_library
from app.engine.runner import run_trace
from app.engine.scenario import default_scenarios_dir
from tests.test_browser_viewer import at_step, connected, walk_to

pytestmark = pytest.mark.browser

LIBRARY = load_library(default_scenarios_dir()).scenarios
DESK, PHONE = 1440, 390


@pytest.fixture
def open_page(browser: Browser, live_server: str) -> Iterator:
    contexts = []

    def open_page(path: str, width: int = DESK, lang: str = "en-US") -> Page:
        viewport = {"width": width, "height": 900}
        context = browser.new_context(viewport=viewport, base_url=live_server, locale=lang)
        contexts.append(context)
        page = context.new_page()
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()


def index_of(scenario: str, version: str, **match: object) -> int:
    steps = run_trace(LIBRARY[scenario], version, "stdio")
    return next(s["index"] for s in steps if all(s.get(k) == v for k, v in match.items()))


@pytest.mark.parametrize("width", [DESK, PHONE])
def test_the_first_packet_moves_two_clicks_from_the_library(open_page, width: int) -> None:
    page = open_page("/", width)
    page.locator("#card-intro a.card-link").click()  # one
    connected(page)
    at_step(page, 0)
    expect(page.locator("#panel-overview .packet")).to_have_count(0)
    page.locator("#btn-next").click()  # two
    at_step(page, 1)
    expect(page.locator("#panel-overview .packet").first).to_be_attached()
    expect(page.locator("#counter .chip.kind")).not_to_have_text("inside the host")


@pytest.mark.parametrize("width", [DESK, PHONE])
def test_intro_step_one_draws_only_what_its_narration_explains(open_page, width: int) -> None:
    page = open_page("/scenario/intro?step=1&version=2025-11-25&transport=stdio", width)
    connected(page)
    stage = page.locator("#panel-overview svg.stage:visible")
    names = stage.locator("text.name").all_text_contents()
    assert "weather-server" in names and not any("…" in n for n in names)
    words = " ".join(stage.locator("text").all_text_contents())
    for unexplained in ("gen 0", "no TTL", "listChanged"):
        assert unexplained not in words
    narration = page.locator("#narration").inner_text()
    for label in ("Host", "Agent", "Model", "Client · weather", "new", "weather-server", "stdio"):
        assert label in narration and label in words


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "No page has arrived yet"),
        ("zh", "还没有收到任何一页"),
        ("ru", "Ни одной страницы ещё не пришло"),
    ],
)
def test_transform_says_no_page_yet_at_the_first_tools_list(open_page, lang: str, said: str):
    n = index_of("intro", "2025-11-25", kind="request", method="tools/list") + 1
    page = open_page(f"/scenario/intro?step={n}&view=transform&version=2025-11-25&lang={lang}")
    connected(page)
    cursor = page.locator("#panel-transform .cursor")
    expect(cursor).to_contain_text(said)
    expect(cursor).not_to_contain_text("last page")


@pytest.mark.parametrize(
    ("lang", "label"), [("en", "inside the server"), ("zh", "服务器内部"), ("ru", "внутри сервера")]
)
def test_a_server_change_is_labelled_inside_the_server(open_page, lang: str, label: str) -> None:
    version = "2025-11-25"
    change = index_of("list-changed-add", version, kind="internal", **{"from": "server:orders"})
    page = open_page(f"/scenario/list-changed-add?version={version}&transport=stdio&lang={lang}")
    connected(page)
    walk_to(page, change)
    expect(page.locator("#counter .chip.kind")).to_have_text(label)
    expect(page.locator(f"#mark-{change}")).to_have_attribute("title", re.compile(re.escape(label)))


ONE_LINE = """els => els.map(e => {
  const r = document.createRange(); r.selectNodeContents(e);
  const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
  return [e.textContent.trim(), lines.size];
}).filter(([, n]) => n > 1)"""


def test_transform_tables_show_every_column_on_a_desk(open_page) -> None:
    page = open_page("/scenario/cache?version=2026-07-28&transport=http&view=transform")
    connected(page)
    walk_to(page, 13)  # page 2 fetched again: both tables, fresh chips, the access filter
    frames = page.locator("#panel-transform .table-wrap")
    expect(frames).to_have_count(3)
    for frame in frames.all():
        assert frame.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        expect(frame).not_to_have_class("table-wrap overflows")
    tokens = page.locator("#panel-transform td.token, #panel-transform .chip.ok")
    assert tokens.count() > 10
    assert tokens.evaluate_all(ONE_LINE) == []  # "✓ allowed", "300.0 s" never wrap


def test_a_table_that_must_scroll_on_a_phone_says_so(open_page) -> None:
    page = open_page("/scenario/cache?version=2026-07-28&transport=http&view=transform", PHONE)
    connected(page)
    walk_to(page, 13)
    frame = page.locator("#panel-transform .table-wrap.overflows").first
    expect(frame).to_be_visible()
    hint = frame.evaluate("e => getComputedStyle(e, '::before').content")
    assert "Scroll sideways" in hint
    assert frame.get_attribute("tabindex") == "0"  # the keyboard scrolls it too
    chips = page.locator("#panel-transform .chip.ok")
    assert chips.evaluate_all(ONE_LINE) == []


@pytest.mark.parametrize(
    ("lang", "header", "note"),
    [
        ("en", "(the server's title)", "the lab does not translate them"),
        ("zh", "（服务器提供的标题）", "实验室不会翻译它们"),
        ("ru", "(заголовок от сервера)", "лаборатория их не переводит"),
    ],
)
def test_titles_are_said_to_be_the_servers_words(open_page, lang: str, header: str, note: str):
    page = open_page(
        f"/scenario/cache?version=2026-07-28&transport=http&view=transform&lang={lang}"
    )
    connected(page)
    walk_to(page, 13)
    access = page.locator("#panel-transform #access")
    expect(access.locator("th").nth(1)).to_contain_text(header)
    expect(access).to_contain_text(note)
    expect(access.locator("td").nth(1)).to_have_text("List events")  # the server's own words
