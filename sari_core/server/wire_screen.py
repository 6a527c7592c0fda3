"""Screening stdio lines the SDK would drop without a reply.

The SDK parses each incoming line as one JSON-RPC message; a line that does not
parse (malformed JSON, a lone UTF-16 surrogate, nesting deeper than its parser
allows, a batch, ``"jsonrpc": "1.0"``) is dropped with a log record, and an
object as ``id`` turns a request into a notification. The client then waits for
an answer that never comes. JSON-RPC 2.0 asks for an error reply instead: ``-32700``
when the line is not JSON, ``-32600`` when it is not a valid request, echoing the
request's id when one can be read.

:func:`screen` decides per line: ``None`` lets the line through to the SDK,
otherwise the returned reply is written back and the line goes no further. A
well-formed request costs one parse (a few microseconds); only a line that fails
it is examined further.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

JsonId = str | int | None

# The SDK's parser refuses nesting somewhat deeper than this; a refused request this deep
# is reported as too deep rather than as malformed.
_NESTING_SHOWN = 64
_TOO_DEEP_HINT = "flatten the arguments; deeply nested JSON is refused"


def _error(request_id: JsonId, code: int, message: str, hint: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": code, "message": message, "data": {"hint": hint}}}


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    return list(value) if isinstance(value, list) else []


def _depth(value: Any) -> int:
    # Iterative: some json versions (3.13) parse nesting far deeper than Python's recursion
    # limit, and a recursive walk of such a message would raise instead of answering it.
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in _children(node))
    return deepest


def has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        else:
            stack.extend(_children(node))
    return False


def top_level_id(text: str) -> JsonId:
    """The ``id`` member of a JSON object too deep to parse whole, or None.

    Walks the text once, tracking strings and nesting, and decodes only the value
    of an ``"id"`` key found directly in the outermost object.
    """
    decoder = json.JSONDecoder()
    depth = 0
    index = 0
    length = len(text)
    expect_key = False
    while index < length:
        char = text[index]
        if char == '"':
            try:
                key, end = decoder.raw_decode(text, index)
            except ValueError:
                return None
            if depth == 1 and expect_key and key == "id":
                colon = text.find(":", end)
                if colon < 0:
                    return None
                rest = text[colon + 1:].lstrip()
                try:
                    value, _ = decoder.raw_decode(rest)
                except ValueError:
                    return None
                return value if _valid_id(value) else None
            expect_key = False
            index = end
            continue
        if char in "{[":
            depth += 1
            expect_key = char == "{" and depth == 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 1:
            expect_key = True
        index += 1
    return None


def _screen_object(message: dict[str, Any]) -> dict[str, Any] | None:
    request_id = message.get("id")
    if "id" in message and not _valid_id(request_id):
        return _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer",
                      f"got {type(request_id).__name__}; send a string or integer id")
    reply_id = request_id if _valid_id(request_id) else None
    if message.get("jsonrpc") != "2.0":
        return _error(reply_id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"",
                      f"got jsonrpc={message.get('jsonrpc')!r}; this server speaks JSON-RPC 2.0")
    if "method" not in message:
        return None  # a response to a request of ours (none are sent): nothing to answer
    if not isinstance(message["method"], str):
        return _error(reply_id, INVALID_REQUEST, "Invalid Request: method must be a string",
                      "send the method name as a string, e.g. \"tools/call\"")
    if has_lone_surrogate(message):
        return _error(reply_id, INVALID_PARAMS,
                      "Invalid params: a string holds a lone UTF-16 surrogate (not Unicode)",
                      "escape text as valid UTF-8 or as a surrogate pair (\\ud83d\\ude00)")
    if reply_id is None:
        return None  # a notification the SDK rejects: JSON-RPC sends nothing back
    if _depth(message) > _NESTING_SHOWN:
        return _error(reply_id, INVALID_REQUEST, "Invalid Request: nested too deeply to parse",
                      _TOO_DEEP_HINT)
    return _error(reply_id, INVALID_REQUEST, "Invalid Request: not a valid MCP message",
                  "params must be an object; see the MCP schema for the method")


def _screen_batch(batch: list[Any]) -> list[dict[str, Any]] | dict[str, Any]:
    hint = "this protocol takes one JSON-RPC message per line; send the requests one by one"
    if not batch:
        return _error(None, INVALID_REQUEST, "Invalid Request: empty batch", hint)
    replies = [
        _error(item.get("id"), INVALID_REQUEST, "Invalid Request: batches are not supported",
               hint)
        for item in batch
        if isinstance(item, dict) and _valid_id(item.get("id"))
    ]
    if not replies:
        return _error(None, INVALID_REQUEST, "Invalid Request: batches are not supported", hint)
    return replies


def screen(line: str) -> dict[str, Any] | list[dict[str, Any]] | None:
    """The error reply for ``line``, or None when the SDK may take it as it is."""
    if not line.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        message = None
    if message is not None and not isinstance(message, types.JSONRPCNotification):
        return None
    try:
        parsed = json.loads(line)
    except RecursionError:
        return _error(top_level_id(line), INVALID_REQUEST,
                      "Invalid Request: nested too deeply to parse",
                      _TOO_DEEP_HINT)
    except ValueError as exc:
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON",
                      f"{exc}; send one JSON-RPC message per line")
    if message is not None:
        # A notification by the SDK's reading; an "id" it ignored (an object, say) means
        # the sender expects an answer.
        return _screen_object(parsed) if isinstance(parsed, dict) and "id" in parsed else None
    if isinstance(parsed, list):
        return _screen_batch(parsed)
    if not isinstance(parsed, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON object",
                      "send a JSON-RPC request object")
    return _screen_object(parsed)
