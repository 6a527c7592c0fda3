"""Definitions and references of a source file, from tree-sitter and tags queries.

The grammars and their queries are listed in :mod:`sari_core.engine.index.grammars`.
Parsers and queries are built once per process; :func:`extract_batch` is what index
worker processes run.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from sari_core.engine.index.grammars import GRAMMARS

log = logging.getLogger(__name__)

MAX_SYMBOL_BYTES = 1024 * 1024  # bigger files are generated code; their text is still indexed

# Kinds a declaration gets from its place alone (``const x = ...``); a pattern that says
# what the value is (a function, a class) names it better.
VALUE_KINDS = frozenset(("constant", "variable", "property", "field"))

# (name, kind, is_definition, line, end_line) — a plain tuple so worker results pickle cheaply.
SymbolRow = tuple[str, str, int, int, int]


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str
    is_definition: bool
    line: int
    end_line: int

    def row(self) -> SymbolRow:
        return (self.name, self.kind, int(self.is_definition), self.line, self.end_line)


def supported(language: str | None) -> bool:
    return language in GRAMMARS


def supported_now(language: str) -> bool:
    """Whether the language's grammar and tags query load in this installation."""
    return language in GRAMMARS and toolkit(language) is not None


def _tags_source(module: str) -> str:
    return (files(module) / "queries" / "tags.scm").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Toolkit:
    parser: Any
    query: Any
    # Per pattern of the query: the one role capture it names (``definition.function``),
    # split as (capture, kind, is_definition); None where a pattern names none or several,
    # whose matches are read capture by capture.
    roles: tuple[tuple[str, str, bool] | None, ...]


_ROLE = re.compile(r"@((?:definition|reference)\.[\w.-]+)")


def _pattern_roles(query: Any, source: bytes) -> tuple[tuple[str, str, bool] | None, ...]:
    roles: list[tuple[str, str, bool] | None] = []
    for pattern in range(query.pattern_count):
        text = source[query.start_byte_for_pattern(pattern):query.end_byte_for_pattern(pattern)]
        named = set(_ROLE.findall(text.decode("utf-8", "replace")))
        role = named.pop() if len(named) == 1 else None
        roles.append(None if role is None else
                     (role, role.split(".", 1)[1], role.startswith("definition.")))
    return tuple(roles)


@cache
def toolkit(language: str) -> Toolkit | None:
    """The parser and query of a language, or None when its grammar cannot be loaded."""
    try:
        from tree_sitter import Language, Parser, Query

        spec = GRAMMARS[language]
        grammar = Language(getattr(importlib.import_module(spec.module), spec.function)())
        source = "\n".join([*(_tags_source(module) for module in spec.tag_modules),
                            spec.own_tags])
        query = Query(grammar, source)
        return Toolkit(Parser(grammar), query, _pattern_roles(query, source.encode()))
    except Exception as exc:  # noqa: BLE001 - a broken grammar wheel must not stop indexing text
        log.warning("symbols for %s are unavailable: %s", language, exc)
        return None


def _python_method(node: Any) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    return parent is not None and parent.type == "block" and parent.parent is not None \
        and parent.parent.type == "class_definition"


def _innermost_declaration(name_node: Any, captured: Any) -> Any:
    """The declaration nearest the name, inside what the pattern captured.

    Some tags capture the container (Swift's method pattern captures the class); the
    name's own declaration is the one whose lines an agent wants.
    """
    node = name_node.parent
    while node is not None and node != captured:
        if node.type.endswith(("declaration", "definition")):
            return node
        node = node.parent
    return captured


def _definition_node(node: Any) -> Any:
    """C/C++ tags capture the declarator; the definition is the enclosing function/declaration."""
    if not node.type.endswith("declarator"):
        return node
    parent = node.parent
    while parent is not None and parent.type.endswith("declarator"):
        parent = parent.parent
    if parent is not None and parent.type in ("function_definition", "declaration",
                                               "field_declaration"):
        return parent
    return node


def _rebinding(name_node: Any, raw: bytes) -> bool:
    """Does the declarator bind the name to the same-named member of something else?"""
    declarator = name_node.parent
    if declarator is None or declarator.type != "variable_declarator":
        return False
    value = declarator.child_by_field_name("value")
    if value is None or value.type != "member_expression":
        return False
    member = value.child_by_field_name("property")
    return member is not None and member.text == raw


def extract(language: str | None, data: bytes) -> list[SymbolRow]:
    """Definitions and references found in ``data`` (empty for unsupported languages)."""
    if language not in GRAMMARS or len(data) > MAX_SYMBOL_BYTES:
        return []
    kit = toolkit(language)
    if kit is None:
        return []
    from tree_sitter import QueryCursor

    roles, python = kit.roles, language == "python"
    tree = kit.parser.parse(data)
    seen: dict[tuple[str, int, int], SymbolRow] = {}
    spelled: dict[bytes, str] = {}  # a file names the same things again and again
    for pattern, captures in QueryCursor(kit.query).matches(tree.root_node):
        names = captures.get("name")
        if not names:
            continue
        role = roles[pattern]
        if role is None:
            found = next((key for key in captures
                          if key.startswith(("definition.", "reference."))), None)
            if found is None:
                continue
            role = (found, found.split(".", 1)[1], found.startswith("definition."))
        elif role[0] not in captures:
            continue
        name_node = names[0]
        raw = data[name_node.start_byte:name_node.end_byte]
        name = spelled.get(raw)
        if name is None:  # "" stands for a name too long to be one
            name = raw.decode("utf-8", "replace")
            spelled[raw] = name = name if len(name) <= 200 else ""
        if not name:
            continue
        capture, kind, is_def = role
        # One row per name, role and line: the same node can match two patterns (Rust's
        # methods do), and the first wins; every line using a name is a navigation target.
        if not is_def:  # most matches: a reference is its name's line
            line = name_node.start_point.row + 1
            key = (name, 0, line)
            held = seen.get(key)
            if held is None or (held[1] in VALUE_KINDS and kind not in VALUE_KINDS):
                seen[key] = (name, kind, 0, line, line)
            continue
        if kind in VALUE_KINDS and _rebinding(name_node, raw):
            continue  # ``var X = constants.X``: a name brought in, defined elsewhere
        node = _definition_node(_innermost_declaration(name_node, captures[capture][0]))
        if python and kind == "function" and _python_method(node):
            kind = "method"
        line = node.start_point.row + 1
        key = (name, 1, line)
        held = seen.get(key)
        if held is None or (held[1] in VALUE_KINDS and kind not in VALUE_KINDS):
            seen[key] = (name, kind, 1, line, node.end_point.row + 1)
    return list(seen.values())


def extract_batch(jobs: list[tuple[int, str, bytes]]) -> list[tuple[int, list[SymbolRow]]]:
    """Worker entry point: ``(file_id, language, data)`` -> ``(file_id, symbols)``."""
    out = []
    for file_id, language, data in jobs:
        try:
            out.append((file_id, extract(language, data)))
        except Exception as exc:  # noqa: BLE001 - one unparsable file must not lose the batch
            log.warning("symbol extraction failed for file %s: %s", file_id, exc)
            out.append((file_id, []))
    return out
