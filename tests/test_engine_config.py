"""Scenario defaults have one home, the core's config dataclasses: the runner passes only what a
file says, and docs/SCENARIOS.md quotes the defaults those dataclasses hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.engine import config
from app.mcp.client import ClientConfig
from app.mcp.host import HostConfig
from app.mcp.server import ServerConfig

DOC = (Path(__file__).resolve().parents[1] / "docs" / "SCENARIOS.md").read_text("utf-8")

QUOTED = [
    (ClientConfig, config.CLIENT_KEYS, "cacheTtlMs"),
    (ClientConfig, config.CLIENT_KEYS, "listen"),
    (ClientConfig, config.CLIENT_KEYS, "probe"),
    (ClientConfig, config.CLIENT_KEYS, "maxPages"),
    (HostConfig, config.HOST_KEYS, "rebuildEveryRequest"),
    (ServerConfig, config.SERVER_KEYS, "version"),
    (ServerConfig, config.SERVER_KEYS, "pageSize"),
    (ServerConfig, config.SERVER_KEYS, "listChanged"),
    (ServerConfig, config.SERVER_KEYS, "ttlMs"),
    (ServerConfig, config.SERVER_KEYS, "cacheScope"),
]


def doc_default(key: str) -> str:
    found = re.search(rf"`{key}` \([^)]*?default:?\s+([\w.]+)", DOC)
    assert found, f"docs/SCENARIOS.md does not quote the default of {key}"
    return found.group(1)


@pytest.mark.parametrize(("kind", "keys", "key"), QUOTED, ids=[q[2] for q in QUOTED])
def test_the_documented_default_is_the_one_the_config_holds(kind, keys, key):
    default = config.default_of(kind, key, keys)
    shown = str(default).lower() if isinstance(default, bool) else str(default)
    assert doc_default(key) == shown


def test_a_key_the_file_leaves_out_gets_the_dataclass_default():
    server = config.server_config({"name": "s", "tools": []})
    assert server == ServerConfig("s")
    client = config.client_config({}, "s", "2025-11-25", "http")
    assert client == ClientConfig("s", protocol_version="2025-11-25", http=True)
    assert config.host_config({}) == HostConfig()


def test_every_key_a_file_may_set_reaches_its_field():
    spec = {
        "name": "s",
        "tools": [],
        "pageSize": 2,
        "staleCursors": "reject",
        "failingTools": ["a"],
    }
    server = config.server_config(spec)
    assert (server.page_size, server.stale_cursors, server.failing_tools) == (
        2,
        "reject",
        frozenset({"a"}),
    )
    host = config.host_config({"deny": {"mei": ["billing/*"]}, "rebuildEveryRequest": False})
    assert host.deny == {"mei": ("billing/*",)} and host.rebuild_every_request is False
