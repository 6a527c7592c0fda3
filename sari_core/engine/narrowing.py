"""Index-only navigation for one definition: the uses of a name that can be another's, dropped.

The index knows names, not types, so a use of ``send`` may be ``Session.send`` or
``Adapter.send``. When the query names one definition among several (see
:mod:`sari_core.engine.symbol_target`), each use is judged by what is written there:

* the definition lines: the chosen one's kept, the others' dropped;
* ``self.send`` / ``cls.send``: by the class the line is in (the chosen class or a class
  extending it: kept; a class defining or inheriting another ``send``: dropped);
* ``Session.send``, ``super().send``: by the class named (or the one extended);
* ``sessions.send``: by the module named;
* ``session.send`` (a variable): by the words of the variable against the classes' names
  (``adapter`` is an ``HTTPAdapter``'s) when they tell one class from the others;
* a bare ``send(...)``: a method is not called bare, a module function is called bare where
  it is defined or imported (``from pkg.sessions import send``), not where another is.

A use nothing decides is kept and counted: the answer says how many were kept unjudged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sari_core.engine.scopes import Scope, innermost
from sari_core.engine.store import IndexStore
from sari_core.engine.symbol_target import Named, Target, module_of

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_IGNORED_WORDS = frozenset(("self", "cls", "obj", "the", "a", "my", "base", "get"))


@dataclass(frozen=True)
class Use:
    file_id: int
    path: str
    line: int
    text: str
    is_definition: bool


def _words(name: str) -> set[str]:
    return {word.lower() for word in _WORDS.findall(name)} - _IGNORED_WORDS


class Narrower:
    """Judges the uses of ``target.name`` for ``target.chosen``."""

    def __init__(self, store: IndexStore, target: Target) -> None:
        self.target = target
        self.name = target.name
        self.chosen_lines = {(n.row.file_id, n.row.line) for n in target.chosen}
        self.other_lines = {(n.row.file_id, n.row.line) for n in target.others}
        mine = {_last(n.parent) for n in target.chosen if n.parent}
        theirs = {_last(n.parent) for n in target.others if n.parent} - mine
        self.mine = mine | _extending(store, mine)
        self.theirs = (theirs | _extending(store, theirs)) - self.mine
        self.functions = [n for n in target.chosen if n.parent is None]
        self.other_functions = [n for n in target.others if n.parent is None]
        self.undecided = 0
        self._receiver = re.compile(
            rf"(\w+(?:\(\))?)\s*\.\s*{re.escape(self.name)}(?![\w$])")
        self._bare = re.compile(rf"(?<![\w$.]){re.escape(self.name)}(?![\w$])")

    def keep(self, use: Use, tree: list[Scope], file_text: str) -> bool:
        key = (use.file_id, use.line)
        if key in self.chosen_lines:
            return True
        if key in self.other_lines:
            return False
        found = self._receiver.search(use.text)
        if found:
            verdict = self._by_receiver(found.group(1), use, tree)
        elif self._bare.search(use.text):
            verdict = self._bare_use(use, file_text)
        else:
            verdict = None
        if verdict is None:
            self.undecided += 1
            return True
        return verdict

    def _by_receiver(self, receiver: str, use: Use, tree: list[Scope]) -> bool | None:
        if receiver == "super()":  # the class extended, which the index does not resolve
            return None
        if receiver in ("self", "cls", "this"):
            owner = _class_at(tree, use.line)
            if owner is None:
                return None
            if owner in self.mine:
                return True
            if owner in self.theirs:
                return False
            return None
        if receiver in self.mine:
            return True
        if receiver in self.theirs:
            return False
        if self.functions and receiver == module_of(self.functions[0].row.path).rsplit(".")[-1]:
            return True
        if any(receiver == module_of(n.row.path).rsplit(".")[-1] for n in self.other_functions):
            return False
        return self._by_words(receiver)

    def _by_words(self, variable: str) -> bool | None:
        words = _words(variable)
        if not words:
            return None
        mine = any(words & _words(name) for name in self.mine)
        theirs = any(words & _words(name) for name in self.theirs)
        if mine != theirs:
            return mine
        return None

    def _bare_use(self, use: Use, file_text: str) -> bool | None:
        if not self.functions:  # a method is called through something, not bare
            return False if self.other_functions else None
        mine_files = {n.row.file_id for n in self.functions}
        their_files = {n.row.file_id for n in self.other_functions}
        if use.file_id in mine_files:
            return True
        if use.file_id in their_files:
            return False
        modules = {module_of(n.row.path).rsplit(".", 1)[-1] for n in self.functions}
        others = {module_of(n.row.path).rsplit(".", 1)[-1] for n in self.other_functions}
        imported = re.search(rf"from\s+[\w.]*?(\w+)\s+import\s+[^\n]*\b{re.escape(self.name)}\b",
                             file_text)
        if imported:
            if imported.group(1) in modules:
                return True
            if imported.group(1) in others:
                return False
        return None


def _last(qualified: str | None) -> str:
    return (qualified or "").rsplit(".", 1)[-1]


def _class_at(tree: list[Scope], line: int) -> str | None:
    """The innermost class whose lines hold ``line``."""
    found = None
    level = tree
    while True:
        inside = [scope for scope in level if scope.line <= line <= scope.end_line]
        if not inside:
            return found
        scope = min(inside, key=lambda s: s.end_line - s.line)
        if scope.kind in ("class", "interface", "struct", "trait", "impl"):
            found = scope.name
        level = scope.children


def _extending(store: IndexStore, classes: set[str]) -> set[str]:
    """Every class extending one of ``classes``, through any number of steps."""
    found: set[str] = set()
    todo = set(classes)
    while todo:
        marks = ",".join("?" * len(todo))
        rows = store.reader.execute(
            "SELECT s.file_id, s.line FROM symbols s WHERE s.is_def = 0 AND "
            f"s.kind = 'implementation' AND s.name IN ({marks})", tuple(todo)).fetchall()
        todo = set()
        for file_id, line in rows:
            for name, in store.reader.execute(
                    "SELECT name FROM symbols WHERE file_id = ? AND is_def = 1 AND line <= ? "
                    "AND end_line >= ? AND kind IN ('class', 'interface', 'struct') "
                    "ORDER BY line DESC LIMIT 1", (file_id, line, line)):
                if name not in found and name not in classes:
                    found.add(name)
                    todo.add(name)
    return found


def note(target: Target, before: int, after: int, undecided: int) -> str:
    where = ", ".join(sorted({f"{n.row.path}:{n.row.line}" for n in target.chosen})[:3])
    text = (f"Narrowed to {target.chosen[0].qualified} ({where}): {after} of {before} uses "
            f"of the name {target.name} kept")
    if undecided:
        text += (f"; {undecided} of them through a receiver of unknown type (kept: the index "
                 "cannot tell whose they are)")
    return text + "."


__all__ = ["Narrower", "Named", "Use", "innermost", "note"]
