"""The one Origin / Sec-Fetch-Site policy (app.guard), as plain functions: what a browser sends
from the lab's own page, from another site, from another port of the same host, from a
sandboxed frame, and what a script sends; the Host check against DNS rebinding."""

from __future__ import annotations

import pytest

from app.guard import authority, host_allowed, judge, origin_of, setting

LAB = ["127.0.0.1:5000"]


@pytest.mark.parametrize(
    ("origin", "site", "reason"),
    [
        # the lab's own pages: a websocket carries the real origin, a no-referrer form POST "null"
        ("http://127.0.0.1:5000", None, None),
        ("http://127.0.0.1:5000", "same-origin", None),
        ("null", "same-origin", None),
        (None, "same-origin", None),
        (None, "none", None),  # typed in the address bar
        # not a browser: no Origin, no Sec-Fetch-Site
        (None, None, None),
        # another site
        ("http://evil.example", "cross-site", "cross-site"),
        ("http://evil.example", None, "foreign-origin"),
        (None, "cross-site", "cross-site"),
        # another port of the same host: same-site for a browser, another origin all the same
        ("http://127.0.0.1:5001", "same-site", "same-site"),
        ("http://127.0.0.1:5001", None, "foreign-origin"),
        ("http://localhost:5000", "same-site", "same-site"),
        # an opaque origin without a browser's word that it is ours (a sandboxed frame)
        ("null", None, "opaque-origin"),
        ("null", "cross-site", "cross-site"),
        ("file://127.0.0.1:5000", None, "opaque-origin"),
        # a Sec-Fetch-Site we do not know is not trusted
        (None, "sideways", "cross-site"),
    ],
)
def test_judge(origin: str | None, site: str | None, reason: str | None) -> None:
    refusal = judge(origin, site, LAB)
    assert (refusal.reason if refusal else None) == reason


def test_default_ports_and_case_do_not_matter() -> None:
    assert judge("https://LAB.example:443", None, ["lab.example:443"]) is None
    assert judge("https://lab.example", None, ["lab.example"]) is None
    assert judge("http://lab.example", None, ["lab.example:80"]) is None
    assert judge("https://lab.example", None, ["lab.example:80"]) is not None


def test_allowed_origins_pass_even_from_another_site() -> None:
    allowed = setting("https://lab.school.example/ http://127.0.0.1:6274")
    assert allowed == {"https://lab.school.example", "http://127.0.0.1:6274"}
    assert judge("https://lab.school.example", "cross-site", ["10.0.0.2:5000"], allowed) is None
    assert judge("http://127.0.0.1:6274", "same-site", LAB, allowed) is None
    assert judge("http://127.0.0.1:6275", "same-site", LAB, allowed) is not None


def test_an_entry_that_wants_a_browser_refuses_a_bare_client() -> None:
    refusal = judge(None, None, LAB, browserless=False)
    assert refusal is not None and refusal.reason == "not-a-browser"


def test_origins_and_hosts_are_read_strictly() -> None:
    assert origin_of("HTTP://Example.ORG:80/") == "http://example.org"
    assert origin_of("http://[::1]:9000") == "http://[::1]:9000"
    assert origin_of("null") is None and origin_of("http://x:99999") is None
    assert authority("[::1]:5000") == ("::1", 5000)
    assert authority("lab.example", "https") == ("lab.example", 443)
    assert authority("lab.example:nope") is None


def test_a_loopback_server_takes_only_its_own_names_in_host() -> None:
    own = ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"]
    assert host_allowed("127.0.0.1:8000", own) and host_allowed("LOCALHOST:8000", own)
    assert not host_allowed("attacker.example:8000", own)  # DNS rebinding
    assert not host_allowed("127.0.0.1:8001", own)
    assert host_allowed(None, own)  # no browser omits Host
    assert host_allowed("192.168.1.20:8000", ["0.0.0.0:8000"])  # bound to every address
