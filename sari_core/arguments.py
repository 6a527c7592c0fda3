"""Argument validation at the boundary: raw tool arguments -> typed calls, or INVALID_ARGS.

The rules are the tool contract's: ``mode`` and ``target`` are
required; a mode-specific argument given to another mode is refused with
``"<param> is only valid for mode='<x>'. Remove it or switch mode."``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from sari_core.argument_bounds import (
    MAX_QUERY_CHARS,
    MAX_SYMBOL_CHARS,
    bounded_path,
    bounded_text,
)
from sari_core.errors import ErrorCode, SariError
from sari_core.models import MutationCall, NextCall, ReadCall, SearchCall

READ_MODES = ("file", "symbol", "snippet", "diff_preview", "outline")
COMMON_READ_ARGS = frozenset({
    "mode", "target", "offset", "limit", "preview_mode", "max_preview_chars",
    "candidate_id", "bundle_id", "session_id",
})
MODE_ONLY_ARGS: dict[str, str] = {
    "path": "symbol",
    "include_context": "symbol",
    "start_line": "snippet",
    "end_line": "snippet",
    "context_lines": "snippet",
    "against": "diff_preview",
}
SEARCH_LIMIT_MAX = 50

# Deprecated wrappers: tool -> (mode, {their argument: read argument}).
LEGACY_READ_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "read_file": ("file", {"path": "target"}),
    "read_symbol": ("symbol", {"name": "target", "symbol": "target"}),
    "get_snippet": ("snippet", {"path": "target"}),
    "dry_run_diff": ("diff_preview", {"path": "target"}),
}
READ_TOOLS = frozenset({"read", *LEGACY_READ_TOOLS})
"""Every tool name a read arrives under: ``read`` and the deprecated wrappers."""


def _invalid(message: str, hint: str = "", next_calls: list[NextCall] | None = None) -> SariError:
    return SariError(ErrorCode.INVALID_ARGS, message, hint, next_calls)


_JSON_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
    (list, "an array"), (dict, "an object"),
)

# pydantic error types that mean "the value has the wrong JSON type" -> what was expected.
_EXPECTED_BY_ERROR: dict[str, str] = {
    "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer",
    "int_from_float": "an integer", "bool_type": "a boolean", "bool_parsing": "a boolean",
    "float_type": "a number", "float_parsing": "a number", "list_type": "an array",
    "dict_type": "an object", "model_type": "an object",
}


# pydantic error types of a value out of its range -> (comparison, the bound's key in ctx).
_BOUNDS: dict[str, tuple[str, str]] = {
    "greater_than_equal": (">=", "ge"), "greater_than": (">", "gt"),
    "less_than_equal": ("<=", "le"), "less_than": ("<", "lt"),
}


def json_type_name(value: Any) -> str:
    """How JSON would call ``value``'s type ("a string", "an integer", "null"...)."""
    if value is None:
        return "null"
    for kind, name in _JSON_TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _wrong_type(key: str, expected: str, value: Any, tool: str) -> SariError:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return _invalid(f"{key} must be {expected}, not {json_type_name(value)} ({shown}).",
                    hint=f"Pass {key} as {expected}; see the {tool} tool's input schema.")


def _require_types(values: Mapping[str, Any], expected: Mapping[str, str], tool: str) -> None:
    """Refuse a present argument whose JSON type is not the expected one, naming both."""
    checks = {"a string": lambda v: isinstance(v, str),
              "an integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "a boolean": lambda v: isinstance(v, bool)}
    for key, kind in expected.items():
        if key in values and not checks[kind](values[key]):
            raise _wrong_type(key, kind, values[key], tool)


def _drop_none(args: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in args.items() if value is not None}


def validation_error(exc: ValidationError, tool: str) -> SariError:
    """``INVALID_ARGS`` naming the first field ``exc`` refuses and what it expected."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "arguments"
    expected = _EXPECTED_BY_ERROR.get(error["type"])
    if expected is not None:
        return _wrong_type(field, expected, error.get("input"), tool)
    if error["type"] == "extra_forbidden":
        return _invalid(f"{field} is not an argument of {tool}.",
                        hint=f"Remove {field}; the {tool} tool's input schema lists its arguments.")
    if error["type"] == "string_too_short":
        return _invalid(f"{field} must not be empty.", hint=f"Give {field} a value, or leave it out.")
    bound = _BOUNDS.get(error["type"])
    if bound is not None:
        limit = error.get("ctx", {}).get(bound[1])
        return _invalid(f"{field} must be {bound[0]} {limit}, not {error.get('input')!r}.",
                        hint=f"Pass {field} {bound[0]} {limit}, or leave it out for its default.")
    return _invalid(
        f"{field}: {error['msg']} (tool {tool!r})",
        hint=f"Fix the value of {field!r}; see the {tool} tool's input schema.",
    )


def _validate(model: type[BaseModel], args: dict[str, Any], tool: str) -> Any:
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise validation_error(exc, tool) from None


def parse_read(args: Mapping[str, Any], entrypoint: str = "read") -> ReadCall:
    """Validate ``read`` arguments; raise ``SariError(INVALID_ARGS)`` with guidance."""
    values = _drop_none(args)
    mode = values.get("mode")
    if mode is None:
        raise _invalid("mode is required: one of file, symbol, snippet, diff_preview, outline.",
                       hint="Add mode, e.g. {\"mode\": \"file\", \"target\": \"src/app.py\"}.")
    _require_types(values, {"mode": "a string", "target": "a string"}, "read")
    if mode not in READ_MODES:
        raise _invalid(f"mode={mode!r} is not a read mode: use one of {', '.join(READ_MODES)}.",
                       hint="Pick the mode that matches what you want to read.")
    if not isinstance(values.get("target"), str) or not values["target"]:
        raise _invalid("target is required: a path (file, snippet, diff_preview) or a "
                       "symbol name (symbol).", hint="Add target.")
    for key in sorted(values.keys() - COMMON_READ_ARGS):
        owner = MODE_ONLY_ARGS.get(key)
        if owner is None:
            valid = sorted(COMMON_READ_ARGS | set(MODE_ONLY_ARGS))
            raise _invalid(f"{key} is not an argument of read.",
                           hint=f"Remove it. Valid arguments: {', '.join(valid)}.")
        if owner != mode:
            raise _invalid(f"{key} is only valid for mode='{owner}'. Remove it or switch mode.",
                           hint=f"Call read with mode='{owner}' to use {key}.")
    if isinstance(values.get("offset"), int) and values["offset"] < 0:
        raise _invalid("offset must be >= 1: the first line to show, counted from 1.",
                       hint="Leave offset out to read from the first line.")
    for key in ("limit", "start_line", "end_line", "max_preview_chars"):
        if key in values and isinstance(values[key], int) and values[key] < 1:
            raise _invalid(f"{key} must be >= 1.", hint="Lines are numbered from 1.")
    if isinstance(values.get("context_lines"), int) and values["context_lines"] < 0:
        raise _invalid("context_lines must be >= 0.", hint="Leave it out for no context.")
    if mode == "snippet":
        if "start_line" not in values:
            raise _invalid("start_line is required for mode='snippet'.",
                           hint="Give start_line (and end_line) of the range to read.")
        if "end_line" in values and isinstance(values["start_line"], int) \
                and isinstance(values["end_line"], int) and values["end_line"] < values["start_line"]:
            raise _invalid("end_line must be >= start_line.", hint="Swap them or widen the range.")
    if "against" in values and values["against"] not in ("HEAD", "WORKTREE", "INDEX"):
        raise _invalid(f"against={values['against']!r} is not supported: use HEAD, WORKTREE or INDEX.",
                       hint="Commit and snapshot baselines are not supported in v1.")
    _bound_read_names(values)
    values["entrypoint"] = entrypoint
    return _validate(ReadCall, values, "read")  # type: ignore[no-any-return]


def _bound_read_names(values: dict[str, Any]) -> None:
    """Bound the target (and path) of a read and normalise its paths, before any policy
    sees them (see sari_core.argument_bounds)."""
    if values["mode"] == "symbol":
        bounded_text("target", values["target"], MAX_SYMBOL_CHARS,
                     "Give the symbol's name, e.g. 'Parser.parse'.")
        if isinstance(values.get("path"), str):
            values["path"] = bounded_path("path", values["path"])
    else:
        values["target"] = bounded_path("target", values["target"])


def legacy_read_args(tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Translate a deprecated wrapper's arguments into ``read`` arguments."""
    mode, renames = LEGACY_READ_TOOLS[tool]
    values = _drop_none(args)
    translated: dict[str, Any] = {"mode": mode}
    for key, value in values.items():
        translated[renames.get(key, key)] = value
    if "mode" in values and values["mode"] != mode:
        raise _invalid(f"{tool} always reads with mode='{mode}'; call read for other modes.",
                       hint="Use the read tool.")
    return translated


def parse_search(args: Mapping[str, Any]) -> SearchCall:
    values = _drop_none(args)
    query = values.get("query")
    _require_types(values, {"query": "a string", "kind": "a string", "limit": "an integer",
                            "case_sensitive": "a boolean", "path_glob": "a string"}, "search")
    if not isinstance(query, str) or not query.strip():
        raise _invalid("query is required and must not be empty.",
                       hint="Search for a literal string, a regex (kind='regex'), a symbol "
                            "(kind='symbol') or a path fragment (kind='path').")
    accepted = set(SearchCall.model_fields) - {"literal"}
    unknown = sorted(set(values) - accepted)
    if unknown:
        raise _invalid(f"{unknown[0]} is not an argument of search.",
                       hint=f"Valid arguments: {', '.join(sorted(accepted))}.")
    if "match" in values and values.get("kind", "text") in ("text", "regex", "path"):
        raise _invalid(f"match is not valid for kind={values.get('kind', 'text')!r}: it matches "
                       "symbol names.", hint="Use kind='symbol', 'references', 'callers' or "
                       "'implementations', or remove match.")
    kind = values.get("kind", "text")
    if kind in ("text", "regex", "path"):
        bounded_text("query", query, MAX_QUERY_CHARS, "Search for a shorter, distinctive part "
                     "of the text; read the lines around the hits for the rest.")
    else:
        bounded_text("query", query, MAX_SYMBOL_CHARS, "Give the symbol's name, e.g. "
                     "'Parser.parse'.")
    if isinstance(values.get("path_glob"), str):
        bounded_text("path_glob", values["path_glob"], MAX_QUERY_CHARS,
                     "Give a shorter glob, e.g. 'src/**/*.py'.")
    limit = values.get("limit", 10)
    if isinstance(limit, int) and limit < 1:
        raise _invalid("limit must be >= 1.", hint="Leave limit out for the default of 10.")
    if isinstance(limit, int) and limit > SEARCH_LIMIT_MAX:
        # served, not refused: a refusal would cost a turn, and the result says more exist
        values["limit"] = SEARCH_LIMIT_MAX
    # No kind: the query is understood (a name, code, a regex or words), not only matched.
    values["literal"] = "kind" in values
    return _validate(SearchCall, values, "search")  # type: ignore[no-any-return]


def parse_mutation(tool: str, args: Mapping[str, Any]) -> MutationCall:
    values = _drop_none(args)
    allowed = {"edit": {"path", "old_string", "new_string", "expected_occurrences", "session_id"},
               "write": {"path", "content", "session_id"}}[tool]
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise _invalid(f"{unknown[0]} is not an argument of {tool}.",
                       hint=f"Valid arguments: {', '.join(sorted(allowed))}.")
    required = ("path", "old_string", "new_string") if tool == "edit" else ("path", "content")
    for key in required:
        if key not in values:
            raise _invalid(f"{key} is required for {tool}.", hint=f"Add {key}.")
    _require_types(values, {"path": "a string", "old_string": "a string", "new_string": "a string",
                            "content": "a string", "expected_occurrences": "an integer"}, tool)
    values["path"] = bounded_path("path", values["path"])
    if tool == "edit":
        if values["old_string"] == "":
            raise _invalid("old_string must not be empty.",
                           hint="Use write to create a file or replace it whole.")
        if values["old_string"] == values["new_string"]:
            raise _invalid("old_string and new_string are identical; nothing would change.",
                           hint="Give the text that should replace old_string.")
        if int(values.get("expected_occurrences", 1)) < 1:
            raise _invalid("expected_occurrences must be >= 1.", hint="Default is 1.")
    return _validate(MutationCall, {"tool": tool, **values}, tool)  # type: ignore[no-any-return]
