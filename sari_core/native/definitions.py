"""The definitions a client's search looks for, shown with the search.

An agent that greps for a definition (``def evolve``, ``class FileSystemLoader``,
``(def|class) wrap\\b``, a bare name) reads it next: the file whole, or the lines around the
hit. When the search's hits hold few definitions of that name and each is short, the hook
shows their bodies with the search's own result, in the words of Sari's symbol search
(``397-448: def evolve(...)`` and its numbered lines), so the read that would follow is
not needed; and, each as Sari's symbol search for its name shows it, the short definitions
of the same file those bodies call (the helper the agent reads next). The spans come from
Sari's index; each body is read through the kernel like any other read (the policies
decide: a file a policy refuses is never shown, and the session's ledger learns the lines
were shown).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sari_core.engine.python.decorators import decorated_start
from sari_core.engine_protocol import IndexesDefinitions, ListsMatchingFiles
from sari_core.models import SearchCall
from sari_core.native.calls import NativeCall
from sari_core.native.mapping import SariRequest
from sari_core.native.sessions import connection_for, identity_for
from sari_core.rendering import render
from sari_core.secrets import REDACTION_MARK

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

# Bodies are shown when the search's hits hold at most this many definitions of the name
# (one-line ones aside: the hit shows them whole), each of at most DEFINITION_LINES lines.
DEFINITIONS_SHOWN = 3
DEFINITION_LINES = 200
# With them, the short definitions of the same file a shown body calls (the helpers the agent
# reads next), each of at most CALLEE_LINES lines, CALLEES_SHOWN of them at most.
CALLEES_SHOWN = 3
CALLEE_LINES = 80
# A call in a body: ``name(``, ``self.name(``, ``cls.name(`` (not ``other.name(``).
_CALLED = re.compile(r"(?:(?<![\w.$])|(?<=self\.)|(?<=cls\.))([A-Za-z_][\w]*)\s*\(")
_KEYWORDS = ("async def", "def", "class", "function", "async function", "fn", "func",
             "interface", "struct", "trait", "enum", "type")
_KEYWORD = "|".join(k.replace(" ", r"\s+") for k in sorted(_KEYWORDS, key=len, reverse=True))
# What a pattern looks like once its regex spellings of blanks, word edges and a literal
# parenthesis are written plainly: ``(def|class) name``, ``def name(``, ``name``.
_NAMED = re.compile(rf"^\s*(?:\(?(?:\?:)?(?:{_KEYWORD})(?:\|(?:{_KEYWORD}))*\)?\s+)?"
                    r"(?P<name>[A-Za-z_$][\w$]*)\s*[(:]?\s*$")
# A line of Sari's read answer: ``12<TAB>text``, or ``12-40<TAB>(unchanged; ...)``.
_READ_ROW = re.compile(r"^(\d+)(?:-(\d+))?\t(.*)$")
# A one-line string literal, a triple-quoted one included.
_TRIPLE = re.compile(r'("""|\'\'\').*?\1')
_TRIPLE_OPENER = re.compile(r'"""|\'\'\'')
_STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
_PLAIN = ((r"\s+", " "), (r"\s*", " "), (r"\s", " "), (r"\b", ""), (r"\(", "("),
          ("^", ""), ("$", ""))


@dataclass(frozen=True)
class ShownDefinition:
    """One definition shown with a search: where it is, and its numbered lines."""

    path: str
    first: int
    last: int
    name: str
    kind: str
    rows: list[str]


def searched_name(pattern: str) -> str | None:
    """The name a search pattern looks for a definition of, or None when it is not one."""
    plain = pattern
    for spelled, written in _PLAIN:
        plain = plain.replace(spelled, written)
    found = _NAMED.match(plain)
    return found.group("name") if found else None


def shown_definitions(kernel: Kernel, call: NativeCall, request: SariRequest) -> str:
    """Sari's symbol-search text of the definitions a content search looks for, bodies
    included; empty when the pattern names none, the hits hold more than
    ``DEFINITIONS_SHOWN`` of them, none is short enough, or a policy refused a body."""
    pattern = str(request.arguments.get("query") or "")
    name = searched_name(pattern)
    engine = kernel.engine
    # Bodies need the engine's file list and definitions index; another engine shows none.
    if name is None or not isinstance(engine, ListsMatchingFiles) \
            or not isinstance(engine, IndexesDefinitions):
        return ""
    try:
        flags = 0 if request.arguments.get("case_sensitive", True) else re.IGNORECASE
        compiled = re.compile(pattern, flags)
        files = set(engine.matching_files(SearchCall(
            query=pattern, kind="regex", path_glob=request.arguments.get("path_glob"),
            case_sensitive=bool(request.arguments.get("case_sensitive", True)), limit=1)))
        # The pattern may match longer names too (``def fields`` hits ``def fields_dict``).
        found = {(str(d.path), d.line): d for mode in ("exact", "prefix")
                 for d in engine.definitions(name, mode)}.values()  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - no index answer: the search goes on without bodies
        return ""
    root = kernel.roots[0]
    hit = [d for d in found if d.end_line > d.line and _own(d).startswith(name)
           and _display(d.path, root) in files
           and _header_matches(Path(d.path), d.line, d.end_line, _own(d), compiled)]
    if not hit or len(hit) > DEFINITIONS_SHOWN:
        return ""
    shown = [body for d in sorted(hit, key=lambda d: (_display(d.path, root), d.line))
             if d.end_line - d.line + 1 <= DEFINITION_LINES
             and (body := _body(kernel, call, Path(d.path), _display(d.path, root), d.line,
                                d.end_line, _own(d), d.kind)) is not None]
    if not shown:
        return ""
    callees = _callees(kernel, call, shown, root) if CALLEES_SHOWN > 0 else []
    return "\n".join([_text(name, shown), *(_text(d.name, [d]) for d in callees)])


def _callees(kernel: Kernel, call: NativeCall, shown: list[ShownDefinition],
             root: Path) -> list[ShownDefinition]:
    """The short definitions of the shown bodies' files that those bodies call, in the
    order they are first called; one definition of a name in that file, or none."""
    found: list[ShownDefinition] = []
    seen = {(d.path, d.name) for d in shown}
    for definition in shown:
        for called in dict.fromkeys(_CALLED.findall(_code_of(definition.rows[1:]))):
            if len(found) >= CALLEES_SHOWN:
                return found
            if (definition.path, called) in seen:
                continue
            seen.add((definition.path, called))
            engine = kernel.engine
            if not isinstance(engine, IndexesDefinitions):
                return found
            try:
                spans = [d for d in engine.definitions(called, "exact")
                         if _named(d, called) and _display(d.path, root) == definition.path]
            except Exception:  # noqa: BLE001 - no index answer: no helper shown
                continue
            if len(spans) != 1 or not 0 < spans[0].end_line - spans[0].line < CALLEE_LINES:
                continue
            span = spans[0]
            body = _body(kernel, call, Path(span.path), definition.path, span.line,
                         span.end_line, called, span.kind)
            if body is not None:
                found.append(body)
    return found


def _own(definition: Any) -> str:
    """A definition's own name (``get_source`` of ``FileSystemLoader.get_source``)."""
    return str(definition.name).rsplit(".", 1)[-1]


def _named(definition: Any, name: str) -> bool:
    """Whether the index's definition is of ``name`` itself (its lookup also finds names
    that are spelled alike)."""
    return _own(definition) == name


def _code_of(rows: list[str]) -> str:
    """A body's code without its strings and comments (a docstring's ``copy(src)`` is not
    a call); rows are ``N | text``."""
    code: list[str] = []
    quote: str | None = None  # the triple quote a docstring opened and has not closed
    for row in rows:
        text = row.split(" | ", 1)[-1]
        if quote is not None:
            if quote not in text:
                continue
            text, quote = text.split(quote, 1)[1], None
        text = _TRIPLE.sub("''", text)
        opened = _TRIPLE_OPENER.search(text)
        if opened:
            text, quote = text[:opened.start()], opened.group(0)
        code.append(_STRING.sub("''", text).split("#", 1)[0])
    return "\n".join(code)


def _display(path: Any, root: Path) -> str:
    text = str(path)
    relative = posixpath.relpath(text, root.as_posix()) if posixpath.isabs(text) else text
    return text if relative.startswith("../") else relative


def _header_matches(path: Path, first: int, last: int, name: str,
                    pattern: re.Pattern[str]) -> bool:
    """Whether the search's pattern matches the definition's own line (the first line of
    it that names it, past its decorators): the hit is the definition, not a use."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    named = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    for line in lines[first - 1:last]:
        if named.search(line):
            return bool(pattern.search(line))
    return False


def _body(kernel: Kernel, call: NativeCall, on_disk: Path, target: str, first: int, last: int,
          name: str, kind: str) -> ShownDefinition | None:
    """The definition's lines as Sari's read of them shows them, read through the kernel in
    the call's session (the policies decide as for any read: lines the session was already
    shown come back as a reference to where); None when refused, redacted, or when its
    first line is not shown (the model holds it already). It starts at the decorators
    directly above the definition's line, as Sari's symbol search and read do."""
    try:
        lines = on_disk.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    first = decorated_start(lines, first)
    response = kernel.execute_read(
        {"mode": "snippet", "target": target, "start_line": first, "end_line": last},
        connection_id=connection_for(call), identity=identity_for(call), native=call.label)
    if not response.get("ok"):
        return None
    text = render(response)
    if REDACTION_MARK in text:
        return None
    rows: list[str] = []
    expected = first
    for found in map(_READ_ROW.match, text.split("\n")):
        if found is None:
            continue
        top, end = int(found.group(1)), int(found.group(2) or found.group(1))
        if top != expected or found.group(2) is None and (
                top > len(lines) or lines[top - 1] != found.group(3)):
            return None  # not the file's own lines in order
        rows.append(f"{found.group(1)}{'-' + found.group(2) if found.group(2) else ''} | "
                    f"{found.group(3)}")
        expected = end + 1
    if expected != last + 1 or not rows or not rows[0].startswith(f"{first} | "):
        return None
    return ShownDefinition(target, first, last, name, kind, rows)


def _text(name: str, shown: list[ShownDefinition]) -> str:
    """The definitions as Sari's symbol search shows them."""
    matches = [{"path": d.path, "line": d.first, "end_line": d.last, "kind": d.kind,
                "snippet": d.rows[0].split(" | ", 1)[1], "symbol": d.name,
                "context": "\n".join(d.rows)} for d in shown]
    return render({"ok": True, "query": name, "kind": "symbol", "matches": matches,
                   "meta": {}})
