"""A first build in two phases: every kind of search answers after the first, and the
second (the parse of each source file) goes on from where a killed build left it."""

from __future__ import annotations

from pathlib import Path

import pytest
from indexed_files import large_tree, reader_modules

from sari_core.engine import Workspace
from sari_core.engine.index import indexer, symbol_jobs
from sari_core.engine.workspace import DEFINITION_LINES_NOTE, WORDS_PENDING_NOTE
from sari_core.models import SearchCall

FILES = 12  # more than the patched BULK_FILES: a first build of a large tree


def _tree(root: Path) -> None:
    reader_modules(root, FILES)
    (root / "notes.md").write_text("# Notes\n\nRedirects are followed here.\n",
                                   encoding="utf-8")


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return large_tree(monkeypatch, tmp_path, _tree)


def _symbols(engine: Workspace, name: str) -> list[tuple[str, int | None, int | None]]:
    result = engine.search(SearchCall(query=name, kind="symbol", match="exact"))
    return [(m.path, m.line, m.end_line) for m in result.matches]


def test_the_first_phase_answers_every_kind_before_symbols_exist(large: Path,
                                                                   tmp_path: Path) -> None:
    with Workspace([large], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False, complete=False)
        assert engine.index_ready
        assert engine.store.pending_symbols() == FILES  # no file parsed yet
        symbol = engine.search(SearchCall(query="helper_3", kind="symbol", match="exact"))
        assert [(m.path, m.line, m.end_line) for m in symbol.matches] == [("m3.py", 9, 10)]
        assert DEFINITION_LINES_NOTE in symbol.notes
        assert symbol.extra["symbols"] == "definition lines"
        methods = engine.search(SearchCall(query="read_all", kind="symbol", match="exact"))
        assert methods.total == FILES
        text = engine.search(SearchCall(query="os.path.join(path", kind="text"))
        assert text.total == FILES
        regex = engine.search(SearchCall(query=r"helper_1\d\(", kind="regex"))
        assert {m.path for m in regex.matches} == {"m10.py", "m11.py"}
        path = engine.search(SearchCall(query="m7.py", kind="path"))
        assert [m.path for m in path.matches] == ["m7.py"]
        words = engine.search(SearchCall(query="where are redirects followed", literal=False))
        assert [m.path for m in words.matches] == ["notes.md"]  # source files: parsed later
        assert WORDS_PENDING_NOTE in words.notes
        uses = engine.search(SearchCall(query="helper_5", kind="references"))
        assert any(m.path == "m5.py" for m in uses.matches)

        engine.complete_index(progress=False)
        assert engine.store.pending_symbols() == 0
        symbol = engine.search(SearchCall(query="helper_3", kind="symbol", match="exact"))
        assert [(m.path, m.line, m.end_line) for m in symbol.matches] == [("m3.py", 9, 10)]
        assert DEFINITION_LINES_NOTE not in symbol.notes
        assert "symbols" not in symbol.extra
        words = engine.search(SearchCall(query="where are redirects followed", literal=False))
        assert WORDS_PENDING_NOTE not in words.notes
        assert len(words.matches) > 1
        uses = engine.search(SearchCall(query="helper_5", kind="references"))
        assert ("m5.py", 6) in {(m.path, m.line) for m in uses.matches}  # a call: parsed


def test_a_build_killed_between_the_phases_goes_on_at_the_next_call(
        large: Path, tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    with Workspace([large], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False, complete=False)
    with Workspace([large], index_path=index, watch=False) as engine:
        assert engine.store.pending_symbols() == FILES
        engine.ensure_index(progress=False)
        assert engine.store.pending_symbols() == 0
        uses = engine.search(SearchCall(query="helper_5", kind="references"))
        assert ("m5.py", 6) in {(m.path, m.line) for m in uses.matches}


def test_a_second_phase_cancelled_midway_leaves_the_rest_pending(
        large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "COMPLETE_FILES", 4)
    monkeypatch.setattr(symbol_jobs, "BATCH_BYTES", 1)  # each file parsed as it comes
    index = tmp_path / "index.sqlite"
    with Workspace([large], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False, complete=False)
        store_symbols = engine.indexer._store_symbols
        calls = 0

        def cancel_after_one_part(*args: object) -> int:
            nonlocal calls
            calls += 1
            stored = store_symbols(*args)  # type: ignore[arg-type]
            if stored:
                engine.indexer.cancelled.set()  # as closing the workspace does
            return stored

        monkeypatch.setattr(engine.indexer, "_store_symbols", cancel_after_one_part)
        engine.indexer.complete_symbols()
        left = engine.store.pending_symbols()
        assert 0 < left < FILES
        # every file still answers a search by symbol: parsed, or from its definition lines
        assert _symbols(engine, "helper_11") == [("m11.py", 9, 10)]
        assert _symbols(engine, "helper_0") == [("m0.py", 9, 10)]
    with Workspace([large], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.store.pending_symbols() == 0
        assert _symbols(engine, "helper_11") == [("m11.py", 9, 10)]


def test_an_edit_between_the_phases_is_not_overwritten_by_the_older_parse(
        large: Path, tmp_path: Path) -> None:
    with Workspace([large], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False, complete=False)
        (large / "m2.py").write_text("def renamed():\n    pass\n", encoding="utf-8")
        engine.indexer.sync([(0, "m2.py")])
        engine.complete_index(progress=False)
        assert engine.store.pending_symbols() == 0
        assert _symbols(engine, "renamed") == [("m2.py", 1, 2)]
        assert _symbols(engine, "helper_2") == []


def test_a_first_build_leaves_no_free_pages_in_the_index(large: Path, tmp_path: Path) -> None:
    # Merging the word index's segments at the second phase's end frees as many pages as
    # it keeps, with nothing after it to reuse them: the file would keep them for good.
    for n in range(40):
        (large / f"doc{n}.md").write_text(" ".join(f"word{n}x{i}" for i in range(2000)),
                                          encoding="utf-8")
    with Workspace([large], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.store.reader.execute("PRAGMA freelist_count").fetchone()[0] == 0
