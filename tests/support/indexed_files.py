"""An engine over a few files written for a test, indexed before the test asks anything."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from git_workspace import write_files

from sari_core.engine import Workspace
from sari_core.models import SearchCall, SearchKind


@contextmanager
def indexed(root: Path, files: dict[str, str]) -> Iterator[Workspace]:
    """``files`` (relative path -> text) written below ``root`` and fully indexed; the
    index lives beside ``root``, never in the user's cache."""
    write_files(root, files)
    with Workspace([root], index_path=root.parent / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        yield engine


def module_workspace(files: dict[str, str]) -> Callable[..., Iterator[Workspace]]:
    """A module-scoped ``workspace`` fixture: ``files`` indexed once for a test module."""

    @pytest.fixture(scope="module")
    def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
        with indexed(tmp_path_factory.mktemp("workspace").resolve(), files) as engine:
            yield engine

    return workspace


def usage_lines(workspace: Workspace, query: str, kind: SearchKind = "references"
                ) -> set[tuple[str, int]]:
    """Where ``query`` is used (``kind`` references or callers): (path, line) of every match
    that is not a definition."""
    result = workspace.search(SearchCall(query=query, kind=kind, limit=100))
    return {(m.path, int(m.line or 0)) for m in result.matches if m.kind != "definition"}


def filler_functions(count: int) -> str:
    """``count`` small functions holding none of a test query's words: other code, so that
    the query's words are rare in the workspace, as they are in a real one."""
    return "\n\n".join(f'def helper_{n}(value):\n    """Format value number {n}."""\n'
                       f'    return value + {n}\n' for n in range(count))


def reader_modules(root: Path, count: int) -> None:
    """``m0.py`` ... ``m{count-1}.py`` below ``root``: each a class ``ReaderN`` whose
    ``read_all`` calls the module's ``helper_N``, which joins a path (a tree large enough
    for a first build in two phases, once the test lowers its threshold)."""
    for n in range(count):
        (root / f"m{n}.py").write_text(
            f"import os\n\n\nclass Reader{n}:\n    def read_all(self, path):\n"
            f"        return helper_{n}(path)\n\n\ndef helper_{n}(path):\n"
            f"    return os.path.join(path, 'redirects followed')\n", encoding="utf-8")


def large_tree(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
               write: Callable[[Path], None]) -> Path:
    """A folder ``write`` fills, whose first build counts as a large tree's (two phases
    from five files on, for this test)."""
    from sari_core.engine.index import indexer

    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    root = tmp_path / "tree"
    root.mkdir()
    write(root)
    return root
