"""Interventions a script (or a student's what-if) can make in a run: a message lost on the
way, and a server process that restarts.

RaftScope's idea: each disturbance is a plain function from one world to the next, so a run
that contains it replays exactly. `lose` makes the next messages to be delivered leave their
link unread (the runner asks `lose_instead` before each delivery); `restart` replaces a
server's process (same catalog, no sessions, no subscriptions, no cursors it issued), loses
whatever was in flight to or from it, and has the host open a new connection and list the
tools again, as hosts do after a reconnect.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from app.mcp import framing, lifecycle
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.lifecycle import ClientPhase
from app.mcp.server import MCPServer

from .recorder import actor
from .stage import Stage


class InterventionError(Exception):
    """The world cannot do what the intervention asks (nothing in flight, nothing to restart)."""


@dataclass(frozen=True)
class MessageLost(Event):
    kind: ClassVar[str] = "message-lost"
    method: str | None
    id: Any
    from_client: bool


@dataclass(frozen=True)
class ServerRestarted(Event):
    kind: ClassVar[str] = "server-restarted"
    lost: int


def lose(run: Stage, count: int, action: dict[str, Any]) -> None:
    """The next `count` messages to be delivered never arrive (those in flight now, or the
    next ones sent): each loss is a step of its own, made when the message would arrive."""
    run.world.losing += count


def lose_instead(run: Stage, index: int) -> bool:
    """Called before a delivery: when a loss is due, the message leaves its link unread."""
    if not run.world.losing:
        return False
    run.world.losing -= 1
    env = run.world.queue[index]
    del run.world.queue[index]
    sid, message = env.server_id, env.message
    method = message.get("method")
    answers = None if method else run.world.clients[sid].method_of(message.get("id"))
    shape = "request" if env.from_client else ("notification" if method else "answer")
    run.emit(
        "transport",
        actor(sid, env.from_client),
        actor(sid, not env.from_client),
        events=[MessageLost(method or answers, message.get("id"), env.from_client)],
        phrase=f"intervene.lost-{shape}",
        params={"server": sid, "method": method or answers, "id": message.get("id")},
    )
    return True


def restart(run: Stage, sid: str, reconnect: Callable[[], None]) -> None:
    """A new process for server `sid` with the catalog it has now; the host reconnects."""
    world = run.world
    old_client = world.clients[sid]
    if old_client.phase is ClientPhase.NEW:
        raise InterventionError(f"{sid} has not been connected yet: there is nothing to restart")
    kept = [env for env in world.queue if env.server_id != sid]
    lost = len(world.queue) - len(kept)
    world.queue.clear()
    world.queue.extend(kept)
    old_server = world.servers[sid]
    config = dataclasses.replace(old_server.config, tools=tuple(old_server.tools))
    world.servers[sid] = MCPServer(config)
    client = MCPClient(old_client.config, world.clock)
    # One host, one numbering: the new session's first list is the next generation, not 1 again.
    client.generations = old_client.generations
    world.clients[sid] = client
    link = world.links.get(sid)
    if link is not None:
        world.links[sid] = framing.HttpLink(sid, link.version, authority=link.authority)
    run.emit(
        "internal",
        actor(sid, False),
        actor(sid, False),
        events=[ServerRestarted(lost)],
        phrase="intervene.restart",
        params={"server": sid, "n": lost},
    )
    reconnect()


def unready(run: Stage, sid: str) -> bool:
    """True (and a step saying so) when the host cannot ask this client for tools: only a
    disturbance leaves a client without a finished opening (a lost initialize, say), and a
    host does not list through a connection that never came up."""
    phase = run.world.clients[sid].phase
    if lifecycle.allows(lifecycle.CLIENT_TRANSITIONS, phase, lifecycle.LIST_TOOLS):
        return False
    run.emit(
        "internal",
        "host",
        actor(sid, True),
        phrase="host.not-ready",
        params={"server": sid, "phase": phase.value},
    )
    return True
