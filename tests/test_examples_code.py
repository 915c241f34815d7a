"""The Code view's data: each step's few lines of SDK code on the side that sends its message,
or a sentence that it has none, in every language."""

from __future__ import annotations

import ast
import re
from urllib.parse import unquote

import pytest

from app.engine.library import load_library
from app.engine.runner import run_trace
from app.engine.scenario import default_scenarios_dir
from app.engine.step import LANGUAGES, Trace
from app.examples import texts
from app.examples.code import Snippet, snippet, snippets

LIBRARY = load_library(default_scenarios_dir()).scenarios
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def trace(scenario: str, version: str, transport: str = "stdio") -> Trace:
    return run_trace(LIBRARY[scenario], version, transport)


def at(steps: Trace, **match: object) -> int:
    """The index of the first step whose fields equal `match`."""
    return next(s["index"] for s in steps if all(s.get(k) == v for k, v in match.items()))


@pytest.mark.parametrize("scenario_id", sorted(LIBRARY))
def test_every_snippet_compiles_and_fits_the_view(scenario_id: str) -> None:
    scenario = LIBRARY[scenario_id]
    for version in scenario.versions:
        for transport in scenario.transports:
            steps = run_trace(scenario, version, transport)
            for step, found in zip(steps, snippets(steps, scenario_id), strict=True):
                for lang in LANGUAGES:
                    assert found.note[lang]  # type: ignore[literal-required]
                if step["message"] is not None and step["from"].startswith("client:"):
                    assert found.side == "client" and found.code, step["method"]
                if not found.code:
                    continue
                compile(found.code, "<snippet>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
                for line in found.code.splitlines():  # string literals may run long
                    assert len(STRING.sub('""', line)) <= 80, line


def test_client_snippets_carry_the_values_on_the_wire() -> None:
    steps = trace("pagination", "2025-06-18")
    second = next(
        s
        for s in steps
        if s["method"] == "tools/list"
        and s["kind"] == "request"
        and (s["message"] or {}).get("params", {}).get("cursor")
    )
    cursor = second["message"]["params"]["cursor"]  # type: ignore[index]
    code = snippet(steps, second["index"]).code
    assert f'cursor="{cursor}"' in code and "session.list_tools(params=params)" in code
    first = snippet(steps, at(steps, kind="request", method="tools/list")).code
    assert first == "page = await session.list_tools()"  # legacy's first page sends no params
    opening = snippet(steps, at(steps, kind="request", method="initialize"))
    assert (
        'protocol_version="2025-06-18"' in opening.code and "session.adopt(result)" in opening.code
    )
    assert "2025-06-18" in opening.note["zh"] and "2025-06-18" in opening.note["ru"]
    latest = trace("pagination", "2025-11-25")
    assert "await session.initialize()" in snippet(latest, at(latest, method="initialize")).code
    modern = trace("list-changed-add", "2026-07-28", "http")
    call = snippet(modern, at(modern, kind="request", method="tools/call")).code
    assert call.splitlines() == [
        "arguments = {",
        '    "order_id": "517",',
        '    "status": "unpaid",',
        "}",
        'result = await client.call_tool("search_invoices", arguments)',
    ]
    probe = snippet(modern, at(modern, kind="request", method="server/discover"), "x")
    assert 'Client(server, mode="auto")' in probe.code and "3001/mcp" in probe.code


def test_server_snippets_are_the_handler_or_the_notification_call() -> None:
    legacy = trace("list-changed-add", "2025-11-25")
    note = at(legacy, method="notifications/tools/list_changed")
    assert snippet(legacy, note) == Snippet(
        "server", "await session.send_tool_list_changed()", texts.text("code.list-changed-legacy")
    )
    modern = trace("list-changed-add", "2026-07-28")
    assert snippet(modern, at(modern, method="notifications/tools/list_changed")).code == (
        "await bus.publish(ToolsListChanged())"
    )
    pages = snippet(modern, at(modern, kind="response", method="tools/list", index=12))
    assert "next_cursor=more" in pages.code and "ttl_ms=" in pages.code
    opened = snippet(legacy, at(legacy, kind="response", method="initialize")).code
    assert '"orders-server"' in opened and "NotificationOptions(tools_changed=True)" in opened
    retry = trace("call-retry", "2025-11-25")
    refused = snippet(retry, at(retry, kind="error", method="tools/call")).code
    assert "code=types.INVALID_PARAMS" in refused and "Unknown tool: find_free_slot" in refused
    failing = trace("tool-results", "2025-11-25")
    tool_error = [s for s in failing if (s["message"] or {}).get("result", {}).get("isError")]
    assert "is_error=True" in snippet(failing, tool_error[0]["index"]).code


def test_steps_without_code_say_why_in_every_language() -> None:
    steps = trace("handshake", "2026-07-28", "http")
    refused = snippet(steps, at(steps, kind="error", method="server/discover"))
    assert (refused.side, refused.code) == ("server", "")  # the SDK answers -32601 itself
    for index, key in [(0, "code.none"), (at(steps, kind="model-request"), "code.model-request")]:
        found = snippet(steps, index)
        assert found.note == texts.text(key)
        assert len({found.note[lang] for lang in LANGUAGES}) == 3  # type: ignore[literal-required]
    cache = trace("cache", "2025-11-25")
    assert snippet(cache, at(cache, kind="cache-hit")).note == texts.text("code.none-cache")
    change = trace("list-changed-add", "2025-11-25")
    moved = next(s for s in change if s["kind"] == "internal" and s["from"] == "server:orders")
    assert snippet(change, moved["index"]) == Snippet(None, "", texts.text("code.none-change"))


def test_every_text_of_the_examples_exists_in_every_language() -> None:
    for key, by_lang in texts.entries().items():
        assert set(by_lang) == set(LANGUAGES), key
        assert by_lang["en"] != by_lang["zh"] and by_lang["en"] != by_lang["ru"], key
        holes = {lang: set(re.findall(r"{(\w+)}", by_lang[lang])) for lang in LANGUAGES}
        assert holes["zh"] == holes["en"] == holes["ru"], key


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_authorization_steps_show_the_sdks_oauth_provider_and_the_hosts_handlers(version: str):
    steps = trace("auth-scoped-tools", version, "http")
    authorizing = [s for s in steps if s["kind"] == "transport"]
    assert len(authorizing) >= 4
    token = next(s for s in authorizing if s["frame"].startswith("POST /token"))
    redirect_uri = re.search(r"redirect_uri=([^&]+)", token["frame"])
    assert redirect_uri
    for step in authorizing:
        found = snippet(steps, step["index"])
        if step["frame"].startswith("GET /authorize?"):  # the user's browser, sent by the host
            assert found.side == "host" and "redirect_handler" in found.note["en"]
            assert "webbrowser.open(url)" in found.code
        else:  # metadata and token requests: the provider makes them by itself
            assert found.side == "client" and "OAuthClientProvider" in found.note["en"]
            assert "OAuthClientProvider(" in found.code and "auth=auth" in found.code
            assert '"https://agent.example.com/oauth/client.json"' in found.code
            assert f'"{unquote(redirect_uri.group(1))}"' in found.code
