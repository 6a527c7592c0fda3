"""JSON schemas and descriptions of the core tools, as a model reads them to choose and fill.

Descriptions are short and teach by example: every listed definition is paid for
on every turn of a conversation. The argument names are the response contract's and are checked
against :mod:`sari_core.arguments` by the tests, so the schema a client sees and
the validation the kernel applies never drift apart. Schemas are flat objects
(no top-level ``oneOf``): several clients refuse anything else, so mode-specific
arguments say which mode they belong to in their description instead.

Arguments only programs pass (:data:`PROGRAM_ARGUMENTS`: a shared policy session, preview
shaping, search refs) are accepted on every call but not listed: a model never fills them
(the text it is shown carries no candidate or bundle id, and a read of a target the
session's searches returned needs none), and a listed one costs tokens on every turn. The
listed schemas therefore do not claim to be closed (no ``additionalProperties: false``); the
kernel refuses an unknown argument with a structured error naming the valid ones.
"""

from __future__ import annotations

import copy
from typing import Any

# Accepted by every core tool that takes them, listed to no model (see the module text):
# session_id shares one policy session across connections, which a model never needs; the
# refs let a program name the search result it reads.
PROGRAM_ARGUMENTS = frozenset({"session_id", "preview_mode", "max_preview_chars", "bundle_id",
                               "candidate_id"})

# Lower bounds a model never crosses on purpose (an empty query, a negative line) are not
# listed: :mod:`sari_core.arguments` refuses them with a hint, and a listed keyword costs
# tokens on every turn. Every listed property says in one short line what it takes (a client
# shows it beside the field; a model fills it from that line): a mode-only one names its mode.
_INT = {"type": "integer"}


def _described(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {**schema, "description": text}


_PAGING = {
    # as Claude Code's Read counts them: the habit the models bring
    "offset": _described(_INT, "First line shown, from 1."),
    "limit": _described(_INT, "Number of lines."),
    "preview_mode": {"type": "string", "enum": ["none", "snippet"]},
    "max_preview_chars": _INT,
}
_REFS = {
    "candidate_id": {"type": "string"},
    "bundle_id": {"type": "string"},
}
_SYMBOL = {
    "path": _described({"type": "string"}, "symbol: file or folder."),
    "include_context": _described({"type": "boolean"}, "symbol: with comments above."),
}
_SNIPPET = {
    "start_line": _described(_INT, "snippet: first line."),
    "end_line": _described(_INT, "snippet: last line."),
    "context_lines": _described(_INT, "snippet: lines around."),
}
_DIFF = {
    "against": _described({"type": "string", "enum": ["HEAD", "WORKTREE", "INDEX"]},
                          "diff_preview: baseline."),
}

# Examples are compact JSON: every quote is escaped in the listing, every space is paid for.
# The default search (no kind) reads the query as a name, a code fragment, a pattern or words;
# kind="text" is the literal string only.
SEARCH_DESCRIPTION = 'Find code by name or words. E.g. {"query":"dumps","kind":"symbol"}'

# The modes are listed in the mode property; the description does not name them again.
READ_DESCRIPTION = 'Read code. E.g. {"mode":"file","target":"a.py","offset":40,"limit":50}'

EDIT_DESCRIPTION = "Replace text in a file."
WRITE_DESCRIPTION = "Create or overwrite a file; prefer edit."


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    props = {name: schema for name, schema in copy.deepcopy(properties).items()
             if name not in PROGRAM_ARGUMENTS}
    return {"type": "object", "properties": props, "required": required}


def _deprecated(replacement: str, text: str) -> str:
    return f"DEPRECATED: use read with {replacement}. {text}"


LEGACY_TOOL_NAMES = frozenset({"read_file", "read_symbol", "get_snippet", "dry_run_diff"})


def core_tools() -> list[dict[str, Any]]:
    """The core tools: ``name``, ``description``, ``input_schema``, ``annotations``."""
    # Only what differs from the MCP defaults (read-only false, destructive true): a client
    # may run read-only tools without asking.
    read_only = {"read_only_hint": True}
    target = _described({"type": "string"}, "Path, or symbol name.")
    path = _described({"type": "string"}, "File path.")
    return [
        {"name": "search", "description": SEARCH_DESCRIPTION, "annotations": read_only,
         "input_schema": _object({
             "query": _described({"type": "string"}, "What to find."),
             "kind": _described({"type": "string", "enum": [
                 "text", "regex", "symbol", "path", "references", "callers",
                 "implementations"]}, "Omit to infer; text is literal."),
             "match": _described({"type": "string", "enum": ["exact", "prefix", "fuzzy"]},
                                 "Name matching."),
             "path_glob": _described({"type": "string"}, "Only matching paths."),
             "limit": _described(_INT, "Max results."),
             "case_sensitive": _described({"type": "boolean"}, "Default false."),
         }, ["query"])},
        {"name": "read", "description": READ_DESCRIPTION, "annotations": read_only,
         "input_schema": _object({
             "mode": _described({"type": "string", "enum": [
                 "file", "symbol", "snippet", "diff_preview", "outline"]}, "What to read."),
             "target": target, **_PAGING, **_REFS, **_SYMBOL, **_SNIPPET, **_DIFF,
         }, ["mode", "target"])},
        {"name": "read_file", "annotations": read_only,
         "description": _deprecated("mode='file'", "Reads a file by path, paged by offset/limit."),
         "input_schema": _object({"path": path, **_PAGING, **_REFS}, ["path"])},
        {"name": "read_symbol", "annotations": read_only,
         "description": _deprecated("mode='symbol'",
                                    "Reads the definition of a symbol by name."),
         "input_schema": _object({
             "name": {"type": "string", "description": "Symbol name, e.g. 'Parser.parse'."},
             **_SYMBOL, **_PAGING, **_REFS,
         }, ["name"])},
        {"name": "get_snippet", "annotations": read_only,
         "description": _deprecated("mode='snippet'", "Reads a line range of a file."),
         "input_schema": _object({"path": path, **_SNIPPET, **_PAGING, **_REFS},
                                 ["path", "start_line"])},
        {"name": "dry_run_diff", "annotations": read_only,
         "description": _deprecated("mode='diff_preview'",
                                    "Shows a file's changes against git as a unified diff."),
         "input_schema": _object({"path": path, **_DIFF, **_PAGING, **_REFS}, ["path"])},
        {"name": "edit", "description": EDIT_DESCRIPTION,
         "annotations": None,
         "input_schema": _object({
             "path": path,
             "old_string": _described({"type": "string"}, "Exact text."),
             "new_string": _described({"type": "string"}, "Replacement."),
             "expected_occurrences": _described(
                 _INT, "Times old_string occurs (1)."),
         }, ["path", "old_string", "new_string"])},
        {"name": "write", "description": WRITE_DESCRIPTION,
         "annotations": None,
         "input_schema": _object({
             "path": path,
             "content": _described({"type": "string"}, "The whole file."),
         }, ["path", "content"])},
    ]
