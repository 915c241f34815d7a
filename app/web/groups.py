"""Named groups of channels and a group send, as Django Channels' channel layers.

A group is a name; `add` and `discard` put a member (an open channel) in it or take it out,
and `send(group, event)` is the only way to reach the members: every member of the group, in
every process, gets the event. An event is a small JSON-able dict, so it can cross processes;
each process turns it into a `Message` once (`render(group, event)`: the payload per kind of
member, encoded once per kind) and offers that to its own members (Channel.offer: straight
into the socket when it takes it at once, else a bounded queue). A member whose queue is full
has stopped reading: it is discarded and aborted, and the others never wait for it.

Members are known per process (`members(group)`): the memory layer is one process; the Redis
layer (app.web.redis_groups) publishes each send and every process delivers it to the members
it holds, as Socket.IO's Redis adapter does. Both have this interface and are tested alike.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from app.web.channel import Message
from app.web.outbound import offer_all

Event = dict[str, Any]
Render = Callable[[str, Event], Message | None]


class Member(Protocol):
    """What a group holds: app.web.channel.Channel, or a test's stand-in."""

    tag: Hashable

    def offer(self, message: Message) -> bool: ...
    def abort(self) -> None: ...


class Groups(Protocol):
    """The group layer: the same for one process (memory) and for many (Redis)."""

    dropped: int
    listening: bool  # whether this process hears sends now (Redis: subscribed)
    epoch: int  # grows each time it starts hearing again after a gap (sends in it were missed)

    def add(self, group: str, member: Member) -> None: ...
    def discard(self, group: str, member: Member) -> None: ...
    def members(self, group: str) -> list[Member]: ...
    def send(self, group: str, event: Event) -> None: ...
    def close(self) -> None: ...


class LocalGroups:
    """This process's members of each group, and the delivery of an event to them."""

    def __init__(self, render: Render, log: logging.Logger | None = None) -> None:
        self.render = render
        self.log = log or logging.getLogger(__name__)
        self.dropped = 0  # members dropped for not reading, since start
        self.listening = True
        self.epoch = 0
        # Members in the order they joined (a dict, not a set): a group send then writes to
        # sockets in about the order the kernel made them, which costs it a fifth less per
        # write than the scattered order of a set (its memory is warmer, measured in bench/).
        self._groups: dict[str, dict[Member, None]] = {}
        self._lock = threading.Lock()

    def add(self, group: str, member: Member) -> None:
        with self._lock:
            self._groups.setdefault(group, {})[member] = None

    def discard(self, group: str, member: Member) -> None:
        with self._lock:
            members = self._groups.get(group)
            if members is not None:
                members.pop(member, None)
                if not members:
                    del self._groups[group]

    def members(self, group: str) -> list[Member]:
        with self._lock:
            return list(self._groups.get(group, ()))

    def deliver(self, group: str, event: Event) -> None:
        """Offer `event` to this process's members of `group`; drop those that stopped reading."""
        members = self.members(group)
        if not members:
            return
        try:
            message = self.render(group, event)
        except Exception:  # a render bug must not stop the layer: log it, keep serving
            self.log.exception("group %s: event %r could not be rendered", group, event.get("kind"))
            return
        if message is None:
            return
        for member in offer_all(members, message):
            self.dropped += 1
            self.discard(group, member)
            member.abort()


class MemoryGroups(LocalGroups):
    """Groups in one process: a send is delivered at once, in the sender's greenlet, so sends
    made in order (under a room's lock) arrive in that order."""

    def send(self, group: str, event: Event) -> None:
        self.deliver(group, event)

    def close(self) -> None:
        with self._lock:
            self._groups.clear()
