"""Turning the contract's response objects into MCP tool results, and the server's own refusals.

Every tool answers with one JSON object. It travels whole as structured content
(described by the tool's output schema); the text block is what a model reads:
by default the text written for a model (:mod:`sari_core.rendering`), or, with
``text_format = "json"``, the same JSON for programs that parse text. A refusal
(``ok: false``) is marked as an MCP tool error (``isError``) so clients and
models notice it, while the transport carries on.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pydantic_core

from sari_core.errors import ErrorCode
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.models import NextCall
from sari_core.rendering import render
from sari_core.responses import error_response
from sari_core.server.output_schemas import conform

# Error codes the server itself emits (the kernel never sees these calls through).
UNKNOWN_TOOL = ErrorCode.UNKNOWN_TOOL
REQUEST_TOO_LARGE = ErrorCode.REQUEST_TOO_LARGE
INTERNAL_ERROR = ErrorCode.INTERNAL_ERROR
INVALID_ARGS = ErrorCode.INVALID_ARGS


def to_call_result(response: dict[str, Any], text_format: str = "model",
                   structured: bool = True,
                   schema: dict[str, Any] | None = None) -> types.CallToolResult:
    """The MCP result for a response object: the whole object as structured content (unless
    ``structured`` is False), and the text for a model (``text_format="model"``) or the same
    JSON (``"json"``). A refusal's structured content is held to the tool's output
    ``schema``."""
    text, content = _encode(response)
    if text_format != "json":
        text = render(content)
    if structured and schema is not None and not content.get("ok"):
        content = conform(content, schema)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=content if structured else None,
        is_error=not bool(content.get("ok")),
    )


def _encode(response: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Compact JSON text, and structured content that serialises to the same JSON.

    pydantic-core's serialiser (the one the SDK puts on the wire) is several times
    faster than ``json.dumps`` for a response carrying a few hundred lines. It writes
    paths, sets and the like natively, exactly as the SDK will; anything it does not
    know (a plugin's stray object) becomes its ``str`` in both forms instead of
    failing the call.
    """
    unknown = False

    def fallback(value: object) -> str:
        nonlocal unknown
        unknown = True
        return str(value)

    text = pydantic_core.to_json(response, fallback=fallback).decode("utf-8")
    return text, (json.loads(text) if unknown else response)


def server_refusal(
    kind: dict[str, Any],
    code: str,
    message: str,
    hint: str,
    next_calls: list[NextCall] | None = None,
) -> dict[str, Any]:
    """A refusal in the contract's shape for a call the kernel never saw."""
    folded = FoldedVerdict(next_calls=list(next_calls or []))
    return error_response(kind, code, message, hint, folded, {})


def unknown_tool(name: str, available: list[str]) -> dict[str, Any]:
    return server_refusal(
        {"tool": name, "target": None}, UNKNOWN_TOOL,
        f"unknown tool {name!r}.",
        f"Call one of: {', '.join(available)}. Start with search.",
        [NextCall(tool="search", arguments={"query": "<what you are looking for>"})],
    )


def request_too_large(name: str, size: int, limit: int) -> dict[str, Any]:
    return server_refusal(
        {"tool": name, "target": None}, REQUEST_TOO_LARGE,
        f"the arguments of {name} are {size} bytes; this server accepts at most {limit}.",
        "Send smaller arguments: split a large write into a write plus edits, or raise "
        "SARI_MAX_REQUEST_BYTES on the server.",
    )


def arguments_not_object(name: str) -> dict[str, Any]:
    return server_refusal(
        {"tool": name, "target": None}, INVALID_ARGS,
        f"the arguments of {name} must be a JSON object.",
        f"Send the arguments as an object; see the {name} tool's input schema.",
    )


def internal_error(name: str, exc: BaseException, incident: str) -> dict[str, Any]:
    return server_refusal(
        {"tool": name, "target": None}, INTERNAL_ERROR,
        f"{name} failed inside the server: {type(exc).__name__}: {exc}",
        f"This is a bug, not your input; the server log has incident {incident}. Retry once, "
        "or continue with another call: the connection is still usable.",
    )
