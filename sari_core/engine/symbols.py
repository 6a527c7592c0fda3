"""Definitions and references of a source file, from tree-sitter and tags queries.

The grammars and their queries are listed in :mod:`sari_core.engine.grammars`.
Parsers and queries are built once per process; :func:`extract_batch` is what index
worker processes run.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from sari_core.engine.grammars import GRAMMARS

log = logging.getLogger(__name__)

MAX_SYMBOL_BYTES = 1024 * 1024  # bigger files are generated code; their text is still indexed

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
    return language in GRAMMARS and _toolkit(language) is not None


def _tags_source(module: str) -> str:
    return (files(module) / "queries" / "tags.scm").read_text(encoding="utf-8")


@cache
def _toolkit(language: str) -> tuple[Any, Any] | None:
    """(parser, query) for a language, or None when its grammar cannot be loaded."""
    try:
        from tree_sitter import Language, Parser, Query

        spec = GRAMMARS[language]
        grammar = Language(getattr(importlib.import_module(spec.module), spec.function)())
        source = "\n".join([*(_tags_source(module) for module in spec.tag_modules),
                            spec.own_tags])
        return Parser(grammar), Query(grammar, source)
    except Exception as exc:  # noqa: BLE001 - a broken grammar wheel must not stop indexing text
        log.warning("symbols for %s are unavailable: %s", language, exc)
        return None


_CLASS_NODES = frozenset({"class_definition", "class_declaration", "class_body",
                          "class_specifier", "impl_item"})


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


def extract(language: str | None, data: bytes) -> list[SymbolRow]:
    """Definitions and references found in ``data`` (empty for unsupported languages)."""
    if language not in GRAMMARS or len(data) > MAX_SYMBOL_BYTES:
        return []
    toolkit = _toolkit(language)
    if toolkit is None:
        return []
    from tree_sitter import QueryCursor

    parser, query = toolkit
    tree = parser.parse(data)
    seen: dict[tuple[str, int, int], SymbolRow] = {}
    for _, captures in QueryCursor(query).matches(tree.root_node):
        names = captures.get("name")
        if not names:
            continue
        role = next((key for key in captures if key.startswith(("definition.", "reference."))),
                    None)
        if role is None:
            continue
        name_node = names[0]
        name = data[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
        if not name or len(name) > 200:
            continue
        is_def = role.startswith("definition.")
        kind = role.split(".", 1)[1]
        if is_def:
            node = _definition_node(_innermost_declaration(name_node, captures[role][0]))
            if language == "python" and kind == "function" and _python_method(node):
                kind = "method"
            row = (name, kind, 1, node.start_point[0] + 1, node.end_point[0] + 1)
        else:
            line = name_node.start_point[0] + 1
            row = (name, kind, 0, line, line)
        # One row per name, role and line: the same node can match two patterns (Rust's
        # methods do), and the first wins; every line using a name is a navigation target.
        key = (name, int(is_def), row[3])
        if key not in seen:
            seen[key] = row
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
