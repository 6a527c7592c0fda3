"""Index-only navigation for one definition: the uses of a name that are not it, dropped.

The index knows names, not types, so a line using ``send`` may use ``Session.send``,
``Adapter.send`` or a variable called ``send``. When the query names one definition
(see :mod:`sari_core.engine.python.symbol_target`), each occurrence on a line is judged by what
is written there:

* the definition lines: the chosen one's kept, the others' dropped; comments and
  occurrences inside quotes are no uses;
* ``x.send`` for a method: ``self``/``cls`` by the class the line is in (the chosen class
  or one extending it: kept; a class of another ``send``: dropped), ``Session.send`` by the
  class named, ``session.send`` by the words of the variable against the classes' names
  (``adapter`` is an ``HTTPAdapter``'s) when they tell one from the others;
* ``x.close`` for a module's function or class: kept only through its module's name;
* a bare ``close``: never a method; for a function or class, not a keyword argument, an
  assignment, another definition, nor a parameter or local of the function it is in, and
  only in its own file or one importing it (from its module, not another's).

A line is kept when one occurrence is, dropped when every one is; a line nothing decides
is kept and counted: the answer says how many were kept unjudged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sari_core.engine.index.scope_tree import Scope, innermost
from sari_core.engine.index.store import IndexStore
from sari_core.engine.python.code_text import (
    Spans,
    annotation_string,
    continued,
    in_prose,
    in_string,
    prose_spans,
)
from sari_core.engine.python.decorated import PYTHON_SUFFIXES, accessor_lines
from sari_core.engine.python.python_text import (
    comprehension_bound,
    imported_modules,
    parameters,
    signature,
)
from sari_core.engine.python.receiver_types import ReceiverTypes, receiver_chain
from sari_core.engine.python.subclasses import Subclasses, class_keys, overrides
from sari_core.engine.python.symbol_target import Named, Target, module_of
from sari_core.engine.python.use_text import called, exported, receiver_of

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
BY_NAME = "by-name"  # a verdict: kept, judged by the receiver's name alone
_IGNORED_WORDS = frozenset(("self", "cls", "obj", "the", "a", "my", "base", "get"))
_COMMENTS = ("#", "//", "/*", "* ", "--")


@dataclass(frozen=True)
class Use:
    file_id: int
    path: str
    line: int
    text: str
    is_definition: bool


def _words(name: str) -> set[str]:
    """The words of a name; a single letter tells nothing (``t`` is no ``AoT``)."""
    return {word.lower() for word in _WORDS.findall(name) if len(word) > 1} - _IGNORED_WORDS


class Narrower:
    """Judges the uses of ``target.name`` for ``target.chosen``."""

    def __init__(self, store: IndexStore, target: Target,
                 types: ReceiverTypes | None = None,
                 prose: dict[int, Spans] | None = None) -> None:
        self.target = target
        self.name = target.name
        self.chosen_lines = {(n.row.file_id, n.row.line) for n in target.chosen}
        self.other_lines = {(n.row.file_id, n.row.line) for n in target.others}
        # what the text says of receivers holds for any target: judges of one name share it
        self.types = types or ReceiverTypes(store)
        # classes by (file, name): a base is resolved through its file's imports, so a
        # namesake (abc's Stream, a backend's Stream(abc.Stream)) is not the other's
        subclasses = Subclasses(store, self.types)
        mine_keys = class_keys(store, target.chosen)
        theirs_keys = class_keys(store, target.others) - mine_keys
        # a subclass overriding the method has its own: it is not the chosen one's
        self.mine_keys = mine_keys | subclasses.extending(mine_keys, stop=theirs_keys)
        self.theirs_keys = (theirs_keys | subclasses.extending(theirs_keys, stop=mine_keys)
                            ) - self.mine_keys
        self.mine = {name for _, name in self.mine_keys}
        # class names both sides hold (TaskGroup in abc/ and in each backend): the name
        # alone tells neither; which module's class a file means decides
        self.shared = self.mine & {name for _, name in self.theirs_keys}
        self.theirs = {name for _, name in self.theirs_keys} - self.mine
        self.functions = [n for n in target.chosen if n.parent is None]
        self.methods = [n for n in target.chosen if n.parent is not None]
        # a property is used by reading or setting it: x.name is no data attribute then
        self.properties = bool(self.chosen_lines & set(accessor_lines(store, [self.name])))
        self.modules = {part for n in (*target.chosen, *target.others)
                        for part in module_of(n.row.path).split(".")} - self.mine
        self.other_functions = [n for n in target.others if n.parent is None]
        self.undecided = 0
        self.by_name = 0  # kept only because the receiver is named like the class
        # a file's docstrings and comments hold for any target too: shared when given
        self._prose: dict[int, Spans] = {} if prose is None else prose
        self._plain: dict[int, set[str]] = {}
        self._packages: dict[str, bool] = {}
        self._word = re.compile(rf"(?<![\w$]){re.escape(self.name)}(?![\w$])")

    def keep(self, use: Use, tree: list[Scope], file_text: str) -> bool:
        key = (use.file_id, use.line)
        if key in self.chosen_lines:
            return True
        if key in self.other_lines:
            return False
        if use.text.lstrip().startswith(_COMMENTS):
            return False  # a comment names it; it does not use it
        prose = self._prose_lines(use.file_id, file_text)
        verdicts = []
        for found in self._word.finditer(use.text):
            if in_prose(prose, use.line, found.start()):
                continue  # a docstring names it
            before, after = use.text[:found.start()], use.text[found.end():]
            if in_string(use.text, found.start()) and (
                    self.properties or not annotation_string(use.text, found.start())):
                if self.functions and exported(use.text, found, self._lines(use), use.line):
                    verdicts.append(self._bare_use(use, file_text, "", "", tree))
                continue  # a string, but no forward reference ("Template", "t.List[Env]")
            if before.rstrip().endswith("."):
                if _IMPORT.match(use.text):
                    verdicts.append(False)  # a part of a module's dotted path
                    continue
                receiver = receiver_of(before.rstrip())
                chain = receiver_chain(continued(before, self._lines(use), use.line))
                if self.methods and not self.functions and receiver != "super()":
                    classes = self.types.of(chain, use.file_id, use.line)
                    if classes is not None:  # an annotation, a constructor, self: its class
                        verdicts.append(self._is_mine(classes, use))
                        continue
                if self.methods and not self.functions and not self.properties and not (
                        after.lstrip().startswith("(") or (
                            called(after) and receiver in ("self", "cls", "this", *self.mine))):
                    verdicts.append(False)  # x.name = ..., x.name.y: a data attribute
                    continue
                verdicts.append(self._by_receiver(receiver, chain, use, tree))
            elif self.properties and _ACCESSOR_DECORATOR.match(after) \
                    and before.strip() == "@":  # @name.setter: the same property, extended
                verdicts.append(_class_at(tree, use.line) in self.mine)
            else:
                verdicts.append(self._bare_use(use, file_text, before, after, tree))
        if not verdicts or all(verdict is False for verdict in verdicts):
            return False
        if True in verdicts:
            return True
        if BY_NAME in verdicts:
            self.by_name += 1
            return True
        self.undecided += 1
        return True

    def _by_receiver(self, receiver: str, chain: list[str], use: Use, tree: list[Scope]
                     ) -> bool | str | None:
        if not use.path.endswith(PYTHON_SUFFIXES):
            return BY_NAME  # receivers' types and modules are read for Python alone
        if not self.methods:  # a module's function or class: only through its module
            return self._through_module(chain, receiver, use)
        if receiver == "super()":
            return self._through_super(use, tree)
        if receiver in ("self", "cls", "this"):
            owner = _class_at(tree, use.line)
            if owner is None:
                return None
            # a class neither defining nor inheriting (as far as the index sees) the method
            # is a mixin or a sibling: a type checker does not resolve the name there either
            return self._is_mine({owner}, use)
        if receiver in self.mine:
            return True
        if receiver in self.theirs or (receiver in self.modules
                                       and self._imports_module(use, receiver)):
            return False  # another class, or an imported module: not an instance of this one
        if len(chain) == 1 and chain[0] in self._modules_imported(use):
            return False  # re.compile, os.path: a module's attribute, not an instance's
        by_words = self._by_words(receiver)
        if by_words is not None:
            return BY_NAME if by_words else False
        # Nothing tells the receiver's type: another class's method of that name, or a
        # builtin container's (x.get, x.items), is as likely as this one.
        return False if self.theirs or self.shared or self.name in _BUILTIN_METHODS else None

    def _is_mine(self, classes: set[str], use: Use) -> bool | None:
        """Are ``classes`` (a receiver's, at ``use``) the chosen method's class or one
        inheriting it? A class name both sides define is resolved in the use's file: its
        own class of that name, else the one it imports; None when neither tells."""
        found = classes & self.mine
        if not found or not found <= self.shared:
            return bool(found)
        verdicts = {self._which(name, use) for name in found}
        return True if True in verdicts else (None if None in verdicts else False)

    def _which(self, name: str, use: Use) -> bool | None:
        mine = {file_id for file_id, held in self.mine_keys if held == name}
        theirs = {file_id for file_id, held in self.theirs_keys if held == name}
        if use.file_id in mine or use.file_id in theirs:
            return use.file_id in mine
        source = self.types.origin_file(use.file_id, use.path, name)
        if source is not None and source[0] in mine | theirs:
            return source[0] in mine
        # unresolved (the type came through a function's annotation in another file): an
        # annotation names the interface, the class others of that name extend
        return not any(self._extends_namesake(name, file_id) for file_id in mine)

    def _extends_namesake(self, name: str, file_id: int) -> bool:
        """Does file ``file_id``'s class ``name`` extend a class of the same name
        (``class TaskGroup(abc.TaskGroup)``)?"""
        lines = self.types.lines(file_id)
        return any(re.search(rf"\(.*\b{re.escape(name)}\b", signature(lines, first))
                   for found, first, _ in self.types.classes(name) if found == file_id)

    def _imports_module(self, use: Use, module: str) -> bool:
        imported = re.compile(rf"\s*(import\s+([\w.]+\.)?{re.escape(module)}\b|from\s+\S+"
                              rf"\s+import\s+.*\b{re.escape(module)}\b)")
        return any(imported.match(line) for line in self._lines(use))

    def _modules_imported(self, use: Use) -> set[str]:
        """The names a file binds to modules (``import re``, ``import numpy as np``)."""
        if use.file_id not in self._plain:
            self._plain[use.file_id] = imported_modules(self._lines(use))
        return self._plain[use.file_id]

    def _prose_lines(self, file_id: int, file_text: str) -> Spans:
        if file_id not in self._prose:
            self._prose[file_id] = prose_spans(file_text)
        return self._prose[file_id]

    def _lines(self, use: Use) -> list[str]:
        return self.types.lines(use.file_id)

    def _through_module(self, chain: list[str], receiver: str, use: Use) -> bool:
        """``module.name`` for a module's function or class: the module written (through
        the file's imports: ``import pkg.nodes as n``) must be the definition's."""
        parts = {part for n in self.functions for part in module_of(n.row.path).split(".")}
        aliases = self.types.aliases(use.file_id)
        if chain and chain[0] not in aliases and not chain[0].endswith("()") \
                and self.types.variable(chain[0], use.file_id, use.line, 0):
            return False  # client = Protocol(); client.connect(): an instance, no module
        if not chain or chain[-1].endswith("()"):
            return receiver in parts
        written = ".".join([aliases.get(chain[0], chain[0]), *chain[1:]]).lstrip(".")
        if not written:
            return False
        chosen = {module_of(n.row.path) for n in self.functions}
        if any(f".{module}".endswith(f".{written}") for module in chosen):
            return True
        through = self.types.module_file(written, use.path)
        imported = through and self.types.origin(*through, self.name)
        if imported:  # a module importing it (``api.item``, api.py: from .items import item)
            return imported.rsplit(".", 1)[-1] in {part.rsplit(".", 1)[-1] for part in chosen}
        # a package re-exporting it (``jinja2.Template``): a package holding its module
        return written.rsplit(".", 1)[-1] in parts and not any(
            f".{module_of(n.row.path)}".endswith(f".{written}") for n in self.other_functions)

    def _through_super(self, use: Use, tree: list[Scope]) -> bool | None:
        """``super().name`` in a class: the method of the class it extends."""
        owner = _class_at(tree, use.line)
        if owner is None:
            return None
        bases = self.types.bases(owner)
        # the method of the first class above this one defining it: the chosen one only if
        # a base is the chosen class or inherits its method
        return bool(bases & self.mine) if bases else None

    def _by_words(self, variable: str) -> bool | None:
        words = _words(variable)
        if not words:
            return None
        mine = any(_shares_word(words, name) for name in self.mine)
        theirs = any(_shares_word(words, name) for name in self.theirs)
        if mine != theirs:
            return mine
        return None

    def _bare_use(self, use: Use, file_text: str, before: str, after: str,
                  tree: list[Scope]) -> bool | str | None:
        if self.methods and not self.functions:
            return False  # a method is used through something, not bare
        rest = after.lstrip()
        if rest.startswith("=") and not rest.startswith("=="):
            return False  # a keyword argument or a variable of that name
        if before.rstrip().endswith(("def", "class", "function", "fn", "func")):
            return False  # another definition of the name
        if self._shadowed(use, file_text, tree):
            return False  # a parameter or a local variable of the function it is in
        if comprehension_bound(self.name, self._lines(use), use.line, before, after):
            return False  # a comprehension's variable: [c.name for n, c in items]
        mine_files = {n.row.file_id for n in self.functions}
        their_files = {n.row.file_id for n in self.other_functions}
        if use.file_id in mine_files:
            return True
        if use.file_id in their_files:
            return False
        if not use.path.endswith(PYTHON_SUFFIXES):
            # Imports are read for Python alone: elsewhere a name used in a file defining
            # none of its namesakes is kept by name, as the name-based answer keeps it.
            return BY_NAME
        modules = {part for n in self.functions for part in module_of(n.row.path).split(".")}
        others = {module_of(n.row.path).rsplit(".", 1)[-1] for n in self.other_functions}
        origin = self.types.origin(use.file_id, use.path, self.name,
                                   renamed=bool(_IMPORT.match(use.text)))
        if origin is None:
            return False  # neither defined nor imported here: a local name, not this one
        module = origin.rsplit(".", 1)[-1]  # followed through packages re-exporting it
        if not origin.startswith(".") and not self._in_workspace(origin.split(".", 1)[0]):
            return False  # imported from a package the workspace does not hold
        source = self.types.origin_file(use.file_id, use.path, self.name,
                                        renamed=bool(_IMPORT.match(use.text)))
        if source is not None and source[0] in mine_files | their_files:
            return source[0] in mine_files  # the module's file: this definition's or not
        return not (module in others and module not in modules)

    def _in_workspace(self, package: str) -> bool:
        """Does the index hold a module or a package (a namespace package too: a folder
        of Python files) called ``package``, at any depth? A folder of data files named
        like a standard module (``tests/data/datetime/``) is no package."""
        if package not in self._packages:
            self._packages[package] = self.types.store.reader.execute(
                "SELECT 1 FROM files WHERE path = ? OR path LIKE ? OR path LIKE ? OR path LIKE ? "
                "LIMIT 1", (f"{package}.py", f"%/{package}.py", f"{package}/%.py",
                            f"%/{package}/%.py")).fetchone() is not None
        return self._packages[package]

    def _shadowed(self, use: Use, file_text: str, tree: list[Scope]) -> bool:
        """Is the name a parameter or an assigned local of the function holding the use?"""
        scope = innermost(tree, use.line)
        if scope is None or scope.kind not in ("function", "method"):
            return False
        lines = file_text.split("\n")
        params = parameters(signature(lines, scope.line))  # a signature over many lines too
        if re.search(rf"(?:^|[,(])\s*\**{re.escape(self.name)}\s*(?:[:=,)]|\Z)", params):
            return True  # a parameter's name, not a word of an annotation or a default
        name = re.escape(self.name)
        assigned = re.compile(  # x = ..., a, x = ..., for x in, with ... as x, except ... as x
            rf"^\s*(?:(?:[\w*]+\s*,\s*)*\*?{name}\s*(?:,\s*[\w*]+\s*)*(?::[^=]*)?=(?!=)"
            rf"|(?:async\s+)?for\s+[\w, ()*]*\b{name}\b[\w, ()*]*\s+in\s"
            rf"|.*\bas\s+{name}\s*[:,)])")
        return any(assigned.match(lines[number - 1])
                   for number in range(scope.line, min(use.line, len(lines)) + 1))


# Methods of Python's own containers and strings: ``x.get`` on an unknown ``x`` is as likely
# one of these as a method of the workspace.
_BUILTIN_METHODS = frozenset(name for kind in (dict, list, set, str, bytes, tuple, frozenset)
                             for name in dir(kind) if not name.startswith("_"))


_IMPORT = re.compile(r"\s*(from|import)\s")
_ACCESSOR_DECORATOR = re.compile(r"\.(setter|getter|deleter)\b")


def _shares_word(words: set[str], class_name: str) -> bool:
    """Does a variable's word name the class (``adapter``: ``HTTPAdapter``; ``sess`` and
    ``session``: ``Session``, a word of three letters or more starting one of its words)?"""
    mine = _words(class_name)
    return bool(words & mine) or any(len(word) >= 3 and other.startswith(word)
                                     for word in words for other in mine)


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


def note(target: Target, before: int, after: int, undecided: int, by_name: int = 0) -> str:
    where = ", ".join(sorted({f"{n.row.path}:{n.row.line}" for n in target.chosen})[:3])
    text = (f"Narrowed to {target.chosen[0].qualified} ({where}): {after} of {before} uses "
            f"of the name {target.name} kept")
    if undecided:
        text += (f"; {undecided} of them through a receiver of unknown type (kept: the index "
                 "cannot tell whose they are)")
    if by_name:
        text += (f"; {by_name} of them only because the receiver is named like the class "
                 "(env for Environment: its type is written nowhere)")
    return text + "."


def pooled_note(each: list[Target], before: int, after: int, undecided: int) -> str:
    """Which definitions a name's answer pools, and what judging each use kept."""
    shown = [f"{t.chosen[0].qualified} ({t.chosen[0].row.path}:{t.chosen[0].row.line})"
             for t in each[:5]]
    more = f" and {len(each) - 5} more" if len(each) > 5 else ""
    text = (f"The name {each[0].name} names {len(each)} definitions, pooled: "
            f"{', '.join(shown)}{more}. Each use was judged as each definition asked at its "
            f"line would judge it and kept when it can be one of them: {after} of {before} "
            "kept")
    if undecided:
        text += f"; {undecided} judgements through a receiver of unknown type (kept)"
    return text + ". Ask Class.method or path:line for one of them."


__all__ = ["Narrower", "Named", "Use", "innermost", "note", "overrides", "pooled_note"]
