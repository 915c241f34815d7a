"""The library and viewer pages, and the step partials, through Flask's test client."""

from __future__ import annotations

import html as htmllib
import re

import pytest
from flask.testing import FlaskClient

from tests import fakelab
from tests.markup import inline_code


def text(html: str) -> str:
    """What a reader sees: tags dropped, entities decoded."""
    return htmllib.unescape(re.sub(r"<[^>]+>", "", html))


def answers(app, sid: str, version: str = "", transport: str = "", before: int = 10**6) -> str:
    """The `answers=` query of a browser that has answered every question of this trace before
    step index `before` (a deep link past a question stops at it otherwise)."""
    from app.web.render import checkpoint_key, open_viewer

    lab = app.extensions["lab"]
    v = open_viewer(lab.scenario(sid), {"version": version, "transport": transport}, "en")
    trace = lab.trace(sid, v.version, v.transport)
    return "answers=" + ",".join(
        f"{checkpoint_key(trace, s['index'])}:{s['checkpoint']['answer']}"
        for s in trace
        if s.get("checkpoint") and s["index"] < before
    )


def status(html: str) -> dict[str, str]:
    """What the page says it shows: its trace (#trace) and the step on show (#status)."""
    found: dict[str, str] = {}
    for rid in ("trace", "status"):
        tag = re.search(rf'<div id="{rid}"[^>]*>', html, re.S)
        assert tag, f"the page has no #{rid} element"
        found |= dict(re.findall(r'data-([a-z]+)="([^"]*)"', tag.group()))
    return found


def test_library_lists_each_scenario_as_a_card_linking_to_its_own_url(client: FlaskClient):
    html = client.get("/").get_data(as_text=True)
    assert 'id="card-pagination"' in html
    assert re.search(r'href="/scenario/pagination\?lang=en"', html)
    card = html.split('id="card-pagination"')[1].split("</li>")[0]
    assert 'class="chip topic"' in card and "2025-06-18" in card


@pytest.mark.parametrize("lab_engine", [fakelab])
def test_a_broken_scenario_file_shows_as_unavailable_and_the_others_still_work(
    client: FlaskClient,
):
    html = client.get("/").get_data(as_text=True)
    assert "Unavailable" in html
    assert "broken.yaml:7: steps[2].action: unknown action &#39;jump&#39;" in html
    assert client.get("/scenario/pagination").status_code == 200


def test_first_visit_follows_accept_language_and_the_choice_is_remembered(client: FlaskClient):
    html = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).get_data(as_text=True)
    assert '<html lang="zh"' in html and "场景" in html
    response = client.get("/?lang=ru")
    assert "lang=ru" in response.headers["Set-Cookie"]
    html = client.get("/", headers={"Accept-Language": "zh"}).get_data(as_text=True)
    assert '<html lang="ru"' in html and "Сценарии" in html


def test_a_deep_link_restores_step_view_version_transport_and_language(client: FlaskClient):
    url = "/scenario/pagination?step=4&view=transform&version=2026-07-28&transport=http&lang=ru"
    html = client.get(url).get_data(as_text=True)
    state = status(html)
    assert state["step"] == "3"  # the fourth step, counted from 0 inside the page
    assert (state["version"], state["transport"], state["lang"]) == ("2026-07-28", "http", "ru")
    assert 'data-view="transform"' in html
    assert re.search(r'id="tab-transform"[^>]*aria-selected="true"', html)
    assert '<option value="2026-07-28" selected>' in html
    assert "Шаг 4 из" in html


def test_unknown_or_bad_query_values_fall_back_to_defaults(client: FlaskClient, app):
    html = client.get("/scenario/pagination?step=abc&view=nope&version=1999&transport=smtp")
    state = status(html.get_data(as_text=True))
    assert state["step"] == "0"
    assert state["transport"] in ("stdio", "http") and state["version"] != "1999"
    for first in ("", "step=", "step=0", "step=-3", "step=1", "step=2.5", "step=%E4%B8%80"):
        page = client.get(f"/scenario/pagination?{first}").get_data(as_text=True)
        assert status(page)["step"] == "0", first
        assert "Step 1 of" in page, first
    far = client.get(f"/scenario/pagination?step=99999&{answers(app, 'pagination')}")
    assert status(far.get_data(as_text=True))["step"] == status(far.get_data(as_text=True))["last"]


def test_step_n_in_a_url_is_the_nth_step_as_displayed_and_every_link_says_so(
    client: FlaskClient,
):
    """An instructor who says "open step 4" and a link with step=4 mean the same step."""
    html = client.get("/scenario/pagination?step=4&lang=en").get_data(as_text=True)
    assert "Step 4 of" in text(html.split('id="counter"')[1].split("</p>")[0])
    assert status(html)["step"] == "3"

    def href(element_id: str) -> int:
        tag = re.search(rf'<a id="{element_id}"[^>]*href="([^"]+)"', html)
        assert tag, element_id
        return int(re.search(r"[?&]step=(\d+)", tag.group(1)).group(1))

    assert (href("btn-reset"), href("btn-prev"), href("btn-next")) == (1, 3, 5)
    marks = re.findall(r'<a id="mark-(\d+)"[^>]*href="[^"]*[?&]step=(\d+)', html)
    assert marks and all(int(step) == int(i) + 1 for i, step in marks)
    # the timeline's label, the log's "step N" and the URL all count from 1
    assert re.search(r'id="mark-3"[^>]*title="Step 4: ', html)
    assert 'id="frame-3"' in html and "step 4" in text(html.split('id="frame-3"')[1])
    for step, label in myth_links(lesson(html)):
        assert label == f"See step {step} →"


def test_an_unknown_scenario_is_a_404_page_with_a_way_back(client: FlaskClient):
    response = client.get("/scenario/no-such-thing")
    assert response.status_code == 404
    assert 'href="/?lang=en"' in response.get_data(as_text=True)


def test_the_step_partial_is_the_fragments_only_each_with_its_id(client: FlaskClient):
    html = client.get("/scenario/pagination/step?step=2").get_data(as_text=True)
    assert "<html" not in html
    for region in (
        "status",
        "counter",
        "narration",
        "panel-overview",
        "panel-transport",
        "panel-transform",
        "panel-output",
    ):
        assert f'id="{region}"' in html
    assert html == client.get(
        "/scenario/pagination?step=2", headers={"HX-Request": "true"}
    ).get_data(as_text=True)


def test_front_end_libraries_are_served_locally_not_from_a_cdn(client: FlaskClient):
    html = client.get("/scenario/pagination").get_data(as_text=True)
    # Without the content hash that makes them cacheable for good (app.web.assets).
    scripts = [src.partition("?")[0] for src in re.findall(r'<script src="([^"]+)"', html)]
    assert "/static/vendor/htmx.min.js" in scripts
    assert "/static/vendor/htmx-ext-ws.min.js" in scripts
    assert all(src.startswith("/static/") for src in scripts)
    assert 'ws-connect="' in html


@pytest.mark.parametrize("lab_engine", [fakelab])
def test_hostile_tool_text_is_escaped_and_control_characters_are_visible(client: FlaskClient):
    html = client.get("/scenario/hostile?step=4&view=transform").get_data(as_text=True)
    assert "<img src=x" not in html and "<b>tools</b>" not in html
    assert "&lt;img src=x onerror=" in html
    assert '<span class="ctl">\\u0007</span>' in html
    assert "𝔘" in html
    assert "\x07" not in html and "\x00" not in html


def test_step_views_show_the_message_cache_and_model_tools(client: FlaskClient, app):
    last = int(status(client.get("/scenario/pagination?step=999").get_data(as_text=True))["last"])
    past = answers(app, "pagination")
    pages = [
        client.get(f"/scenario/pagination/step?step={n}&{past}").get_data(as_text=True)
        for n in range(1, last + 2)
    ]
    assert any("tools/list" in p and "nextCursor" in p for p in pages)
    assert any('class="row added"' in p for p in pages)
    final = text(pages[-1].split('id="panel-output"')[1])
    assert '"tools": [' in final and '"name":' in final


def test_every_step_of_every_shipped_scenario_renders(client: FlaskClient, app):
    """...with nothing the strict CSP would refuse (inline style or code): the browser walks
    only a representative set of scenarios (tests/test_browser_security.py)."""
    lab = app.extensions["lab"]
    for page in ("/", "/nowhere"):
        assert inline_code(client.get(page).get_data(as_text=True)) == [], page
    for sid in lab.library.scenarios:
        html = client.get(f"/scenario/{sid}?step=9999").get_data(as_text=True)
        assert inline_code(html) == [], sid
        last = int(status(html)["last"])
        past = answers(app, sid)
        for n in range(1, last + 2):
            response = client.get(f"/scenario/{sid}/step?step={n}&{past}")
            assert response.status_code == 200, (sid, n)
            html = response.get_data(as_text=True)
            assert status(html)["step"] == str(n - 1), (sid, n)
            assert inline_code(html) == [], (sid, n)


def lesson(html: str) -> str:
    found = re.search(r'<details id="lesson".*?</details>', html, re.S)
    assert found, "the page has no lesson panel"
    return found.group()


def myth_links(panel: str) -> list[tuple[int, str]]:
    """(step in the href, link text) of each "See step N" link, in order."""
    links = re.findall(r'<a id="myth-\d+-goto"[^>]*href="([^"]+)"[^>]*>(.*?)</a>', panel, re.S)
    return [
        (int(re.search(r"[?&]step=(\d+)", href).group(1)), text(t).strip()) for href, t in links
    ]


# What refutes each pagination myth, said independently of the scenario's matchers.
REFUTES = {
    "One tools/list call returns every tool.": lambda s: (
        s["kind"] == "response"
        and s["method"] == "tools/list"
        and "nextCursor" in s["message"]["result"]
    ),
    "A cursor is a page number the client can compute.": lambda s: (
        s["kind"] == "error"
        and s["method"] == "tools/list"
        and s["message"]["error"]["code"] == -32602
    ),
}


@pytest.mark.parametrize(
    ("version", "transport"),
    [("2025-06-18", "stdio"), ("2025-06-18", "http"), ("2026-07-28", "http")],
)
def test_the_lesson_shows_goals_and_myths_in_the_language_with_links_to_the_refuting_step(
    client: FlaskClient, app, version: str, transport: str
):
    url = f"/scenario/pagination?step=2&version={version}&transport={transport}&lang=zh"
    panel = lesson(client.get(url).get_data(as_text=True))
    scenario = app.extensions["lab"].scenario("pagination")
    trace = app.extensions["lab"].trace("pagination", version, transport)
    seen = text(panel)
    assert "本课要点" in seen and "你将学到" in seen
    for goal in scenario.goals:
        assert goal["zh"] in seen
    expected = []
    for myth in scenario.misconceptions:
        assert myth["claim"]["zh"] in seen and myth["truth"]["zh"] in seen
        refutes = REFUTES[myth["claim"]["en"]]
        expected.append(next(s["index"] for s in trace if refutes(s)))
    links = myth_links(panel)
    assert [step for step, _ in links] == [n + 1 for n in expected]  # URLs count from 1
    assert [label for _, label in links] == [f"查看第 {n + 1} 步 →" for n in expected]
    assert f"version={version}&amp;transport={transport}&amp;lang=zh" in panel
    assert all(f'{{"command": "goto", "step": {n}}}' in panel for n in expected)


@pytest.mark.parametrize("lab_engine", [fakelab])
def test_a_myth_that_no_step_of_this_trace_refutes_is_shown_without_a_link(
    client: FlaskClient, app
):
    app.extensions["lab"].scenario("pagination").misconceptions = [
        {
            "claim": {
                "en": "Every lookup goes over the wire.",
                "ru": "Каждый запрос идёт по сети.",
            },
            "truth": {"en": "A fresh cache answers.", "ru": "Отвечает свежий кэш."},
            "refutedBy": {"kind": "cache-hit"},
        },
        {
            "claim": {"en": "Servers never fail.", "ru": "Серверы не ошибаются."},
            "truth": {"en": "They do.", "ru": "Ошибаются."},
            "refutedBy": {"kind": "error"},
        },
    ]
    panel = lesson(client.get("/scenario/pagination?lang=ru").get_data(as_text=True))
    assert myth_links(panel) == [(6, "К шагу 6 →")]
    second = text(panel.split('id="myth-1"')[1])
    assert "Серверы не ошибаются." in second and "Ошибаются." in second
    assert "В этом прогоне такого шага нет" in second
    assert "1 цель" in text(panel) and "2 мифа" in text(panel)


def test_the_lesson_is_a_named_disclosure_closed_by_default_and_not_part_of_a_step(
    client: FlaskClient,
):
    page = client.get("/scenario/pagination").get_data(as_text=True)
    tag = re.search(r'<details id="lesson"[^>]*>', lesson(page)).group()
    assert "open" not in tag and 'aria-labelledby="lesson-title"' in tag
    assert 'id="lesson-title"' in lesson(page) and '<summary id="lesson-toggle">' in page
    assert 'id="lesson"' not in client.get("/scenario/pagination/step?step=2").get_data(
        as_text=True
    )


def _translated(catalog, msgid: str) -> bool:
    entry = catalog.get(msgid)
    strings = entry.string if entry is not None else ""
    return all(strings) if isinstance(strings, tuple) else bool(strings)


def test_every_interface_string_is_translated_into_chinese_and_russian():
    from pathlib import Path

    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parent.parent
    method_map = [("app/web/**.py", "python"), ("templates/**.html", "jinja2")]
    found = {
        m[2] if isinstance(m[2], str) else m[2][0]
        for m in extract_from_dir(str(root), method_map, options_map={"templates/**.html": {}})
    }
    assert len(found) > 50
    for lang in ("zh", "ru"):
        with open(root / f"app/translations/{lang}/LC_MESSAGES/messages.po", "rb") as f:
            catalog = read_po(f)

        missing = sorted(msgid for msgid in found if not _translated(catalog, msgid))
        assert missing == [], f"untranslated in {lang}: {missing}"


def test_output_shows_what_the_next_model_request_will_carry(client: FlaskClient, app):
    from app.web.pages import step_html
    from app.web.render import checkpoint_key, open_viewer

    lab = app.extensions["lab"]
    trace = lab.trace("list-changed-add", "2025-11-25", "stdio")
    # a step after the client published the new tool but before the host asked the model again
    step = next(
        s
        for s in trace
        if len(s["state"]["model"]["next"]) == 3 and len(s["state"]["model"]["tools"]) == 2
    )
    query = {"step": str(step["index"] + 1), "version": "2025-11-25", "transport": "stdio"}
    v = open_viewer(lab.scenario("list-changed-add"), query, "en")
    if step["checkpoint"]:  # what the next request carries shows once the question is answered
        v.answered[checkpoint_key(trace, step["index"])] = step["checkpoint"]["answer"]
    with app.test_request_context():
        page = step_html(lab, v)
    output = text(page.split('id="panel-output"')[1])
    assert "next request (3)" in output
    assert "orders__search_invoices" in output
    assert "The last model request carried 2 tools." in output


def log_item(page: str, index: int) -> str:
    """The transport log's entry for step `index` (its <li>), or "" when the log lacks it."""
    found = re.search(rf'<li class="frame[^"]*" id="frame-{index}">.*?</li>', page, re.S)
    return found.group() if found else ""


@pytest.mark.parametrize(
    ("sid", "version"), [("handshake", "2024-11-05"), ("list-changed-add", "2025-11-25")]
)
def test_the_log_shows_http_framing_that_carries_no_json_rpc_message_and_each_reply(
    client: FlaskClient, app, sid: str, version: str
):
    trace = app.extensions["lab"].trace(sid, version, "http")
    bare = [s for s in trace if s["message"] is None and s["frame"]]
    replies = [s for s in trace if s.get("reply")]
    assert bare and replies  # the trace opens a stream and answers a POST with bare HTTP
    query = f"step={len(trace)}&version={version}&transport=http&lang=en"
    query += "&" + answers(app, sid, version, "http")
    page = client.get(f"/scenario/{sid}/step?{query}").get_data(as_text=True)
    for s in trace:
        item = log_item(page, s["index"])
        assert bool(item) == bool(s["frame"]), s["index"]
        if not item:
            continue
        seen = text(item)
        assert s["frame"].replace("\r", "").split("\n")[0] in seen  # the request line or event
        if s["message"] is None:  # direction, kind, channel and the bytes of the framing
            assert "transport" in seen and s["channel"] in seen
            assert ("→" if s["from"].startswith("client") else "←") in seen
        if s.get("reply"):
            wire, answer = item.split("HTTP answer", 1)
            assert s["frame"].split("\r\n")[0] in text(wire)
            assert s["reply"].split("\r\n")[0] in text(answer)
        else:
            assert "HTTP answer" not in item


def test_the_2024_11_05_http_log_opens_with_the_sse_stream_naming_the_post_endpoint(
    client: FlaskClient, app
):
    trace = app.extensions["lab"].trace("handshake", "2024-11-05", "http")
    opening = next(s for s in trace if s["kind"] == "transport")
    endpoint = re.search(r"event: endpoint\ndata: (\S+)", opening["frame"]).group(1)
    query = "version=2024-11-05&transport=http&lang=en"
    page = client.get(f"/scenario/handshake/step?step={opening['index'] + 1}&{query}")
    item = log_item(page.get_data(as_text=True), opening["index"])
    assert 'class="frame k-transport current"' in item and "<details open>" in item
    assert "GET /sse HTTP/1.1" in text(item)
    assert "event: endpoint" in text(item) and f"data: {endpoint}" in text(item)
    post = next(s for s in trace if s["index"] > opening["index"] and s["message"])
    assert post["frame"].startswith(f"POST {endpoint} HTTP/1.1")


def transport_labels(page: str) -> tuple[str, str]:
    """(the http option of the transport menu, the chip in the Transport panel's heading)."""
    option = re.search(r'<option value="http"[^>]*>(.*?)</option>', page, re.S)
    panel = page.split('id="panel-transport"')[1]
    chip = re.search(r'<h2[^>]*>.*?<span class="chip">(.*?)</span>', panel, re.S)
    assert option and chip
    return text(option.group(1)).strip(), text(chip.group(1)).strip()


@pytest.mark.parametrize(
    ("version", "lang", "label"),
    [
        ("2024-11-05", "en", "HTTP+SSE"),
        ("2025-03-26", "en", "Streamable HTTP"),
        ("2025-11-25", "en", "Streamable HTTP"),
        ("2026-07-28", "en", "Streamable HTTP"),
        ("2024-11-05", "zh", "HTTP+SSE"),
        ("2025-06-18", "zh", "流式 HTTP"),
        ("2025-06-18", "ru", "потоковый HTTP"),
    ],
)
def test_http_is_named_for_its_flavour_http_sse_in_2024_11_05_streamable_after(
    client: FlaskClient, version: str, lang: str, label: str
):
    from app.mcp.versions import http_flavour

    assert (http_flavour(version) == "http+sse") == (label == "HTTP+SSE")
    page = client.get(f"/scenario/handshake?version={version}&transport=http&lang={lang}").get_data(
        as_text=True
    )
    assert transport_labels(page) == (label, label)
    if label == "HTTP+SSE":
        assert "Streamable" not in page


def next_tools_question(app) -> tuple[dict, dict]:
    """list-changed-add's question "which tools will the next model request carry?" (stdio)."""
    trace = app.extensions["lab"].trace("list-changed-add", "2025-11-25", "stdio")
    step = next(
        s
        for s in trace
        if s["checkpoint"] and "next model request" in s["checkpoint"]["question"]["en"]
    )
    return step, trace[step["index"] + 1]


def output_panel(page: str) -> str:
    return re.search(r'<section id="panel-output".*?</section>', page, re.S).group()


def shown(panel: str) -> str:
    """The text of a panel without its `hidden` elements (what a reader or screen reader gets)."""
    for tag in ("div", "p", "span", "h3"):
        panel = re.sub(rf"<{tag}\b[^>]*\shidden[\s>].*?</{tag}>", "", panel, flags=re.S)
    return text(panel)


def test_an_open_question_hides_the_next_model_request_that_answers_it(client, app):
    asked, answered = next_tools_question(app)
    model = asked["state"]["model"]
    added = sorted({t["name"] for t in model["next"]} - {t["name"] for t in model["tools"]})
    assert added  # the answer: the tool that reaches the model next
    query = f"version=2025-11-25&transport=stdio&lang=en&step={asked['index'] + 1}"
    query += "&" + answers(app, "list-changed-add", "2025-11-25", "stdio", before=asked["index"])
    panel = output_panel(client.get(f"/scenario/list-changed-add?{query}").get_data(as_text=True))
    assert not any(name in panel for name in added)  # not even in the page's source
    seen = shown(panel)
    assert "Answer the question to see this." in seen
    assert not any(name in seen for name in added)
    assert f"next request ({len(asked['state']['model']['next'])})" not in seen
    assert "Tools the model receives in its next request" in seen
    # a step without a question shows the preview and no note
    query = f"version=2025-11-25&transport=stdio&lang=en&step={answered['index'] + 1}"
    query += "&" + answers(app, "list-changed-add", "2025-11-25", "stdio")
    panel = output_panel(client.get(f"/scenario/list-changed-add?{query}").get_data(as_text=True))
    assert all(name in shown(panel) for name in added)
    assert "Answer the question" not in panel


def stage_lines(page: str) -> dict[str, list[str]]:
    """The small lines (class "sub") in the overview's actor boxes, by the box's role."""
    lines: dict[str, list[str]] = {}
    page = page.split('<svg class="stage tall')[0]  # the wide picture; the tall one says the same
    for box in re.split(r'(?=<g class="actor)', page)[1:]:
        role = re.match(r'<g class="actor[^"]*a-(\w+)"', box).group(1)
        found = re.findall(r'<text class="sub"[^>]*>(.*?)</text>', box.split("</g>")[0], re.S)
        lines.setdefault(role, []).extend(text(t).strip() for t in found)
    return lines


@pytest.mark.parametrize(
    ("lang", "model", "agent", "server", "phase"),
    [
        ("en", ["2 tools offered", "1 request"], "2 tools known", "3 tools", "ready"),
        ("zh", ["提供了 2 个工具", "1 次请求"], "已知 2 个工具", "3 个工具", "就绪"),
        ("ru", ["2 инструмента", "1 запрос"], "2 инструмента", "3 инструмента", "готов"),
    ],
)
def test_the_overview_counts_with_plural_forms_and_names_the_client_phase_in_the_language(
    client: FlaskClient, app, lang, model, agent, server, phase
):
    trace = app.extensions["lab"].trace("list-changed-add", "2025-11-25", "stdio")
    step = next(
        s
        for s in trace
        if s["state"]["model"]["requests"] == 1
        and len(s["state"]["model"]["tools"]) == 2
        and len(s["state"]["servers"]["orders"]["tools"]) == 3
    )
    query = f"step={step['index'] + 1}&version=2025-11-25&transport=stdio&lang={lang}"
    query += "&" + answers(app, "list-changed-add", "2025-11-25", "stdio")
    lines = stage_lines(
        client.get(f"/scenario/list-changed-add/step?{query}").get_data(as_text=True)
    )
    assert lines["model"] == model
    assert lines["host"][0] == agent
    assert lines["server"] == [server]
    assert lines["client"] == [f"{phase} · 2025-11-25"]


@pytest.mark.parametrize("lang", ["zh", "ru"])
def test_no_client_phase_shows_untranslated(client: FlaskClient, app, lang):
    raw = ("new", "probing", "initializing", "ready", "failed")
    seen = set()
    for version in ("2025-11-25", "2026-07-28"):
        trace = app.extensions["lab"].trace("handshake", version, "http")
        for s in trace[:8]:
            query = f"step={s['index'] + 1}&version={version}&transport=http&lang={lang}"
            query += "&" + answers(app, "handshake", version, "http")
            page = client.get(f"/scenario/handshake/step?{query}").get_data(as_text=True)
            for line in stage_lines(page)["client"]:  # "phase · version" of each client
                seen.add(line.split(" · ")[0])
    assert len(seen) >= 3 and not seen & set(raw), seen


def test_the_transform_view_shows_each_cached_page_with_its_own_expiry(client: FlaskClient, app):
    """2026-07-28, cache scenario at 90 s: page 1 fresh until 120 s, page 2 expired at 60 s and
    the only page asked for again."""
    lab = app.extensions["lab"]
    trace = lab.trace("cache", "2026-07-28", "stdio")
    refetch = next(
        s
        for s in trace
        if s["kind"] == "request"
        and s["method"] == "tools/list"
        and any(e["kind"] == "page-cached" for e in s["events"])
    )
    query = f"step={refetch['index'] + 1}&view=transform&version=2026-07-28&transport=stdio"
    query += "&" + answers(app, "cache", "2026-07-28", "stdio", before=refetch["index"] + 1)
    html = client.get(f"/scenario/cache?{query}").get_data(as_text=True)
    table = html[html.index("cache-pages") :]
    table = table[: table.index("</table>")]
    rows = [text(r) for r in re.findall(r"<tr class=\"row[^\"]*\">.*?</tr>", table, re.S)]
    assert len(rows) == 2
    assert "list_events" in rows[0] and "120.0 s" in rows[0] and "30.0 s left" in rows[0]
    assert "find_free_slot" in rows[1] and "60.0 s" in rows[1] and "expired" in rows[1]
    assert 'class="row expired"' in table


@pytest.mark.parametrize(
    ("version", "names"),
    [
        ("2024-11-05", ["read_file", "delete_file", "sync_folder"]),
        ("2025-03-26", ["File reader", "Delete a file", "sync_folder"]),
        ("2025-11-25", ["Read a file", "Delete a file", "sync_folder"]),
    ],
)
def test_the_transform_view_names_tools_for_people_by_title_precedence(
    client: FlaskClient, app, version, names
):
    lab = app.extensions["lab"]
    trace = lab.trace("tool-metadata", version, "stdio")
    step = next(s for s in trace if s["kind"] == "model-request")["index"] + 1
    query = f"step={step}&view=transform&version={version}&transport=stdio"
    query += "&" + answers(app, "tool-metadata", version, "stdio", before=step)
    html = client.get(f"/scenario/tool-metadata?{query}").get_data(as_text=True)
    table = html[html.rindex("Shown to people as") :]
    rows = [text(r) for r in re.findall(r"<tr class=\"[^\"]*\"><td><code>.*?</tr>", table, re.S)]
    assert [n in row for n, row in zip(names, rows, strict=True)] == [True] * 3
    assert all("asks the user" in row for row in rows)  # nobody trusts files-server
    icon_rows = [row for row in rows if "icon" in row.split("asks")[0]]
    assert len(icon_rows) == (1 if version == "2025-11-25" else 0)  # the file: icon is refused
