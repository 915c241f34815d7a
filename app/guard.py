"""Who may change the lab or open its sockets: one Origin / Sec-Fetch-Site policy, no web framework.

A browser lets any page send a form POST, a `fetch` or a websocket handshake to any address,
with the user's cookies; what it will not let a page forge are the `Origin` and `Sec-Fetch-*`
headers. So every entry that changes state (a POST), opens a socket, or (on the served MCP
endpoint) answers at all, asks `judge` whether the request came from one of the server's own
pages. The Flask app (app.web.security) and the h11 endpoint (app.serving.endpoint) both call
it, so the rule is written once:

1. an `Origin` listed in `LAB_ALLOWED_ORIGINS` passes (a reverse proxy's public name);
2. `Sec-Fetch-Site` decides when a browser sends it: `same-origin` or `none` (typed by the user)
   pass; `same-site` is refused too, because a site ignores ports: another program on
   127.0.0.1:8080 is "same-site" with a lab on 127.0.0.1:5000 and must not drive it;
3. a real `Origin` must name the server's own host and port; `null` (what a page served with
   Referrer-Policy: no-referrer sends on its own form POSTs, and what a sandboxed frame sends)
   passes only when Sec-Fetch-Site said same-origin;
4. no `Origin` and no `Sec-Fetch-Site`: not a browser (the SDK, curl, the probe), since every
   browser sends Origin on a POST and on a websocket handshake. Each entry says whether such a
   client may pass (`browserless`); nothing a page could do reaches it that way.

`host_allowed` is the other half of DNS rebinding on a loopback server: a page on
attacker.example whose name is made to resolve to 127.0.0.1 is same-origin with itself, so its
requests carry matching Origin and Sec-Fetch-Site but `Host: attacker.example`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["Refusal", "authority", "host_allowed", "judge", "origin_of", "setting"]

Reason = Literal["cross-site", "same-site", "foreign-origin", "opaque-origin", "not-a-browser"]
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
WILDCARDS = frozenset({"0.0.0.0", "::", ""})  # a server bound to every address has no one name


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: `reason` for code and tests, `detail` for the server's log."""

    reason: Reason
    detail: str


def setting(value: object) -> frozenset[str]:
    """A space-separated setting (LAB_ALLOWED_ORIGINS) or a list, as normalized origins."""
    items = value.split() if isinstance(value, str) else list(value or [])  # type: ignore[call-overload]
    return frozenset(o for o in (origin_of(str(item)) for item in items) if o is not None)


def origin_of(text: str) -> str | None:
    """`scheme://host[:port]` in lower case without a default port, or None when `text` is not
    an http(s) origin (`null`, `file://`, garbage)."""
    parts = urlsplit(text.strip().rstrip("/"))
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or port == DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def authority(host: str, scheme: str = "http") -> tuple[str, int] | None:
    """A Host header (or an origin's host and port) as (name, port), the port defaulted from
    `scheme`; None when it cannot be read."""
    parts = urlsplit("//" + host.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.hostname is None:
        return None
    return parts.hostname.lower(), port if port is not None else DEFAULT_PORTS.get(scheme, 80)


def _same_authority(origin: str, hosts: Iterable[str]) -> bool:
    parts = urlsplit(origin)
    own = authority(parts.netloc, parts.scheme)
    return own is not None and any(authority(h, parts.scheme) == own for h in hosts)


def judge(
    origin: str | None,
    fetch_site: str | None,
    hosts: Collection[str],
    allowed: Collection[str] = frozenset(),
    *,
    browserless: bool = True,
) -> Refusal | None:
    """None when a request with these headers may reach a server known as `hosts` (its Host
    header values, e.g. "127.0.0.1:5000"), else the Refusal (rules in the module docstring).
    `allowed` holds extra origins as `setting` returns them."""
    site = fetch_site.strip().lower() if fetch_site is not None else None
    normal = origin_of(origin) if origin is not None else None
    if normal is not None and normal in allowed:
        return None
    if site is not None and site not in ("same-origin", "none"):
        kind: Reason = "same-site" if site == "same-site" else "cross-site"
        return Refusal(kind, f"Sec-Fetch-Site: {site[:40]}, Origin: {str(origin)[:100]}")
    if origin is not None:
        if normal is None:  # "null" or not http(s): only our own no-referrer pages send null
            if site is not None:
                return None
            return Refusal("opaque-origin", f"Origin: {origin[:100]}")
        if _same_authority(normal, hosts):
            return None
        return Refusal("foreign-origin", f"Origin {origin[:100]} is not {', '.join(hosts)}")
    if site is not None or browserless:
        return None
    return Refusal("not-a-browser", "no Origin and no Sec-Fetch-Site")


def host_allowed(host: str | None, hosts: Collection[str]) -> bool:
    """Whether a Host header names this server (DNS rebinding: see the module docstring).
    A request without Host is no browser's (HTTP/1.1 browsers always send it); a server bound
    to every address cannot know its names, so it takes any."""
    if host is None or not hosts:
        return True
    names = [authority(h) for h in hosts]
    if any(name is None or name[0] in WILDCARDS for name in names):
        return True
    return authority(host) in names
