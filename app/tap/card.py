"""A real client's report card, graded from its session as a tap saw it: probe's rules, the
other way round.

`ClientCard.see` reads each observation of the session (app.mcp.observer: the message, what it
answers, the events it means, when) in order, with the client's mirror after it, and keeps only
what the verdicts need, so a long session costs a few counters. `checks` gives the verdicts at
any moment, each with its level and the spec's sentence (app.probe.levels):

handshake       legacy: initialize first and notifications/initialized after it (MUSTs);
                2026-07-28: server/discover first (advice for a dual-era client: a note)
early-requests  legacy: no request but ping before initialize is answered (a SHOULD NOT)
request-meta    2026-07-28: protocolVersion and clientCapabilities in every request's _meta
all-pages       every walk of tools/list followed nextCursor to the end before the client went
                on (the client SHOULD treat only a missing nextCursor as the end)
relist          a walk from page 1 after list_changed, and how long after (a call on the old list
                meanwhile is noted: no version words it as a rule)
ttl             2026-07-28: no call on a list whose ttlMs had run out without fetching it again
known-tools     every tool called was on a page the client had fetched
cancel          a request the client gave up on (a new walk over one in flight, or the session
                ended by the client with it unanswered) was cancelled

A check with nothing to judge (no list_changed came, no call was made) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.mcp import events as ev
from app.mcp import versions
from app.mcp.lifecycle import ClientPhase
from app.mcp.mirror import ClientMirror
from app.mcp.observer import Observation
from app.mcp.versions import Era
from app.probe.levels import Check, found, passed
from app.probe.session import counted, listed

__all__ = ["ClientCard"]

REQUIRED_META = (versions.META_VERSION, versions.META_CLIENT_CAPABILITIES)
KEPT = 20  # examples kept per kind of fault: a report names a few, and counts them all


@dataclass
class _Change:
    """A list_changed the client was told of, and what it did next."""

    at_ms: int
    relisted_after_ms: int | None = None
    called: list[str] = field(default_factory=list)  # tools called on the old list meanwhile


def _keep(items: list[str], item: str) -> None:
    if len(items) < KEPT:
        items.append(item)


class ClientCard:
    """What the verdicts need from one client's session, gathered message by message."""

    def __init__(self) -> None:
        self.first: str | None = None  # the client's first method
        self.answered_init = False
        self.initialized = False
        self.early: list[str] = []  # requests sent before initialize was answered
        self.before_initialized: list[str] = []
        self.discovered = False
        self.modern_requests = 0
        self.meta_missing: list[str] = []
        self.walks = 0
        self.stopped: list[str] = []  # walks left with a nextCursor the client did not follow
        self.changes: list[_Change] = []
        self.calls = 0
        self.stale: list[str] = []
        self.ttl_seen = False  # a list with a positive ttlMs was used at least once
        self.unknown: list[str] = []
        self.abandoned: list[str] = []
        self.cancelled = 0

    # ----------------------------------------------------------------- reading the session
    def see(self, seen: Observation, mirror: ClientMirror) -> None:
        if seen.from_client:
            self._client(seen, mirror)
        else:
            self._server(seen)

    def _client(self, seen: Observation, mirror: ClientMirror) -> None:
        message, method = seen.message, seen.message.get("method")
        if not isinstance(method, str):
            return
        if self.first is None:
            self.first = method
        is_request = "id" in message
        if method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            self.cancelled += 1
        if is_request and mirror.era is Era.LEGACY and method not in ("initialize", "ping"):
            if not self.answered_init:
                _keep(self.early, method)
            elif not self.initialized:
                _keep(self.before_initialized, method)
        if is_request and mirror.era is Era.MODERN:
            self._meta(message, method)
        if method == "server/discover":
            self.discovered = True
        for event in seen.events:
            if isinstance(event, ev.GatherAbandoned):
                self._abandoned_walk(event.generation, mirror)
            elif isinstance(event, ev.GatherStarted):
                self.walks += 1
                self._relisted(seen.at_ms)
            elif isinstance(event, ev.CallSent):
                self._call(event.name, seen.at_ms, mirror)

    def _meta(self, message: dict[str, Any], method: str) -> None:
        self.modern_requests += 1
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        missing = [k for k in REQUIRED_META if not (isinstance(meta, dict) and k in meta)]
        if missing:
            names = ", ".join(k.removeprefix(versions.META) for k in missing)
            _keep(self.meta_missing, f"{method} (no {names})")

    def _relisted(self, at_ms: int) -> None:
        for change in self.changes:
            if change.relisted_after_ms is None:
                change.relisted_after_ms = at_ms - change.at_ms

    def _call(self, name: str, at_ms: int, mirror: ClientMirror) -> None:
        self.calls += 1
        g = mirror.gathering
        fetched = {t.get("name") for t in mirror.cache.tools}
        if g is not None:
            fetched |= {t.get("name") for page in g.pages for t in page}
        if name not in fetched:
            _keep(self.unknown, name)
        self._stopped_walk(mirror, f"then called {name}")
        for change in self.changes:
            if change.relisted_after_ms is None:
                _keep(change.called, name)
        cache = mirror.cache
        ttl, expires = cache.ttl_ms, cache.expires_at_ms
        if mirror.era is Era.MODERN and cache.generation and ttl and expires is not None:
            self.ttl_seen = True
            if at_ms >= expires and g is None:
                late = at_ms - expires
                _keep(self.stale, f"{name} {late} ms after the list's ttlMs ({ttl} ms) ran out")

    def _stopped_walk(self, mirror: ClientMirror, then: str) -> None:
        """A walk whose last page named a nextCursor and no request follows it up."""
        g = mirror.gathering
        if g is None or g.next_cursor is None or not g.pages:
            return
        for rid in mirror.requests.in_flight:
            pending = mirror.requests.get(rid)
            if pending is not None and pending.generation == g.generation:
                return  # the next page is on its way
        said = f"walk {g.generation} stopped after page {len(g.pages)} with a nextCursor, {then}"
        if said not in self.stopped:
            _keep(self.stopped, said)

    def _abandoned_walk(self, generation: int, mirror: ClientMirror) -> None:
        for rid in mirror.requests.in_flight:
            pending = mirror.requests.get(rid)
            if pending and pending.method == "tools/list" and pending.generation == generation:
                _keep(self.abandoned, f"tools/list {rid} of walk {generation}, left for a new walk")

    def _server(self, seen: Observation) -> None:
        if seen.answers == "initialize" and "method" not in seen.message:
            self.answered_init = True
        told = any(isinstance(e, ev.ListChanged) for e in seen.events)
        if told and not any(c.relisted_after_ms is None for c in self.changes):
            self.changes.append(_Change(seen.at_ms))  # the first since the last walk

    def ended(self, mirror: ClientMirror) -> None:
        """The client ended the session: a walk left short, requests left unanswered."""
        self._stopped_walk(mirror, "then the session ended")
        for rid in mirror.requests.in_flight:
            pending = mirror.requests.get(rid)
            if pending is not None and pending.method != "subscriptions/listen":
                _keep(self.abandoned, f"{pending.method} {rid}, unanswered when the client left")

    # ----------------------------------------------------------------- the verdicts
    def checks(self, mirror: ClientMirror) -> list[Check]:
        known = mirror.era is Era.MODERN or mirror.phase is not ClientPhase.NEW
        version = mirror.version if known else versions.LATEST_LEGACY
        modern = mirror.era is Era.MODERN
        out = [self._handshake(version, modern)]
        if not modern and self.first is not None:
            out.append(self._early(version))
        if modern:
            out.append(self._request_meta(version))
        if self.walks:
            out.append(self._pages(version))
        if self.changes:
            out.append(self._relist(version))
        if modern and self.ttl_seen:
            out.append(self._ttl(version))
        if self.calls:
            out.append(self._known(version))
        out.append(self._cancel(version))
        return out

    def _handshake(self, version: str, modern: bool) -> Check:
        if modern:
            if self.discovered:
                return passed("handshake", "discover-first", version, "server/discover first")
            said = "no server/discover: a client that speaks only 2026-07-28 may go without it"
            return found("handshake", "discover-first", version, said)
        if self.first is None:
            return passed("handshake", "init-first", version, "the client has sent nothing yet")
        if self.first not in ("initialize", "ping"):
            said = f"the client's first message was {self.first}, not initialize"
            return found("handshake", "init-first", version, said)
        if self.before_initialized:
            said = f"{listed(self.before_initialized)} before notifications/initialized"
            return found("handshake", "initialized", version, said)
        if self.answered_init and not self.initialized:
            said = "initialize was answered, and notifications/initialized never came"
            return found("handshake", "initialized", version, said)
        said = f"initialize, then notifications/initialized ({version})"
        return passed("handshake", "initialized", version, said)

    def _early(self, version: str) -> Check:
        if self.early:
            said = f"{listed(self.early)} sent before initialize was answered"
            return found("early-requests", "init-wait", version, said)
        said = "nothing but initialize until its answer came"
        return passed("early-requests", "init-wait", version, said)

    def _request_meta(self, version: str) -> Check:
        if self.meta_missing:
            return found("request-meta", "request-meta", version, listed(self.meta_missing))
        said = f"{counted(self.modern_requests, 'request')} named version and capabilities"
        return passed("request-meta", "request-meta", version, said)

    def _pages(self, version: str) -> Check:
        if self.stopped:
            return found("all-pages", "all-pages", version, listed(self.stopped, 3))
        each = "followed to its last page" if self.walks == 1 else "each followed to its last page"
        said = f"{counted(self.walks, 'walk')} of tools/list, {each}"
        return passed("all-pages", "all-pages", version, said)

    def _relist(self, version: str) -> Check:
        done = [c.relisted_after_ms for c in self.changes if c.relisted_after_ms is not None]
        late = [name for c in self.changes for name in c.called]
        told = counted(len(self.changes), "list_changed")
        if late:
            said = f"after {told}, called {listed(late)} on the old list before listing again"
            return found("relist", "relist", version, said)
        if len(done) < len(self.changes):
            said = f"after {told}, no new walk of tools/list (nothing was called meanwhile)"
            if done:
                said = f"{said}; earlier ones were followed in {listed(done)} ms"
            return passed("relist", "relist", version, said)
        return passed("relist", "relist", version, f"listed again {listed(done)} ms after {told}")

    def _ttl(self, version: str) -> Check:
        if self.stale:
            return found("ttl", "ttl", version, listed(self.stale, 3))
        said = "every call was made on a list still within its ttlMs, or fetched again"
        return passed("ttl", "ttl", version, said)

    def _known(self, version: str) -> Check:
        if self.unknown:
            said = f"called {listed(self.unknown)}, on no page the client had fetched"
            return found("known-tools", "known-tools", version, said)
        said = f"{counted(self.calls, 'call')}, each of a tool the client had listed"
        return passed("known-tools", "known-tools", version, said)

    def _cancel(self, version: str) -> Check:
        if self.abandoned:
            return found("cancel", "cancel", version, listed(self.abandoned, 3))
        said = f"no request left behind ({counted(self.cancelled, 'cancellation')} sent)"
        return passed("cancel", "cancel", version, said)
