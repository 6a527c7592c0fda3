"""The output schema of each tool: the fields its structured content really has.

Every response has ``ok``, ``meta`` (truncation, the policies' stabilization block)
and, when refused, ``error``; each tool adds its own payload. The schemas are kept
small (they are listed on every turn) and open (``additionalProperties`` allowed):
plugins may add fields, and a client that validates must not reject them.
"""

from __future__ import annotations

import copy
from typing import Any

_STR = {"type": "string"}
_INT = {"type": "integer"}
_STR_OR_NULL = {"type": ["string", "null"]}  # absent payloads of refusals travel as null

_ENVELOPE: dict[str, Any] = {
    "ok": {"type": "boolean"},
    "error": {"type": "object"},
    "meta": {"type": "object"},
}

_PAYLOADS: dict[str, dict[str, Any]] = {
    "search": {
        "query": _STR_OR_NULL, "total": _INT,
        "matches": {"type": "array", "items": {"type": "object", "properties": {
            "path": _STR, "line": _INT, "end_line": _INT, "snippet": _STR}}},
    },
    "read": {
        "mode": _STR_OR_NULL, "target": _STR_OR_NULL, "text": _STR_OR_NULL,
        "diff": _STR_OR_NULL, "location": {"type": ["object", "null"]},
    },
    "mutation": {
        "tool": _STR, "target": _STR_OR_NULL,
        "changes": {"type": "array", "items": {"type": "object", "properties": {
            "path": _STR, "status": _STR}}},
    },
    "plugin": {"tool": _STR, "target": _STR_OR_NULL},
}
_KIND_OF_TOOL = {"search": "search", "read": "read", "edit": "mutation", "write": "mutation"}


_JSON_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds is None:
        return True
    return any(_JSON_TYPES[kind](value) for kind in ([kinds] if isinstance(kinds, str) else kinds))


def conform(content: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``content`` without the top-level fields whose type its output schema does not allow.

    The last guard before a result leaves: a client that validates structured content (the
    TypeScript SDK does) throws on a mismatch and never shows the model the refusal's text.
    Only ``ok`` is required, so leaving a field out is always valid; the text still says it.
    """
    properties = schema.get("properties", {})
    wrong = [key for key, value in content.items()
             if key in properties and not _fits(value, properties[key])]
    return {key: value for key, value in content.items() if key not in wrong} if wrong \
        else content


def output_schema(tool: str, legacy_read: bool = False) -> dict[str, Any]:
    """The output schema of ``tool`` (a deprecated read wrapper answers like ``read``)."""
    kind = "read" if legacy_read else _KIND_OF_TOOL.get(tool, "plugin")
    return {"type": "object",
            "properties": copy.deepcopy({**_ENVELOPE, **_PAYLOADS[kind]}),
            "required": ["ok"]}
