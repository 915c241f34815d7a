"""list_changed: hearing that the server's tools changed, and the refresh that follows.

Legacy servers that declared tools.listChanged send notifications/tools/list_changed on the
session. Modern (2026-07-28) servers send it only on a subscriptions/listen stream the client
opens once it knows the server can: the acknowledgement says what the server will deliver. A
notification beats any TTL: the cache is invalidated and the client re-lists from page 1 (or
queues one more gather if one is under way, discarding the one that saw the change).
"""

from __future__ import annotations

from typing import Any

from . import events as ev
from . import gathering, lists
from .clientcore import ClientCore
from .events import Output
from .jsonrpc import Message
from .requests import Pending
from .versions import Era


def after_ready(client: ClientCore) -> Output:
    """Modern: open the listen stream if the server can tell us about list changes."""
    out = Output()
    wanted_filter = lists.listen_filter(client)  # {"toolsListChanged": true} for a tools server
    if client.era is Era.MODERN and client.config.listen and wanted_filter:
        wanted = {"notifications": wanted_filter}
        message = client.request("subscriptions/listen", wanted, Pending("subscriptions/listen"))
        client.listen_id = message["id"]
        out.messages.append(message)
        out.events.append(ev.ListenSent(message["id"]))
    return out


def on_notification(client: ClientCore, message: Message) -> Output:
    method = message["method"]
    if method == "notifications/subscriptions/acknowledged":
        client.listening = True
        honoured = (message.get("params") or {}).get("notifications") or {}
        taken = lists.acknowledged(client, honoured)
        return Output(events=[ev.ListenAcknowledged(honoured), *taken])
    if method == "notifications/tools/list_changed":
        if not client.config.refresh_on_list_changed:
            # A client that does not act on it (python-sdk v1 dropped it): the cache stays
            # as it was, and only a TTL, a poll or a failed call brings the change in.
            return Output(events=[ev.ListChangedIgnored(client.declares_list_changed())])
        client.cache.valid = False  # the notification beats any TTL
        if client.gathering is not None:
            client.gathering.changed_meanwhile = True
        out = Output(events=[ev.ListChanged(client.declares_list_changed())])
        return out.extend(gathering.refresh(client, reason="list_changed"))
    if method in lists.NOTIFICATIONS:
        return lists.on_notification(client, message)
    return Output(events=[ev.OtherNotification(method)])


def on_listen_closed(client: ClientCore, _: Pending, result: dict[str, Any]) -> Output:
    client.listening = False
    return Output(events=[ev.ListenClosed()])
