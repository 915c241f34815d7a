"""Resources, resource templates and prompts between the lab's client and server: listed and
paginated like tools, gated by the capabilities the server declared, their list_changed, and
resources/updated for one subscribed resource (resources/subscribe until 2025-11-25, a
subscriptions/listen filter in 2026-07-28). Every message is checked against its version's
schema."""

from __future__ import annotations

from typing import Any

import pytest

from app.mcp import listevents as le
from app.mcp import lists, primitives, versions
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

RESOURCES = tuple(
    {
        "uri": f"file:///docs/{n}.md",
        "name": f"{n}.md",
        "title": f"The {n} guide",
        "mimeType": "text/markdown",
        "icons": [{"src": "https://example.com/doc.png"}],
        "text": f"# {n}",
    }
    for n in ("setup", "deploy", "faq")
)
TEMPLATES = ({"uriTemplate": "file:///docs/{name}.md", "name": "doc", "title": "Any doc"},)
PROMPTS = (
    {
        "name": "summarize",
        "title": "Summarize a doc",
        "description": "Summarize one document",
        "arguments": [{"name": "uri", "title": "Document", "required": True}],
    },
)


def config(**given: Any) -> ServerConfig:
    base: dict[str, Any] = {
        "tools": tools("search"),
        "page_size": 2,
        "resources": RESOURCES,
        "resource_templates": TEMPLATES,
        "prompts": PROMPTS,
        "resources_list_changed": True,
        "resources_subscribe": True,
        "prompts_list_changed": True,
    }
    return ServerConfig("docs", **{**base, **given})


def schema_problems(pair: Pair, version: str) -> list[str]:
    asked: dict[Any, str] = {}
    problems = []
    for direction, message in pair.wire:
        if "method" in message and "id" in message:
            asked[message["id"]] = message["method"]
        sender = "client" if direction == "c2s" else "server"
        answered = None if "method" in message else asked.get(message.get("id"))
        problems += check_message(message, version, sender=sender, request_method=answered)
    return problems


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_resources_are_listed_page_by_page_and_shaped_for_the_version(version):
    pair = Pair(version, config()).connect()
    pair.send(pair.client.lists_of("resources"))
    pair.settle()
    sent = [m for d, m in pair.wire if d == "c2s" and m.get("method") == "resources/list"]
    assert [("cursor" in (m.get("params") or {})) for m in sent] == [False, True]
    published = [e for e in pair.events if isinstance(e, le.ListPublished)]
    assert [(e.count, e.pages) for e in published] == [(3, 2)]
    held = pair.client.snapshot()["lists"]["resources"]["items"]
    assert [r["uri"] for r in held] == [r["uri"] for r in RESOURCES]
    # The contents are never listed; title and icons only where the version has them.
    assert all("text" not in r for r in held)
    assert ("title" in held[0]) == versions.at_least(version, "2025-06-18")
    assert ("icons" in held[0]) == versions.at_least(version, "2025-11-25")
    assert schema_problems(pair, version) == []


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_templates_and_prompts_are_their_own_lists(version):
    pair = Pair(version, config()).connect()
    pair.send(pair.client.lists_of("resourceTemplates"))
    pair.send(pair.client.lists_of("prompts"))
    pair.settle()
    snap = pair.client.snapshot()["lists"]
    assert [t["uriTemplate"] for t in snap["resourceTemplates"]["items"]] == [
        "file:///docs/{name}.md"
    ]
    [prompt] = snap["prompts"]["items"]
    assert prompt["arguments"][0].get("title") == (
        "Document" if versions.at_least(version, "2025-06-18") else None
    )
    assert schema_problems(pair, version) == []


def test_a_list_the_server_never_declared_is_not_asked_for():
    pair = Pair("2025-11-25", config(prompts=None)).connect()
    out = pair.client.lists_of("prompts")
    assert out.messages == [] and isinstance(out.events[0], le.ListNotOffered)
    # and a server asked anyway answers as for an unknown method
    [reply] = pair.server.receive({"jsonrpc": "2.0", "id": 99, "method": "prompts/list"})
    assert reply["error"]["code"] == -32601


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_one_updated_resource_is_read_again_and_the_list_is_left_alone(version):
    pair = Pair(version, config()).connect()
    pair.send(pair.client.lists_of("resources"))
    pair.settle()
    pair.send(pair.client.read_resource("file:///docs/faq.md"))
    pair.send(pair.client.subscribe_resource("file:///docs/faq.md"))
    pair.settle()
    assert pair.client.snapshot()["subscribed"] == ["file:///docs/faq.md"]
    lists_before = pair.methods().count("resources/list")
    pair.notify(primitives.edit_resource(pair.server, "file:///docs/faq.md", "# faq v2"))
    pair.notify(primitives.edit_resource(pair.server, "file:///docs/setup.md", "# setup v2"))
    pair.settle()
    updated = [m for d, m in pair.wire if m.get("method") == "notifications/resources/updated"]
    assert [m["params"]["uri"] for m in updated] == ["file:///docs/faq.md"]  # subscribers only
    assert pair.methods().count("resources/list") == lists_before
    assert pair.client.snapshot()["contents"]["file:///docs/faq.md"] == "# faq v2"
    if versions.era_of(version) is versions.Era.MODERN:
        assert "resources/subscribe" not in pair.methods()
        listen = [m for d, m in pair.wire if m.get("method") == "subscriptions/listen"]
        assert listen[-1]["params"]["notifications"] == {
            "resourceSubscriptions": ["file:///docs/faq.md"]
        }
    else:
        assert "resources/subscribe" in pair.methods()
    assert schema_problems(pair, version) == []


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_list_changed_for_resources_relists_resources_only(version):
    pair = Pair(version, config()).connect()
    for key in ("resources", "resourceTemplates", "prompts"):
        pair.send(pair.client.lists_of(key))
    pair.settle()
    counts = {m: pair.methods().count(m) for m in ("resources/list", "prompts/list")}
    added = [*RESOURCES, {"uri": "file:///docs/new.md", "name": "new.md"}]
    pair.notify(primitives.replace_list(pair.server, "resources", added))
    pair.settle()
    assert pair.methods().count("resources/list") == counts["resources/list"] + 2
    assert pair.methods().count("prompts/list") == counts["prompts/list"]
    assert "resources/templates/list" in pair.methods()
    assert pair.methods().count("resources/templates/list") == 1
    published = [
        e for e in pair.events if isinstance(e, le.ListPublished) and e.listing == "resources"
    ]
    assert published[-1].added == ["file:///docs/new.md"] and published[-1].generation == 2
    assert schema_problems(pair, version) == []


def test_a_modern_listen_asks_only_for_what_the_server_declared():
    pair = Pair("2026-07-28", config(resources_list_changed=False)).connect()
    [listen] = [m for d, m in pair.wire if m.get("method") == "subscriptions/listen"]
    assert listen["params"]["notifications"] == {"promptsListChanged": True}
    ack = next(m for d, m in pair.wire if m.get("method", "").endswith("acknowledged"))
    assert ack["params"]["notifications"] == {"promptsListChanged": True}


def test_a_server_without_subscribe_gets_no_subscription_and_sends_no_update():
    pair = Pair("2025-11-25", config(resources_subscribe=False)).connect()
    out = pair.client.subscribe_resource("file:///docs/faq.md")
    assert out.messages == [] and isinstance(out.events[0], le.SubscribeRefused)
    assert primitives.edit_resource(pair.server, "file:///docs/faq.md", "x") == []
    assert "subscribe" not in pair.client.server_capabilities["resources"]


def test_reading_an_unknown_resource_is_an_error_of_the_version():
    for version, code in (("2025-11-25", -32002), ("2026-07-28", -32602)):
        pair = Pair(version, config()).connect()
        pair.send(pair.client.read_resource("file:///nope"))
        pair.settle()
        [failed] = [e for e in pair.events if isinstance(e, le.ResourceReadFailed)]
        assert failed.code == code
        assert schema_problems(pair, version) == []


def test_lists_and_tools_number_their_generations_apart():
    pair = Pair("2025-11-25", config()).connect()
    pair.send(pair.client.lists_of("prompts"))
    pair.send(pair.client.list_tools())
    pair.settle()
    assert pair.client.cache.generation == 1
    assert pair.client.snapshot()["lists"]["prompts"]["generation"] == 1
    assert lists.KINDS["prompts"].method == "prompts/list"
