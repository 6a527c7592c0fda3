"""JSON schemas and descriptions of the core tools, as a model reads them to choose and fill.

The argument names are the response contract's and are checked
against :mod:`sari_core.arguments` by the tests, so the schema a client sees and
the validation the kernel applies never drift apart. Schemas are flat objects
(no top-level ``oneOf``): several clients refuse anything else, so mode-specific
arguments say which mode they belong to in their description instead.
"""

from __future__ import annotations

import copy
from typing import Any

SESSION_ID_PROPERTY: dict[str, Any] = {
    "type": "string",
    "description": "Optional stable id of your conversation. Calls that share it share policy "
                   "state (budgets, search refs) even across connections; omit it to use this "
                   "connection's own session.",
}

# What every response looks like: the contract's envelope. Loose on purpose (payloads differ
# by tool); it tells a client that structured content is always present.
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "false when the call was refused; see error."},
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                           "hint": {"type": "string"}},
        },
        "meta": {"type": "object",
                 "description": "truncated, token_estimate, preview_degraded and stabilization "
                                "(warnings, reason_codes, next_calls, metrics_snapshot...)."},
    },
    "required": ["ok"],
}

_PAGING = {
    "offset": {"type": "integer", "minimum": 0,
               "description": "Lines to skip from the start of the file (0 = first line). Use the "
                              "next offset a truncated response suggests to page on."},
    "limit": {"type": "integer", "minimum": 1,
              "description": "Maximum number of lines to return."},
    "preview_mode": {"type": "string", "enum": ["none", "snippet"], "default": "snippet",
                     "description": "snippet (default): return the text; none: return only the "
                                    "location and metadata, no text."},
    "max_preview_chars": {"type": "integer", "minimum": 1,
                          "description": "Cap on returned characters (token-budget safety)."},
}
_REFS = {
    "candidate_id": {"type": "string",
                     "description": "The candidate_id of a search match you are reading; policies "
                                    "may require one (copy it from the search response)."},
    "bundle_id": {"type": "string",
                  "description": "The bundle_id of the search response this read follows."},
}
_SYMBOL = {
    "path": {"type": "string",
             "description": "(mode=symbol only) File that defines the symbol, to disambiguate "
                            "when several files define the same name."},
    "include_context": {"type": "boolean",
                        "description": "(mode=symbol only) Also return the lines around the "
                                       "definition (decorators, docstring, enclosing class)."},
}
_SNIPPET = {
    "start_line": {"type": "integer", "minimum": 1,
                   "description": "(mode=snippet only, required there) First line, 1-based."},
    "end_line": {"type": "integer", "minimum": 1,
                 "description": "(mode=snippet only) Last line, inclusive; defaults to start_line."},
    "context_lines": {"type": "integer", "minimum": 0,
                      "description": "(mode=snippet only) Extra lines of context on each side."},
}
_DIFF = {
    "against": {"type": "string", "enum": ["HEAD", "WORKTREE", "INDEX"],
                "description": "(mode=diff_preview only) Baseline to diff the file against: HEAD "
                               "(last commit, default), INDEX (staged) or WORKTREE."},
}

READ_DESCRIPTION = (
    "Read from the workspace. Pick a mode: 'file' reads a file by path (page with offset/limit); "
    "'symbol' reads the definition of a function/class/method by name; 'snippet' reads a line "
    "range (start_line..end_line); 'outline' a file's or folder's symbols with lines; "
    "'diff_preview' shows the file's uncommitted changes as a "
    "unified diff against git (against=HEAD|INDEX|WORKTREE). Search first and pass the match's "
    "candidate_id: policies may refuse or warn on reads that do not follow a search. Arguments "
    "of one mode are refused in another. Returns JSON: ok, text (or diff), location, and meta "
    "with warnings, reason_codes and ready-to-run next_calls."
)
SEARCH_DESCRIPTION = (
    "Search the workspace (an index of every non-ignored file). kind='text' (default) finds a "
    "literal substring, 'regex' a regular expression, 'symbol' definitions by name, 'path' "
    "files by path fragment; 'references', 'callers', 'implementations' of a symbol, each "
    "with its enclosing symbol's lines. Returns ranked matches (path, line, snippet, score, candidate_id) "
    "and ready-to-run next_calls; use them with read. Start here before reading files."
)
EDIT_DESCRIPTION = (
    "Replace an exact string in one workspace file. old_string must match the file's text "
    "exactly (whitespace and indentation included) and occur expected_occurrences times "
    "(default 1); otherwise nothing is written and the error says how many matches were found. "
    "Include enough surrounding lines in old_string to make it unique. The write is atomic and "
    "keeps the file's line endings and mode. Policies may validate the result (e.g. a language "
    "server) and report problems in meta."
)
WRITE_DESCRIPTION = (
    "Create a file, or replace a file's whole content, inside the workspace. Prefer edit for "
    "changes to an existing file. Parent folders are created. The write is atomic."
)


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    props = {**copy.deepcopy(properties), "session_id": dict(SESSION_ID_PROPERTY)}
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


def _deprecated(replacement: str, text: str) -> str:
    return f"DEPRECATED: use read with {replacement}. {text}"


def core_tools() -> list[dict[str, Any]]:
    """The core tools: ``name``, ``description``, ``input_schema``, ``annotations``."""
    read_only = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True,
                 "open_world_hint": False}
    target = {"type": "string",
              "description": "Workspace-relative path (modes file, snippet, diff_preview) or "
                             "symbol name (mode symbol)."}
    path = {"type": "string", "description": "Workspace-relative path of the file."}
    return [
        {"name": "search", "description": SEARCH_DESCRIPTION, "annotations": read_only,
         "input_schema": _object({
             "query": {"type": "string", "minLength": 1, "description": "What to look for."},
             "kind": {"type": "string", "enum": ["text", "regex", "symbol", "path", "references",
                                                 "callers", "implementations"],
                      "default": "text", "description": "How to interpret query."},
             "match": {"type": "string", "enum": ["exact", "prefix", "fuzzy"],
                       "description": "Symbol name matching, any case or naming style."},
             "path_glob": {"type": "string",
                           "description": "Only search files whose path matches this glob, "
                                          "e.g. 'src/**/*.py'."},
             "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10,
                       "description": "Maximum number of matches."},
             "case_sensitive": {"type": "boolean", "default": False,
                                "description": "Match case exactly (text and regex kinds)."},
         }, ["query"])},
        {"name": "read", "description": READ_DESCRIPTION, "annotations": read_only,
         "input_schema": _object({
             "mode": {"type": "string", "enum": ["file", "symbol", "snippet", "diff_preview",
                                                 "outline"],
                      "description": "What to read; see the tool description."},
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
         "annotations": {"read_only_hint": False, "destructive_hint": True,
                         "idempotent_hint": False, "open_world_hint": False},
         "input_schema": _object({
             "path": path,
             "old_string": {"type": "string", "minLength": 1,
                            "description": "Exact text to replace (must differ from new_string)."},
             "new_string": {"type": "string", "description": "Replacement text."},
             "expected_occurrences": {"type": "integer", "minimum": 1, "default": 1,
                                      "description": "How many times old_string must occur; "
                                                     "all of them are replaced."},
         }, ["path", "old_string", "new_string"])},
        {"name": "write", "description": WRITE_DESCRIPTION,
         "annotations": {"read_only_hint": False, "destructive_hint": True,
                         "idempotent_hint": True, "open_world_hint": False},
         "input_schema": _object({
             "path": path,
             "content": {"type": "string", "description": "The file's complete new content."},
         }, ["path", "content"])},
    ]
