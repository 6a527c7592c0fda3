"""The workspaces ``bench/agent_cost.py`` replays its sessions on.

The Python standard library with the 24 sessions of ``bench/replay_scripts.py`` (a copy in the
cache folder without the installed packages, ``site-packages``: what the host has installed
must not change what a search finds), and pinned sdists from PyPI (attrs, jinja2, click,
requests, marshmallow), fetched by pip into a cache folder on first use, never committed, with the
sessions of ``bench/agent_cost_sessions.py``. In an sdist's sessions a
step's "module" is the file's path inside the unpacked sdist. ``smoke_corpus`` copies the few
standard-library files of three sessions into a folder, for a run that takes seconds.
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_scripts import (  # noqa: E402
    SESSIONS,
    STDLIB,
    ReadAround,
    ReadFile,
    ReadSymbol,
    Search,
    Session,
    module_path,
)
from sdists import sdist, unpack  # noqa: E402

CACHE = Path(os.environ.get("SARI_BENCH_CACHE", Path.home() / ".cache" / "sari-bench"))


@dataclass(frozen=True)
class Corpus:
    """A workspace root, its sessions, and how a step's module names a file."""

    name: str
    root: Path
    sessions: tuple[Session, ...]
    modules_are_paths: bool

    def path_of(self, module: str) -> str:
        return module if self.modules_are_paths else module_path(module)

    def text_of(self, path: str) -> str:
        return _read(self.root / path)

    def has_file(self, path: str) -> bool:
        return _is_file(self.root / path)

    def definition_lines_at(self, path: str, dotted: str) -> tuple[int, int]:
        """:meth:`definition_lines` of the file at ``path``."""
        module = path if self.modules_are_paths else next(
            (m for m in _modules_of(self) if module_path(m) == path), None)
        if module is None:
            raise LookupError(f"{path} is not a module of the {self.name} sessions")
        return self.definition_lines(module, dotted)

    def wanted(self, step: ReadFile | ReadSymbol | ReadAround, path: str) -> range:
        """The lines a read step asks for: the file's window, the symbol, or around it."""
        total = self.text_of(path).count("\n") + 1
        if isinstance(step, ReadFile):
            first = (step.offset or 0) + 1
            last = total if step.limit is None else min(total, first + step.limit - 1)
            return range(first, last + 1)
        start, end = self.definition_lines(step.module, step.symbol)
        if isinstance(step, ReadSymbol):
            return range(start, end + 1)
        return range(max(1, start - step.before), min(total, end + step.after) + 1)

    def definition_lines(self, module: str, dotted: str) -> tuple[int, int]:
        """First and last line of a (nested) def or class, decorators included."""
        nodes: list[ast.stmt] = list(_tree(self.root / self.path_of(module)).body)
        found: ast.stmt | None = None
        for part in dotted.split("."):
            named = [node for node in nodes
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and node.name == part]
            # An overloaded function is its implementation: its @overload signatures only
            # declare it.
            found = next((node for node in named if not _is_overload(node)),
                         named[0] if named else None)
            if found is None:
                raise LookupError(f"{dotted} is not defined in {module}")
            nodes = list(getattr(found, "body", []))
        assert found is not None and found.end_lineno is not None
        decorators = getattr(found, "decorator_list", [])
        return min([found.lineno, *(d.lineno for d in decorators)]), found.end_lineno


def _is_overload(node: ast.stmt) -> bool:
    """Is ``node`` an ``@overload`` (``typing.overload``, ``t.overload``) signature?"""
    for decorator in getattr(node, "decorator_list", []):
        name = decorator.attr if isinstance(decorator, ast.Attribute) else \
            decorator.id if isinstance(decorator, ast.Name) else ""
        if name == "overload":
            return True
    return False


@cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _is_file(path: Path) -> bool:
    return path.is_file()


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(_read(path))


def _modules_of(corpus: Corpus) -> set[str]:
    modules = {module for session in corpus.sessions for module, _ in session.needs}
    return modules | {step.module for session in corpus.sessions for step in session.steps
                      if not isinstance(step, Search)}


def sdist_root(name: str, version: str) -> Path:
    """The unpacked sdist ``name==version``, downloaded by pip into the cache folder on first
    use (the archive's own folder name, whatever case the index gives it)."""
    folder = CACHE / f"{name}-{version}"
    trees = sorted(p for p in folder.glob("*") if p.is_dir()) if folder.is_dir() else []
    if trees:
        return trees[0]
    return unpack(sdist(f"{name}=={version}", folder), folder)


# The host's installed packages and byte code: not the standard library.
NOT_STDLIB = ("site-packages", "dist-packages", "__pycache__")


def stdlib_tree(source: Path = STDLIB, cache: Path | None = None) -> Path:
    """A copy of the standard library at ``source`` without what the host installed in it,
    made in the cache folder on first use."""
    folder = (cache or CACHE) / f"stdlib-{sys.version_info[0]}.{sys.version_info[1]}"
    tree = folder / "lib"
    if not (folder / "complete").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(source, tree, symlinks=True,
                        ignore=shutil.ignore_patterns(*NOT_STDLIB))
        (folder / "complete").write_text(str(source) + "\n", encoding="utf-8")
    return tree


SMOKE_SESSIONS = ("json-indent", "textwrap-dedent", "heapq-merge")


def smoke_corpus(folder: Path) -> Corpus:
    """Three standard-library sessions over a copy of only the files their steps name."""
    sessions = tuple(s for s in SESSIONS if s.name in SMOKE_SESSIONS)
    corpus = Corpus("smoke", folder, sessions, False)
    for module in _modules_of(corpus):
        source = STDLIB / module_path(module)
        target = folder / module_path(module)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return corpus


def corpora() -> list[Corpus]:
    from agent_cost_sessions import (
        ATTRS,
        ATTRS_SESSIONS,
        CLICK,
        CLICK_SESSIONS,
        JINJA2,
        JINJA2_SESSIONS,
        MARSHMALLOW,
        MARSHMALLOW_SESSIONS,
        REQUESTS,
        REQUESTS_SESSIONS,
    )

    return [Corpus("stdlib", stdlib_tree(), SESSIONS, False),
            Corpus(f"attrs-{ATTRS}", sdist_root("attrs", ATTRS), ATTRS_SESSIONS, True),
            Corpus(f"jinja2-{JINJA2}", sdist_root("jinja2", JINJA2), JINJA2_SESSIONS, True),
            Corpus(f"click-{CLICK}", sdist_root("click", CLICK), CLICK_SESSIONS, True),
            Corpus(f"requests-{REQUESTS}", sdist_root("requests", REQUESTS), REQUESTS_SESSIONS,
                   True),
            Corpus(f"marshmallow-{MARSHMALLOW}", sdist_root("marshmallow", MARSHMALLOW),
                   MARSHMALLOW_SESSIONS, True)]


__all__ = ["Corpus", "ReadAround", "ReadFile", "ReadSymbol", "Search", "Session", "corpora",
           "smoke_corpus"]
