"""The relay: how a room's events become the frames its followers get.

The store announces every change of a room with a group send (store.py); the group layer
(app.web.groups) calls `Relay.render` once per event in each process that holds followers of
the room, and offers the resulting `Message` to each of them. The relay only decides what kind
of message it is and asks one function per kind of follower (a channel's tag, a `Follower`:
audience, language, attached) for its text (payload.py); the message encodes that text once
per kind, so the same bytes go to every follower of a kind, written into its socket as it
takes them (Channel.offer), as websockets' broadcast() does.

Counts (students present, votes per choice) are state, not events: a class of hundreds joining
or voting at once sends one count per join or vote, more than any queue should hold. They are
`latest` messages, one pending per kind, replaced by the newer count and rendered when the
instructor's handler next writes, so a burst costs the instructor one frame, not a full queue
(and a drop). A room that ends sends its last frame and closes every follower's socket.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from flask import Flask, has_request_context

from app.web.channel import Message
from app.web.classroom import frames
from app.web.classroom.needs import Relays
from app.web.classroom.payload import Follower, Payloads
from app.web.classroom.room import Room

__all__ = ["Follower", "Relay"]


class Relay:
    """Room events → messages for the group layer (see the module docstring)."""

    def __init__(self, app: Flask, live: Relays) -> None:
        self.app = app
        self.live = live
        self.payloads = Payloads(live)

    def render(self, group: str, event: dict[str, Any]) -> Message | None:
        kind = event.get("kind")
        live = self.live
        if kind == "room":
            room, before = Room.from_json(event["room"]), event["before"]
            if room.ended:
                return Message(self._each(lambda f: self.payloads.ended(room, f)), close="ended")
            return Message(self._each(lambda f: self.payloads.step(room, before, f)))
        if kind == "votes":
            poll, counts = event["poll"], event["counts"]
            return Message(
                self._each(lambda f: live.counts_frame(f.code, poll, counts, f.lang)), latest=kind
            )
        if kind == "students":
            n = event["n"]
            return Message(
                self._each(lambda f: frames.marker(None, "local") + live.students_html(n, f.lang)),
                latest=kind,
            )
        return None

    def _each(self, make: Callable[[Follower], str | bytes]) -> Callable[[Hashable], Any]:
        """`make` for a channel's tag, in a request context (a Redis listener has none), and
        never raising: a render bug is logged and that kind of follower gets nothing."""

        def render(tag: Hashable) -> str | bytes | None:
            if not isinstance(tag, Follower):
                return None
            try:
                if has_request_context():
                    return make(tag)
                with self.app.test_request_context("/"):
                    return make(tag)
            except Exception:
                self.app.logger.exception("live relay: rendering for %s failed", tag)
                return None

        return render
