"""The workspaces and scripted sessions ``bench/agent_cost.py`` replays.

Two corpora: the Python standard library with the 24 sessions of
``bench/replay_scripts.py``, and attrs (a pinned sdist from PyPI, fetched by pip into a
cache folder on first use, never committed) with sessions written the same way: a task,
the definitions it needs, and the calls an agent typically makes to get there (a search,
whole-file reads, re-reads, overlapping ranges, a symbol read, a read of a wrong file).
In the attrs sessions a step's "module" is the file's path inside the unpacked sdist.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tarfile
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

ATTRS_VERSION = "24.2.0"
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
            found = next((node for node in nodes
                          if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.ClassDef)) and node.name == part), None)
            if found is None:
                raise LookupError(f"{dotted} is not defined in {module}")
            nodes = list(getattr(found, "body", []))
        assert found is not None and found.end_lineno is not None
        decorators = getattr(found, "decorator_list", [])
        return min([found.lineno, *(d.lineno for d in decorators)]), found.end_lineno


@cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(_read(path))


def attrs_root() -> Path:
    """The unpacked attrs sdist, downloaded by pip into the cache folder on first use."""
    folder = CACHE / f"attrs-{ATTRS_VERSION}"
    tree = folder / f"attrs-{ATTRS_VERSION}"
    if tree.is_dir():
        return tree
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"attrs=={ATTRS_VERSION}", "-d", str(folder)],
                   check=True)
    archive = folder / f"attrs-{ATTRS_VERSION}.tar.gz"
    with tarfile.open(archive) as sdist:
        sdist.extractall(folder, filter="data")
    return tree


def _s(name: str, task: str, needs: list[tuple[str, str]], *steps: object) -> Session:
    return Session(name, task, tuple(needs), tuple(steps))  # type: ignore[arg-type]


MAKE = "src/attr/_make.py"
FUNCS = "src/attr/_funcs.py"
NEXT = "src/attr/_next_gen.py"
VALIDATORS = "src/attr/validators.py"
CONVERTERS = "src/attr/converters.py"
FILTERS = "src/attr/filters.py"
SETTERS = "src/attr/setters.py"
CMP = "src/attr/_cmp.py"

ATTRS_SESSIONS: tuple[Session, ...] = (
    _s("attrs-evolve", "How does attrs.evolve build the new instance?",
       [(FUNCS, "evolve")],
       Search("def evolve"), ReadFile(FUNCS), ReadAround(FUNCS, "evolve", 5, 5),
       ReadFile(MAKE, 0, 300), ReadFile(FUNCS), ReadAround(FUNCS, "assoc")),
    _s("attrs-define", "What defaults does attrs.define pick?",
       [(NEXT, "define")],
       Search("def define"), ReadFile(NEXT), ReadAround(NEXT, "define", 0, 20),
       ReadFile(MAKE, 1170, 250), ReadAround(NEXT, "field"), ReadFile(NEXT, 0, 120)),
    _s("attrs-asdict", "How does asdict recurse into collections?",
       [(FUNCS, "asdict"), (FUNCS, "_asdict_anything")],
       Search("def asdict"), ReadFile(FUNCS), ReadAround(FUNCS, "_asdict_anything", 5, 5),
       ReadFile(NEXT, 590, 40), ReadAround(FUNCS, "asdict", 0, 10), ReadFile(FILTERS)),
    _s("attrs-instance-of", "What does validators.instance_of raise?",
       [(VALIDATORS, "_InstanceOfValidator"), (VALIDATORS, "instance_of")],
       Search("class _InstanceOfValidator"), ReadFile(VALIDATORS),
       ReadAround(VALIDATORS, "_InstanceOfValidator", 5, 5), ReadFile("src/attr/exceptions.py"),
       ReadFile(VALIDATORS), ReadAround(VALIDATORS, "instance_of")),
    _s("attrs-init-script", "How is the generated __init__ written?",
       [(MAKE, "_attrs_to_init_script"), (MAKE, "_make_init")],
       Search("def _attrs_to_init_script"), ReadFile(MAKE),
       ReadAround(MAKE, "_attrs_to_init_script", 0, 10), ReadAround(MAKE, "_make_init", 5, 5),
       ReadFile(MAKE, 1850, 150), ReadFile(CONVERTERS)),
    _s("attrs-converters", "How does default_if_none choose a value?",
       [(CONVERTERS, "default_if_none"), (CONVERTERS, "optional")],
       Search("def default_if_none"), ReadFile(CONVERTERS),
       ReadAround(CONVERTERS, "default_if_none", 0, 10), ReadFile(SETTERS), ReadFile(CONVERTERS),
       ReadAround(CONVERTERS, "optional", 2, 2)),
    _s("attrs-fields", "What does attrs.fields return for a non-attrs class?",
       [(MAKE, "fields"), (MAKE, "fields_dict")],
       Search("def fields", "symbol"), ReadSymbol(MAKE, "fields"), ReadSymbol(MAKE, "fields_dict"),
       ReadFile(MAKE, 1690, 120), ReadFile(FUNCS, 320, 40), ReadSymbol(MAKE, "fields")),
    _s("attrs-cmp-using", "What does cmp_using generate?",
       [(CMP, "cmp_using")],
       Search("def cmp_using"), ReadFile(CMP), ReadAround(CMP, "cmp_using", 0, 20),
       ReadFile(MAKE, 1500, 130), ReadFile(CMP), ReadAround(CMP, "_make_operator", 5, 5)),
)


def corpora() -> list[Corpus]:
    return [Corpus("stdlib", STDLIB, SESSIONS, False),
            Corpus(f"attrs-{ATTRS_VERSION}", attrs_root(), ATTRS_SESSIONS, True)]


__all__ = ["Corpus", "ReadAround", "ReadFile", "ReadSymbol", "Search", "Session", "corpora"]
