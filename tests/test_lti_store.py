"""LTI launches in the lab's store: with Redis, a launch begun by one server process is finished
by another, and a finished launch is still found after a restart (LAB_REDIS_URL), where the
memory of one process loses them.

The platform is tests/lti_platform.py; the browser's part (follow redirects, submit the
platform's form) is played with urllib, so each step can go to a different app instance.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from joserfc.jwk import RSAKey
from werkzeug.serving import make_server

from app.web.factory import create_app
from app.web.lti_store import MemoryCache, RedisCache, open_cache
from tests.conftest import default_engine, free_port
from tests.lti_platform import Platform, create_platform


@contextmanager
def serving(app: Flask, port: int) -> Iterator[None]:
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Browser:
    """Cookies and one request at a time, redirects not followed (each hop is a test's step)."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect
        )

    def open(self, url: str, form: dict[str, str] | None = None) -> tuple[int, str, str]:
        """(status, Location, body)."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        try:
            with self.opener.open(url, data=data, timeout=30) as answer:
                return answer.status, answer.headers.get("Location", ""), answer.read().decode()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.headers.get("Location", ""), answer.read().decode()


@pytest.fixture
def lms(tmp_path: Path) -> Iterator[dict[str, Any]]:
    key = RSAKey.generate_key(2048)
    (tmp_path / "tool-private.pem").write_bytes(key.as_pem(private=True))
    (tmp_path / "tool-public.pem").write_bytes(key.as_pem(private=False))
    tool_port, platform_port = free_port(), free_port()
    tool = f"http://127.0.0.1:{tool_port}"
    platform = Platform(f"http://127.0.0.1:{platform_port}", tool)
    config = tmp_path / "lti.json"
    config.write_text(json.dumps(platform.tool_config("tool-private.pem", "tool-public.pem")))
    with serving(create_platform(platform), platform_port):
        yield {"platform": platform, "config": str(config), "tool": tool, "port": tool_port}


def _tool_app(lms: dict[str, Any], redis_url: str | None) -> Flask:
    config = {"LAB_ENGINE": default_engine(), "LTI_CONFIG": lms["config"]}
    return create_app(config | ({"REDIS_URL": redis_url} if redis_url else {}))


def _launch(lms: dict[str, Any], redis_url: str | None) -> tuple[int, str]:
    """A student's launch where each hop reaches a new process of the lab (a fresh app): the
    login on one, the launch on the next. (status, Location) of the launch."""
    browser, platform = Browser(), lms["platform"]
    _, login, _ = browser.open(f"{platform.url}/start/resource?scenario=cache")
    with serving(_tool_app(lms, redis_url), lms["port"]):
        status, auth, _ = browser.open(login)
    assert status == 302 and auth.startswith(f"{platform.url}/auth")
    _, _, page = browser.open(auth)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page))
    with serving(_tool_app(lms, redis_url), lms["port"]):
        status, where, _ = browser.open(
            f"{lms['tool']}/lti/launch", {k: unescape(v) for k, v in fields.items()}
        )
    return status, where


def test_a_launch_survives_a_restart_and_crosses_processes_with_redis(lms, redis_url: str):
    status, where = _launch(lms, redis_url)
    assert status == 303 and "/scenario/cache?" in where
    launch = urllib.parse.parse_qs(urllib.parse.urlsplit(where).query)["lti"][0]
    body = {"launch": launch, "scenario": "cache", "version": "x", "transport": "y"}
    with serving(_tool_app(lms, redis_url), lms["port"]):  # restarted: the launch is still known
        request = urllib.request.Request(
            f"{lms['tool']}/lti/score",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
    # Found (a 404 would say "unknown or expired launch"); refused only for its bad version.
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["error"] == "unknown version or transport"
    keys = redis.Redis.from_url(redis_url).keys("lab:lti:*")
    assert keys and all(k.startswith(b"lab:lti:") for k in keys)


def test_without_redis_a_launch_cannot_cross_processes(lms):
    status, _ = _launch(lms, None)
    assert status == 401  # the second process never saw the login's state and nonce


def test_the_caches_keep_json_values_until_they_expire(redis_url: str):
    assert isinstance(open_cache({}), MemoryCache)
    cache = open_cache({"REDIS_URL": redis_url})
    assert isinstance(cache, RedisCache)
    cache.set("launch-1", {"sub": "student-42", "roles": ["Learner"]}, 60)
    cache.set("nonce-abc", True, 1)
    assert cache.get("launch-1") == {"sub": "student-42", "roles": ["Learner"]}
    assert cache.get("nonce-abc") is True
    assert cache.get("missing") is None
    assert 0 < cache.redis.ttl("lab:lti:nonce-abc") <= 1
