"""The classroom's store and group layer, as the configuration asks: both in this process's
memory by default, both in Redis with REDIS_URL (LAB_REDIS_URL), so rooms can span processes.

The store announces every change with a group send (store.py); the group layer hands each
event to `render` (the relay of fanout.py) in every process that holds members of the group.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis

from app.web.classroom.redis_store import RedisStore, connect
from app.web.classroom.store import MemoryStore, RoomStore, StoreUnavailable
from app.web.groups import Groups, MemoryGroups, Render
from app.web.redis_groups import RedisGroups


def open_backends(
    config: Mapping[str, Any], render: Render, log: logging.Logger
) -> tuple[RoomStore, Groups]:
    """(store, groups); StoreUnavailable when the configured Redis cannot be reached."""
    idle = float(config.get("LIVE_IDLE_SECONDS", 4 * 3600))
    url = config.get("REDIS_URL")
    if not url:
        memory = MemoryGroups(render, log)
        return MemoryStore(memory, idle=idle), memory
    groups = RedisGroups(connect(str(url)), render, log)
    try:
        groups.start()
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        groups.redis.close()
        raise StoreUnavailable(str(exc)) from exc
    return RedisStore(groups, idle=idle), groups
