"""Before the first index: a scan answers, with the index's file set and ranking rules."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine import workspace as workspace_module
from sari_core.engine.files.ignore import IgnoreRules
from sari_core.engine.index.indexer import Indexer
from sari_core.engine.scan import scan
from sari_core.engine.scan.scan_search import BUILDING_NOTE, scan_search
from sari_core.kernel import Kernel
from sari_core.models import SearchCall
from sari_core.rendering import render

QUERIES = [("text", "execute_read"), ("text", "EXECUTE_READ"), ("text", "helper"),
           ("text", "café"), ("text", "line"), ("regex", r"execute_\w+"),
           ("regex", r"fn \w+\("), ("text", "kelvin")]


@pytest.fixture(params=["rg", "python"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(scan, "ripgrep", lambda: None)
    return str(request.param)


def test_the_ripgrep_wheel_is_found() -> None:
    binary = scan.ripgrep()
    assert binary is not None and Path(binary).name.startswith("rg")


@pytest.mark.parametrize(("kind", "query"), QUERIES)
def test_a_scan_finds_the_files_the_index_finds(shared: Workspace, walker: str, kind: str,
                                                query: str) -> None:
    call = SearchCall(query=query, kind=kind)  # type: ignore[arg-type]
    indexed = sorted(hit.path for hit in shared.searcher.files(call))
    scanned = sorted(item.rel for item in shared.scan.lines(
        query, regex=kind == "regex", case_sensitive=False))
    assert scanned == indexed
    assert indexed or query == "kelvin"


def test_a_scan_lists_the_files_the_index_holds(shared: Workspace, walker: str) -> None:
    indexed = sorted(path for _, path in shared.store.all_files())
    assert sorted(rel for _, rel in shared.scan.files()) == indexed


def test_a_scan_ranks_the_definition_first_and_says_the_index_is_building(
        shared: Workspace, walker: str) -> None:
    result = scan_search(shared.searcher, shared.scan, SearchCall(query="def execute_read"))
    assert result.matches and result.matches[0].kind == "definition"
    assert not result.index_ready and result.notes == [BUILDING_NOTE]
    symbol = scan_search(shared.searcher, shared.scan,
                         SearchCall(query="executeRead", kind="symbol"))
    assert {m.path for m in symbol.matches} == {"src/app.py", "src/other.py"}
    paths = scan_search(shared.searcher, shared.scan, SearchCall(query="app.py", kind="path"))
    assert paths.matches[0].path == "src/app.py"


def test_while_the_first_build_runs_a_search_answers_from_the_scan(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_refresh = Indexer.refresh

    def slow_refresh(self: Indexer, **kwargs: object) -> object:
        release.wait(30)
        return real_refresh(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Indexer, "refresh", slow_refresh)
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False)
    try:
        engine.start_background_index()
        with Kernel(engine) as kernel:
            response = kernel.execute_search({"query": "execute_read"})
            text = render(response)
            assert response["meta"]["index_ready"] is False
            assert {m["path"] for m in response["matches"]} >= {"src/app.py",
                                                                 "docs/notes.md"}
            assert "No matches" not in text and "index is still being built" in text
            release.set()
            assert engine.wait_for_index(60)
            assert engine.index_complete
            after = engine.search(SearchCall(query="execute_read"))
            assert after.index_ready and not after.notes
    finally:
        release.set()
        engine.close()


def test_the_first_build_waits_while_calls_come_first(repo: Path, tmp_path: Path) -> None:
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False)
    try:
        with engine.indexer.calls_first():
            engine.start_background_index()
            assert not engine.wait_for_index(1.0)  # held before its first file
            assert engine.store.all_files() == {}
        assert engine.wait_for_index(60)
        assert engine.store.all_files()
    finally:
        engine.close()


def test_close_ends_a_build_held_by_a_call(repo: Path, tmp_path: Path) -> None:
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False)
    with engine.indexer.calls_first():
        engine.start_background_index()
        engine.close()  # the held build sees the cancellation instead of waiting forever
        assert engine._thread is not None and not engine._thread.is_alive()


def test_a_search_answered_from_the_scan_holds_the_build_meanwhile(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False)
    held: list[bool] = []

    def scanning(searcher: object, scan: object, call: SearchCall) -> object:
        held.append(engine.indexer.holding_builds)
        return scan_search(searcher, scan, call)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace_module, "scan_search", scanning)
    try:
        engine.scan_before_build = True  # as the CLI does: scan first, build after
        assert engine.search(SearchCall(query="execute_read")).matches
        assert held == [True]
        assert not engine.indexer.holding_builds
    finally:
        engine.close()


def test_a_scan_takes_no_line_of_prose_for_a_definition(tmp_path: Path, walker: str) -> None:
    # A changelog that quotes code (`def execute_read` at a line's start, as a table of
    # benchmark queries does) sorted before the code that defines it.
    (tmp_path / "CHANGELOG.md").write_text("def execute_read  0 0.9 62.0\n" * 3)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.rst").write_text("def execute_read(self):\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pipeline.py").write_text(
        "class Kernel:\n    def execute_read(self, args):\n        return args\n")
    with Workspace([tmp_path], index_path=tmp_path.parent / "scan-prose.db",
                   watch=False) as ws:
        text = scan_search(ws.searcher, ws.scan, SearchCall(query="def execute_read"))
        symbol = scan_search(ws.searcher, ws.scan,
                             SearchCall(query="execute_read", kind="symbol"))
    assert text.matches[0].path == "pkg/pipeline.py" and text.matches[0].kind == "definition"
    assert [m.kind for m in text.matches if m.path != "pkg/pipeline.py"] == ["text"] * (
        len(text.matches) - 1)
    assert {m.path for m in symbol.matches} == {"pkg/pipeline.py"}


def test_a_search_before_the_first_build_does_not_walk_the_tree_for_changes(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without a watcher, the first drain of the stat check lists every folder of the tree;
    # before the first build nothing is indexed to compare with, so a call must not pay it.
    walks: list[str] = []
    real_walk_dirs = IgnoreRules.walk_dirs

    def counted(self: IgnoreRules, *args: object, **kwargs: object) -> object:
        walks.append(str(self.root))
        return real_walk_dirs(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IgnoreRules, "walk_dirs", counted)
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False)
    try:
        engine.scan_before_build = True  # as the CLI does: scan first, build after
        with Kernel(engine) as kernel:
            assert kernel.execute_search({"query": "execute_read"})["matches"]
        assert walks == []
    finally:
        engine.close()


def test_a_sentence_before_the_first_index_is_answered_by_its_words(tmp_path: Path,
                                                                    walker: str) -> None:
    # No file holds the sentence as written; the scan used to answer "no matches" for
    # it while the index was being built, though the code that does it was on disk.
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "cart.py").write_text(
        "class Cart:\n    def add_item(self, item, quantity=1):\n"
        "        self.items.append((item, quantity))\n")
    (tmp_path / "shop" / "price.py").write_text("def total(items):\n    return 0\n")
    (tmp_path / "NOTES.md").write_text("An item list.\n")
    with Workspace([tmp_path], index_path=tmp_path.parent / "scan-words.db",
                   watch=False) as ws:
        understood = scan_search(ws.searcher, ws.scan,
                                 SearchCall(query="add an item to the cart", literal=False))
        literal = scan_search(ws.searcher, ws.scan, SearchCall(query="add an item to the cart"))
    assert understood.matches[0].path == "shop/cart.py"
    assert understood.matches[0].line in (1, 2)
    assert understood.total >= 1 and len(understood.notes) == 2
    assert "as written" in understood.notes[1]
    # An explicit literal search stays literal: no words instead.
    assert literal.matches == [] and literal.notes == [BUILDING_NOTE]
