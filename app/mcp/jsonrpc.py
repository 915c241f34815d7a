"""JSON-RPC 2.0 messages as plain dicts, the error codes MCP uses, and message classification.

Messages stay dicts so that what the lab shows is exactly what would be serialised; builders
omit absent members instead of writing nulls, as real peers do.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

Message = dict[str, Any]
RequestId = int | str

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022


class Kind(StrEnum):
    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"
    ERROR = "error"


class ProtocolError(Exception):
    """A peer broke the rules. `side` says which: "local" (we would have) or "remote" (they did)."""

    def __init__(self, message: str, *, side: str = "remote", code: int = INVALID_REQUEST):
        super().__init__(message)
        self.side = side
        self.code = code


def request(request_id: RequestId, method: str, params: dict[str, Any] | None = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def result(request_id: RequestId, payload: dict[str, Any]) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "result": payload}


def error(request_id: RequestId | None, code: int, text: str, data: Any = None) -> Message:
    body: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def classify(message: Any) -> Kind:
    """What kind of JSON-RPC message this is; raises ProtocolError for anything else."""
    if not isinstance(message, dict):
        raise ProtocolError("a JSON-RPC message must be an object")
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError('"jsonrpc" must be "2.0"')
    has_id = "id" in message
    id_missing = has_id and (message["id"] is None or isinstance(message["id"], bool))
    if id_missing and "error" not in message:
        raise ProtocolError("id must be a string or a number, never null")
    if has_id and not isinstance(message["id"], int | str | None):
        raise ProtocolError("id must be a string or a number")
    if "method" in message:
        if not isinstance(message["method"], str):
            raise ProtocolError("method must be a string")
        if "params" in message and not isinstance(message["params"], dict):
            raise ProtocolError("params must be an object in MCP")
        return Kind.REQUEST if has_id else Kind.NOTIFICATION
    if "result" in message and "error" not in message and has_id:
        if not isinstance(message["result"], dict):
            raise ProtocolError("an MCP result must be an object")
        return Kind.RESPONSE
    if "error" in message and "result" not in message:
        err = message["error"]
        if not isinstance(err, dict) or not isinstance(err.get("code"), int):
            raise ProtocolError("error must be an object with an integer code")
        return Kind.ERROR
    raise ProtocolError("not a request, notification or response")
