"""Bad arguments for every listed tool, derived from its listed input schema.

For each tool: each required argument left out, each listed argument of a JSON type it does
not take, an argument it does not have, and each integer (or enum) argument out of its
range. Every case names the argument at fault, which the refusal's text must name too (that
is the fix the model is told). The valid base a case starts from is a small, known call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# A call of each core tool that passes validation; a plugin tool starts from its required
# string arguments filled in.
VALID_BASE: dict[str, dict[str, Any]] = {
    "search": {"query": "handler"},
    "read": {"mode": "file", "target": "a.py"},
    "edit": {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"},
    "write": {"path": "new.py", "content": "y = 1\n"},
    "context_query": {"text": "handler"},
}
# Values no lax validation turns into the declared type.
WRONG_VALUE = {"string": [5], "integer": "many", "number": "many", "boolean": "maybe",
               "array": "one", "object": "one"}
UNKNOWN = "colour"


@dataclass(frozen=True)
class BadCall:
    tool: str
    kind: str  # missing | wrong type | unknown | out of range
    arguments: dict[str, Any]
    at_fault: str  # the argument the refusal must name

    @property
    def label(self) -> str:
        return f"{self.tool}:{self.kind}:{self.at_fault}"


def _type_of(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else (kind[0] if isinstance(kind, list) else None)


def bad_calls(tools: list[dict[str, Any]]) -> list[BadCall]:
    """Every bad call for the listed ``tools`` (``name`` and ``inputSchema`` each)."""
    calls: list[BadCall] = []
    for tool in tools:
        name, schema = tool["name"], tool["inputSchema"]
        properties: dict[str, Any] = schema.get("properties", {})
        required: list[str] = schema.get("required", [])
        base = dict(VALID_BASE.get(name) or {key: "x" for key in required})
        for key in required:
            calls.append(BadCall(name, "missing", {k: v for k, v in base.items() if k != key},
                                 key))
        for key, prop in properties.items():
            kind = _type_of(prop)
            if "enum" in prop:
                calls.append(BadCall(name, "wrong type", {**base, key: 7}, key))
                calls.append(BadCall(name, "out of range", {**base, key: "no-such-value"}, key))
            elif kind in WRONG_VALUE:
                calls.append(BadCall(name, "wrong type", {**base, key: WRONG_VALUE[kind]}, key))
            if kind == "integer":
                calls.append(BadCall(name, "out of range", {**base, key: -1}, key))
        calls.append(BadCall(name, "unknown", {**base, UNKNOWN: "red"}, UNKNOWN))
    return calls
