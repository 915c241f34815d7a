"""The live view of real sessions: the served server records each client's session as trace
steps while it happens, and /watch in `mcp-lab serve` shows them by clientInfo, applies a change
on demand, and opens a session in the four views.

An SDK client (legacy session over Streamable HTTP) talks to the served server in this process;
the web app is driven with Flask's test client, which fetches from the served server over the
loopback socket as the real page does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest
from flask.testing import FlaskClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.web.factory import create_app
from app.web.recorded import parse_trace
from tests.test_engine_step import problems as schema_problems
from tests.test_serving_sdk import gather_session, on_list_changed

TIMEOUT_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def served(scenario: str, server: str) -> Iterator[tuple[str, McpEndpoint]]:
    endpoint = McpEndpoint(load_served(scenario, server))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{shell.port}", endpoint
    finally:
        shell.stop()
        thread.join(5)


@pytest.fixture
def web() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


@pytest.mark.anyio
async def test_watch_shows_a_real_client_live_and_a_change_reaches_it(web: FlaskClient) -> None:
    with served("list-changed-add", "orders") as (base, endpoint):
        changed = anyio.Event()
        async with (
            streamable_http_client(base + "/mcp") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await session.initialize()
                assert (await gather_session(session))[0] == ["read_order", "list_orders"]

                page = web.get(f"/watch?server={base}")
                assert page.status_code == 200
                assert 'hx-trigger="load, every 2s"' in page.get_data(as_text=True)
                live = await anyio.to_thread.run_sync(
                    lambda: web.get(f"/watch/sessions?server={base}").get_data(as_text=True)
                )
                assert "mcp 0.1.0" in live  # the SDK's clientInfo, name and version
                assert "2025-11-25" in live and "tools/list" in live
                assert "POST /mcp HTTP/1.1" in live  # the bytes on the wire

                applied = await anyio.to_thread.run_sync(
                    lambda: web.post(f"/watch/change?server={base}")
                )
                assert applied.status_code == 303
                await changed.wait()
                names, _ = await gather_session(session)
                assert names == ["read_order", "list_orders", "search_invoices"]
                live = await anyio.to_thread.run_sync(
                    lambda: web.get(f"/watch/sessions?server={base}").get_data(as_text=True)
                )
                assert "notifications/tools/list_changed" in live
                assert "+search_invoices" in live

        (summary,) = endpoint.live.summary()
        steps = endpoint.live.steps(summary["id"])
        assert steps is not None
        methods = [s["method"] for s in steps if s["message"] is not None]
        assert (
            methods.count("tools/list") == 6
        )  # one page before the change, two after (asked, answered)
        assert "notifications/tools/list_changed" in methods
        assert summary["client"] == {"name": "mcp", "version": "0.1.0"}
        assert schema_problems(steps) == []  # docs/step.schema.json, as a scenario's trace
        last = steps[-1]["state"]["clients"]["orders"]
        assert [t["name"] for t in last["cache"]["tools"]][-1] == "search_invoices"
        data = "".join(json.dumps(s) + "\n" for s in steps).encode()
        assert len(parse_trace(data)) == len(steps)  # the viewer can show every step

        opened = await anyio.to_thread.run_sync(
            lambda: web.get(f"/watch/open?server={base}&session={summary['id']}")
        )
        assert opened.status_code == 303
        assert f"step={len(steps)}" in opened.headers["Location"]
        viewer = web.get(opened.headers["Location"])
        assert viewer.status_code == 200
        assert "mcp 0.1.0" in viewer.get_data(as_text=True) or "orders-server" in viewer.get_data(
            as_text=True
        )


def test_watch_refuses_addresses_off_this_machine(web: FlaskClient) -> None:
    assert web.get("/watch/sessions?server=http://example.com:80").status_code == 400
    assert web.get("/watch/sessions?server=file:///etc/passwd").status_code == 400
    page = web.get("/watch?server=http://10.0.0.1:3001").get_data(as_text=True)
    assert "Only http:// addresses on this machine" in page
    gone = web.get("/watch/sessions?server=http://127.0.0.1:9").get_data(as_text=True)
    assert "cannot be reached" in gone


def test_a_foreign_page_cannot_apply_changes(web: FlaskClient) -> None:
    with served("pagination", "files") as (base, endpoint):
        refused = web.post(
            f"/watch/change?server={base}", headers={"Origin": "http://elsewhere.example"}
        )
        assert refused.status_code == 403
        cross_site = web.post(
            f"/watch/change?server={base}", headers={"Sec-Fetch-Site": "cross-site"}
        )
        assert cross_site.status_code == 403
        assert endpoint.served.applied == []
        own_page = web.post(
            f"/watch/change?server={base}",
            headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"},  # no-referrer pages
        )
        assert own_page.status_code == 303
        assert len(endpoint.served.applied) == 1
