"""The simulated world of one run: the peers, the links between them, the clock, the messages
in flight.

A `World` holds a manual clock, one MCPServer per configured server, one MCPClient per server
inside one Host, an HTTP link per server when the transport is HTTP, and a FIFO queue of
messages in flight. `deliver` moves one message across its link: it frames it as the transport
would, hands it to the receiving peer, queues what the peer sends back, and reports what
happened as a `Delivery`; turning that into a step is the recorder's job, deciding what to
deliver when is the runner's. No wall clock, no randomness: the same file and options always
give the same world.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from app.mcp import auth, framing, versions
from app.mcp.client import MCPClient
from app.mcp.clock import ManualClock
from app.mcp.events import Event, Output
from app.mcp.host import Host, PreparedCall
from app.mcp.jsonrpc import Message
from app.mcp.server import MCPServer

from . import narration
from .config import client_config, host_config, server_config
from .step import ModelState, SearchState, State, Text

FIRST_PORT = 3001  # each server its own address, as separate processes would have


@dataclass
class Envelope:
    """A message in flight between a client and its server."""

    from_client: bool
    server_id: str
    message: Message
    stream: Any = None  # the listen request id whose stream carries a modern notification


@dataclass
class Delivery:
    """What delivering one message did: its frame, and for the client, what it made of it."""

    envelope: Envelope
    frame: framing.Frame
    events: list[Event] = field(default_factory=list)  # the receiving client's (s->c only)
    answers: str | None = None  # the method a response answers
    in_gather: int | None = None  # the generation the client was gathering before
    era: str = ""  # the client's era and version before it read the message
    version: str = ""
    refused: auth.Refusal | None = None  # a protected server's 401 or 403: never read


class World:
    def __init__(self, data: dict[str, Any], version: str, transport: str):
        self.version = version
        self.transport = transport
        self.clock = ManualClock()
        self.servers: dict[str, MCPServer] = {}
        self.clients: dict[str, MCPClient] = {}
        self.links: dict[str, framing.HttpLink] = {}
        for spec in data["servers"]:
            sid = spec["id"]
            self.servers[sid] = MCPServer(server_config(spec))
            config = client_config(data.get("client", {}), sid, version, transport)
            self.clients[sid] = MCPClient(config, self.clock)
            if transport == "http":
                authority = f"127.0.0.1:{FIRST_PORT + len(self.links)}"
                self.links[sid] = framing.HttpLink(sid, version, authority=authority)
        self.host = Host(list(self.servers), host_config(data.get("host", {})))
        self.authz = auth.AuthorizationServer()  # issues tokens for protected servers
        self.auth_attempts: dict[tuple[str, Any], int] = {}  # refused requests authorized for
        self.retrying: set[tuple[str, Any]] = set()  # refused requests sent again with a token
        self.queue: deque[Envelope] = deque()
        self.prepared: dict[str, PreparedCall] = {}
        self.console: list[Text] = []  # the agent's console, one {en, zh, ru} per line
        self.model_prompt: str | None = None
        self.losing = 0  # how many of the next deliveries are lost (the `lose` verb)
        self.last_search: SearchState | None = None  # the model's last search_tools call

    # ----------------------------------------------------------------- state
    def tool_snapshots(self) -> dict[str, list[dict[str, Any]]]:
        return {sid: c.cache.tools for sid, c in self.clients.items()}

    def state(self) -> State:
        snaps = self.tool_snapshots()
        model: ModelState = {
            "tools": list(self.host.last_model_tools),  # what the last request carried
            "next": self.host.next_tools(snaps),  # what the next one would carry
            "requests": self.host.model_requests,
            "prompt": self.model_prompt,
        }
        # What only some hosts put in the context (app.mcp.context), present only when used.
        if self.host.last_instructions:
            model["instructions"] = list(self.host.last_instructions)
        if self.host.last_budget is not None:
            model["budget"] = self.host.last_budget
        if self.last_search is not None:
            model["search"] = self.last_search
        state: State = {
            "clockMs": self.clock.now_ms(),
            "servers": {sid: s.snapshot() for sid, s in self.servers.items()},
            "clients": {sid: c.snapshot() for sid, c in self.clients.items()},
            "host": self.host.snapshot(snaps),
            "model": model,
            "console": list(self.console),
        }
        protected = [sid for sid in self.servers if self.protected(sid)]
        if protected:
            issued = len(self.authz.granted)
            state["authz"] = {"issuer": self.authz.issuer, "servers": protected, "tokens": issued}
        return state

    def instructions(self) -> dict[str, str | None]:
        """Each client's copy of its server's instructions (None: it sent none)."""
        return {sid: c.instructions for sid, c in self.clients.items()}

    def log(self, sid: str, event: Event) -> None:
        line = narration.console_line(sid, event)
        if line:
            self.console.append({"en": line["en"], "zh": line["zh"], "ru": line["ru"]})

    # ----------------------------------------------------------------- messages in flight
    def send_from_client(self, sid: str, out: Output) -> None:
        for message in out.messages:
            self.queue.append(Envelope(True, sid, message))

    def send_from_server(self, sid: str, messages: list[Message]) -> None:
        for message in messages:
            meta = (message.get("params") or {}).get("_meta") or {}
            self.queue.append(
                Envelope(False, sid, message, meta.get(versions.META_SUBSCRIPTION_ID))
            )

    def drop_request(self, sid: str, request_id: Any) -> None:
        """A request whose HTTP exchange the client closed: neither it nor its answer travels."""

        def closed(env: Envelope) -> bool:
            request_or_answer = env.from_client == ("method" in env.message)
            return (
                env.server_id == sid and env.message.get("id") == request_id and request_or_answer
            )

        self.queue = deque(env for env in self.queue if not closed(env))

    def queued_cancellation(self, sid: str, request_id: Any) -> int | None:
        """Where the client's notifications/cancelled for `request_id` waits in the queue."""
        for index, env in enumerate(self.queue):
            params = env.message.get("params") or {}
            if (
                env.from_client
                and env.server_id == sid
                and env.message.get("method") == "notifications/cancelled"
                and params.get("requestId") == request_id
            ):
                return index
        return None

    def protected(self, sid: str) -> bool:
        """Is this server behind authorization? Only over HTTP: on stdio credentials come from
        the environment, and the spec's flow does not apply."""
        return self.transport == "http" and self.servers[sid].config.auth is not None

    def gate(self, sid: str, message: Message) -> auth.Refusal | None:
        """The protected server's HTTP check of a client's POST (None: it goes through)."""
        config = self.servers[sid].config.auth
        if config is None or not self.protected(sid):
            return None
        scopes = self.authz.scopes_of(self.clients[sid].auth.token)
        return auth.gate(config, self.links[sid].authority, scopes, message)

    def frame(self, env: Envelope, answers: str | None) -> framing.Frame:
        if self.transport == "stdio":
            return framing.stdio_frame(env.message, from_client=env.from_client)
        link = self.links[env.server_id]
        if env.from_client:
            tool = None
            if env.message.get("method") == "tools/call":
                # the definition the client holds decides the Mcp-Param-* headers
                name = (env.message.get("params") or {}).get("name")
                cached = self.clients[env.server_id].cache.tools
                tool = next((t for t in cached if t["name"] == name), None)
            token = self.clients[env.server_id].auth.token
            return link.client_message(env.message, tool, token)
        return link.server_message(
            env.message,
            answers=answers,
            stream=env.stream,
            legacy_server=not self.servers[env.server_id].speaks_modern,
        )

    def deliver(self, index: int = 0) -> Delivery:
        """Move the index-th message in flight to its receiver (0: the oldest)."""
        env = self.queue[index]
        del self.queue[index]
        sid, message = env.server_id, env.message
        client = self.clients[sid]
        era, version = client.era.value, client.version
        if env.from_client:
            frame = self.frame(env, None)
            refused = self.gate(sid, message)
            if refused is not None:  # the HTTP layer answers; the MCP server never reads it
                frame = framing.Frame(
                    frame.transport, frame.channel, frame.text, auth.refusal_text(refused)
                )
                return Delivery(env, frame, era=era, version=version, refused=refused)
            scopes = self.authz.scopes_of(client.auth.token) if self.protected(sid) else None
            self.send_from_server(sid, self.servers[sid].receive(message, scopes=scopes))
            return Delivery(env, frame, era=era, version=version)
        # The method this answers, from the client's own record, before the client reads it.
        answers = None if "method" in message else client.method_of(message.get("id"))
        frame = self.frame(env, answers)
        in_gather = client.gathering.generation if client.gathering else None
        out = client.receive(message)
        self.send_from_client(sid, out)
        for event in out.events:
            self.log(sid, event)
        return Delivery(env, frame, out.events, answers, in_gather, era, version)
