"""Shared fixtures: the app with its engine, its test client, and a live server.

`lab_engine` decides what the app runs: the real engine (app.engine) once it can be imported,
else the stand-in in tests/fakelab.py; a test module can override the fixture to pin either.
`live_server` serves a fresh app on a free 127.0.0.1 port from a thread (werkzeug's threaded
server, which flask-sock supports), for the browser tests.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import tempfile
import threading
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server

from app.web.factory import create_app
from tests import fakelab, parallel

# A wait for a state ends as soon as the state is there; only its limit grows. Playwright's
# expect gives up after 5 s by default, which a loaded 2-core machine can take for one step of
# a page over its websocket.
WAIT_S = 30


def pytest_sessionstart(session: pytest.Session) -> None:
    try:
        from playwright.sync_api import expect
    except ImportError:  # the browser tests are skipped then
        return
    expect.set_options(timeout=WAIT_S * 1000)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, there when it is installed
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadgroup` hands tests to `make test`'s processes in the units of tests/parallel."""
    return parallel.scheduler(config, log)


def pytest_configure(config: pytest.Config) -> None:
    """Scenario verdicts (app.engine.verdicts) are kept in pytest's cache folder rather than the
    user's: the suite and every server it starts share them, and a run after a change judges
    only what the change touched (the key covers the files and the validating code)."""
    if "LAB_CACHE_DIR" not in os.environ:
        cache = getattr(config, "cache", None)
        folder = cache.mkdir("mcp-lab") if cache else tempfile.mkdtemp(prefix="mcp-lab-cache-")
        os.environ["LAB_CACHE_DIR"] = str(folder)


def default_engine() -> object | None:
    """None (the real app.engine) once it can be imported, else the stand-in fakelab."""
    try:
        importlib.import_module("app.engine.library")
        importlib.import_module("app.engine.runner")
    except ImportError:
        return fakelab
    return None


@pytest.fixture
def lab_engine() -> object | None:
    """What the app runs: None is app.engine; a module with load_library and run_trace."""
    return default_engine()


@pytest.fixture
def app(lab_engine: object | None) -> Flask:
    return create_app({"TESTING": True, "LAB_ENGINE": lab_engine})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served_from_a_thread(app: Flask) -> Iterator[str]:
    """Base URL of `app` served by werkzeug's threaded server on a free 127.0.0.1 port."""
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """Base URL of the lab served from a thread for the whole session."""
    with served_from_a_thread(
        create_app({"LAB_ENGINE": default_engine(), "AUTOPLAY_MS": 400})
    ) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Debian Chromium per test module, for browser modules without a launcher of their own
    (a module that defines `browser` itself overrides this one)."""
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from tests.test_browser_viewer import ARGS, CHROMIUM

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis for the live rooms: `make test`'s (LAB_TEST_REDIS_URL), else one started here.

    Started like the Makefile does (Debian's redis-server on a free port, no persistence) when
    pytest runs alone; the tests that need it are skipped when the server is not installed.
    """
    import os
    import shutil
    import subprocess
    import time

    import redis

    url = os.environ.get("LAB_TEST_REDIS_URL")
    proc = None
    if not url:
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed (make redis installs it)")
        port = free_port()
        proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    yield url
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=5)
