"""Which definition a navigation query names: ``Class.method``, ``module.func``, ``path:line``.

``references``, ``callers`` and ``implementations`` answer for one definition when the
query names one:

* ``path:line`` (``src/pkg/core.py:120``): the definition starting at that line, else the
  innermost one containing it;
* a dotted name (``Session.send``, ``requests.sessions.Session.send``, ``Foo::bar``): the
  definitions of the last part whose module path and enclosing definitions end with the
  rest (``src/requests/sessions.py`` is the module ``src.requests.sessions``);
* a bare name: every definition of it; :func:`symbols` splits them into the symbols they
  are, each as its ``path:line`` names it, so the name is answered as those would be.

When a dotted name or a location names no indexed definition, the query is answered by
name and the answer says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sari_core.engine.index.names import dotted_parts, folded_name
from sari_core.engine.index.scope_tree import Scope, enclosing, innermost
from sari_core.engine.index.store import IndexStore, SymbolHit
from sari_core.engine.python.decorated import accessor_lines, is_overload
from sari_core.engine.python.scopes import definition_trees

MAX_DEFINITIONS = 2000
_FUNCTION_KINDS = frozenset(("function", "method"))
_LOCATION = re.compile(r"(?P<path>[^:]+):(?P<line>\d+)\Z")


@dataclass(frozen=True)
class Named:
    """A definition a query names, with its place among its file's definitions."""

    row: SymbolHit
    qualified: str  # Class.method inside its file
    parent: str | None  # the enclosing definition's qualified name (a method's class)
    in_class: bool = False  # its parent is no function: it is not a function's local


@dataclass
class Target:
    """What a navigation query asks about."""

    name: str  # the bare name searched for
    chosen: list[Named] = field(default_factory=list)  # the definitions it names
    others: list[Named] = field(default_factory=list)  # other definitions of that name
    note: str | None = None  # why it could not be narrowed, when it could not
    named: bool = False  # the query named one definition (a dotted name or a location)


def is_location(query: str) -> bool:
    """Does ``query`` name a definition by its place (``src/pkg/core.py:120``)?"""
    located = _LOCATION.match(query.strip())
    return located is not None and ("/" in located["path"] or "." in located["path"])


def module_of(path: str) -> str:
    """``src/pkg/core.py`` -> ``src.pkg.core``; a package's ``__init__`` is the package."""
    module = path.rsplit(".", 1)[0].replace("/", ".")
    return module.removesuffix(".__init__")


def _named(store: IndexStore, rows: list[SymbolHit]) -> list[Named]:
    trees = definition_trees(store, sorted({row.file_id for row in rows}))
    out = []
    for row in rows:
        scope = _scope_at(trees.get(row.file_id, []), row)
        qualified = scope.qualified if scope is not None else row.name
        parent = qualified[:-len(row.name)].rstrip(".") or None
        holder = enclosing(trees.get(row.file_id, []), scope) if scope is not None else None
        out.append(Named(row, qualified, parent,
                         holder is not None and holder.kind not in _FUNCTION_KINDS))
    return out


def _scope_at(tree: list[Scope], row: SymbolHit) -> Scope | None:
    scope = innermost(tree, row.line)
    return scope if scope is not None and scope.line == row.line and scope.name == row.name \
        else None


def resolve(store: IndexStore, query: str) -> Target:
    """The definitions ``query`` names (see the module's text)."""
    text = query.strip()
    located = _LOCATION.match(text)
    if located and is_location(text):
        return _at(store, located["path"], int(located["line"]))
    parts = dotted_parts(text)
    name = parts[-1] if parts else text
    rows = store.symbols("s.is_def = 1 AND s.folded = ? AND s.name = ?", (folded_name(name), name),
                         limit=MAX_DEFINITIONS)
    every = _named(store, rows)
    if len(parts) < 2:
        return Target(name, every, [])
    wanted = ".".join(parts)
    chosen = [named for named in every
              if f"{module_of(named.row.path)}.{named.qualified}" == wanted
              or f"{module_of(named.row.path)}.{named.qualified}".endswith("." + wanted)]
    if not chosen:
        return Target(name, every, [], f"No indexed definition is {wanted}; these are the "
                                       f"results for every definition named {name}.")
    return Target(name, chosen, [named for named in every if named not in chosen], named=True)


def _at(store: IndexStore, path: str, line: int) -> Target:
    path = path.removeprefix("./")
    rows = store.symbols("s.is_def = 1 AND f.path = ? AND s.line <= ? AND s.end_line >= ?",
                         (path, line, line), limit=MAX_DEFINITIONS)
    if not rows:
        return Target("", [], [], f"No indexed definition is at {path}:{line}.")
    row = next((r for r in rows if r.line == line), None) \
        or min(rows, key=lambda r: r.end_line - r.line)
    every = _named(store, store.symbols("s.is_def = 1 AND s.folded = ? AND s.name = ?",
                                        (folded_name(row.name), row.name), limit=MAX_DEFINITIONS))
    return _one(store, row, every)


def symbols(store: IndexStore, target: Target) -> list[Target]:
    """The one-symbol targets ``target``'s definitions make, each as asking at its line would.

    An overload's signatures, or a property's getter and setter, are one symbol; any other
    two definitions are two.
    """
    every = [*target.chosen, *target.others]
    out: list[Target] = []
    covered: set[tuple[int, int]] = set()
    for named in target.chosen:
        if (named.row.file_id, named.row.line) in covered:
            continue
        one = _one(store, named.row, every)
        covered |= {(n.row.file_id, n.row.line) for n in one.chosen}
        out.append(one)
    return out


def _one(store: IndexStore, row: SymbolHit, every: list[Named]) -> Target:
    """The symbol defined at ``row``, among ``every`` definition of its name."""
    chosen = [named for named in every if named.row.file_id == row.file_id
              and named.row.line == row.line]
    accessors = accessor_lines(store, [row.name])
    if chosen and (row.file_id, row.line) in accessors:
        # a property's getter, setter and deleter are one symbol: asked at one, all of it
        chosen += [named for named in every if named not in chosen
                   and named.row.file_id == row.file_id and named.parent == chosen[0].parent
                   and (named.row.file_id, named.row.line) in accessors]
    siblings = [named for named in every if named not in chosen and chosen
                and named.row.file_id == row.file_id and named.qualified == chosen[0].qualified]
    if siblings and _overloaded(store, row.file_id, [row.line, *(n.row.line for n in siblings)]):
        chosen += siblings  # an overload's signatures and implementation: one function
    return Target(row.name, chosen, [named for named in every if named not in chosen],
                  named=True)


def _overloaded(store: IndexStore, file_id: int, lines: list[int]) -> bool:
    """Is one of the definitions at ``lines`` of a file an ``@overload`` signature?"""
    text = (store.text_of(file_id) or "").split("\n")
    return any(is_overload(text, line) for line in lines)
