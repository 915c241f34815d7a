"""The one way the classroom's stores fail: StoreUnavailable, whatever the backend said."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import redis


class StoreUnavailable(Exception):
    """The room store cannot be reached (Redis down or refusing): say so, keep serving."""


T = TypeVar("T", bound=Callable[..., Any])


def reachable(method: T) -> T:
    """Turn Redis' connection errors into the store's own StoreUnavailable."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    return wrapper  # type: ignore[return-value]
