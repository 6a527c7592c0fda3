"""A build that parses on demand: its second phase cuts word chunks along the definition
lines, and a file is parsed by the first query that needs its references or its outline.
Every navigation answer is the eager build's; the files no query needed stay unparsed."""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from indexed_files import large_tree, reader_modules

from sari_core.engine import Workspace
from sari_core.engine.search import work_budget
from sari_core.engine.workspace import UNPARSED_NOTE, WORDS_PENDING_NOTE
from sari_core.errors import SariError
from sari_core.models import ReadCall, SearchCall

FILES = 12  # more than the patched BULK_FILES: a first build of a large tree


def _tree(root: Path) -> None:
    reader_modules(root, FILES)
    (root / "use.py").write_text(
        "from m3 import Reader3, helper_3\n\n\nclass Local(Reader3):\n"
        "    def run(self):\n        return helper_3('x') + self.read_all('y')\n",
        encoding="utf-8")
    (root / "item.py").write_text(
        "class Item:\n    @property\n    def label(self):\n        return 'x'\n\n\n"
        "def show(item: Item):\n    return item.label + Item().label\n", encoding="utf-8")


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return large_tree(monkeypatch, tmp_path, _tree)


def _built(root: Path, index: Path, parse: str) -> Workspace:
    engine = Workspace([root], index_path=index, watch=False, parse=parse)
    engine.ensure_index(progress=False)
    return engine


def _answer(engine: Workspace, call: SearchCall) -> list[tuple[str, int | None, str | None]]:
    return [(m.path, m.line, m.kind) for m in engine.search(call).matches]


def _deferred(engine: Workspace) -> set[str]:
    ids = {file_id for file_id, _, _ in engine.store.deferred_parses()}
    return {row.path for row in engine.store.text_files() if row.id in ids}


NAVIGATION = [SearchCall(query="helper_3", kind="references"),
              SearchCall(query="helper_3", kind="callers"),
              SearchCall(query="Reader3", kind="implementations"),
              SearchCall(query="read_all", kind="callers"),
              SearchCall(query="Reader3.read_all", kind="references"),
              SearchCall(query="helper_", kind="callers", match="prefix")]


def test_navigation_answers_as_the_eager_build_and_parses_only_what_it_needs(
        large: Path, tmp_path: Path) -> None:
    with _built(large, tmp_path / "eager.sqlite", "eager") as eager, \
            _built(large, tmp_path / "lazy.sqlite", "on-demand") as lazy:
        assert _deferred(eager) == set()
        assert _deferred(lazy) == {f"m{n}.py" for n in range(FILES)} | {"use.py", "item.py"}
        assert lazy.store.pending_symbols() == 0  # the build is complete: nothing pending

        # the word index holds the source files already (cut along their definition lines)
        words = lazy.search(SearchCall(query="where are redirects followed", literal=False))
        assert WORDS_PENDING_NOTE not in words.notes
        assert {m.path for m in words.matches} >= {"m0.py", "m5.py"}

        first = _answer(lazy, NAVIGATION[0])
        assert first == _answer(eager, NAVIGATION[0])
        assert ("use.py", 6, "reference") in first
        # the files holding the name were parsed; the others were not
        assert _deferred(lazy) == {f"m{n}.py" for n in range(FILES) if n != 3} | {"item.py"}
        for call in NAVIGATION[1:]:
            assert _answer(lazy, call) == _answer(eager, call), call
        # a parse keeps the file's word chunks: a search by words answers as before
        again = lazy.search(SearchCall(query="where are redirects followed", literal=False))
        assert [(m.path, m.line) for m in again.matches] == [
            (m.path, m.line) for m in words.matches]


def test_an_outline_or_a_symbol_read_parses_its_file(large: Path, tmp_path: Path) -> None:
    with _built(large, tmp_path / "eager.sqlite", "eager") as eager, \
            _built(large, tmp_path / "lazy.sqlite", "on-demand") as lazy:
        outline = ReadCall(target="use.py", mode="outline")
        assert lazy.read(outline).text == eager.read(outline).text
        assert "use.py" not in _deferred(lazy)
        symbol = ReadCall(mode="symbol", target="Reader7.read_all", path="m7.py")
        assert lazy.read(symbol).text == eager.read(symbol).text
        assert "m7.py" not in _deferred(lazy)
        assert "m8.py" in _deferred(lazy)


def test_a_symbol_search_says_unparsed_files_answer_from_definition_lines(
        large: Path, tmp_path: Path) -> None:
    with _built(large, tmp_path / "lazy.sqlite", "on-demand") as lazy:
        found = lazy.search(SearchCall(query="helper_4", kind="symbol", match="exact"))
        assert [(m.path, m.line, m.end_line) for m in found.matches] == [("m4.py", 9, 10)]
        assert UNPARSED_NOTE in found.notes
        assert found.extra["symbols"] == "definition lines where not parsed"
        lazy.indexer.parse_deferred(None)  # every file parsed: the note goes
        again = lazy.search(SearchCall(query="helper_4", kind="symbol", match="exact"))
        assert UNPARSED_NOTE not in again.notes
        assert [(m.path, m.line) for m in again.matches] == [("m4.py", 9)]


def test_a_deferred_file_edited_or_deleted_keeps_the_index_whole(large: Path,
                                                                  tmp_path: Path) -> None:
    with _built(large, tmp_path / "lazy.sqlite", "on-demand") as lazy:
        for name in ("helper_9", "helper_3"):  # m9.py and m3.py parsed, chunks kept
            lazy.search(SearchCall(query=name, kind="references"))
        assert not {"m9.py", "m3.py"} & _deferred(lazy)
        (large / "m2.py").write_text("def fetch_remote_catalogue(url):\n    return url\n",
                                     encoding="utf-8")
        (large / "m9.py").unlink()
        (large / "m3.py").write_text("def send_the_invoice(order):\n    return order\n",
                                     encoding="utf-8")
        lazy.indexer.sync([(0, "m2.py"), (0, "m9.py"), (0, "m3.py")])
        assert lazy.store.get_meta("damaged") is None  # its chunks were taken out in step
        assert "m2.py" not in _deferred(lazy)  # an edited file is parsed at once
        words = lazy.search(SearchCall(query="fetch the remote catalogue", literal=False))
        assert words.matches and words.matches[0].path == "m2.py"
        assert not lazy.search(SearchCall(query="helper_9", kind="symbol", match="exact")).matches
        invoice = lazy.search(SearchCall(query="send the invoice", literal=False))
        assert invoice.matches and invoice.matches[0].path == "m3.py"


def test_a_killed_second_phase_goes_on_in_the_same_mode(large: Path, tmp_path: Path) -> None:
    index = tmp_path / "lazy.sqlite"
    with Workspace([large], index_path=index, watch=False, parse="on-demand") as lazy:
        lazy.ensure_index(progress=False, complete=False)
        assert lazy.store.pending_symbols() == FILES + 2
    with Workspace([large], index_path=index, watch=False, parse="on-demand") as lazy:
        lazy.ensure_index(progress=False)
        assert lazy.store.pending_symbols() == 0
        assert len(_deferred(lazy)) == FILES + 2


def test_an_unknown_parse_mode_is_refused_with_a_hint(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PARSE", "lazy")
    with pytest.raises(SariError) as refused:
        Workspace([tmp_path], index_path=tmp_path / "i.sqlite", watch=False)
    assert "on-demand" in refused.value.hint


def test_a_deferred_parse_is_not_charged_to_the_search_deadline(
        large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _built(large, tmp_path / "eager.sqlite", "eager") as eager, \
            _built(large, tmp_path / "lazy.sqlite", "on-demand") as lazy:
        parse = lazy.indexer.parse_deferred

        def slow_parse(file_ids: object) -> int:
            time.sleep(0.3)  # longer than the whole deadline below
            return parse(file_ids)  # type: ignore[arg-type]

        bounded = work_budget.bounded

        def short(seconds: float = 0.2, scan_bytes: int = work_budget.SEARCH_SCAN_BYTES
                  ) -> AbstractContextManager[work_budget.WorkBudget]:
            return bounded(0.2, scan_bytes)

        monkeypatch.setattr(lazy.indexer, "parse_deferred", slow_parse)
        monkeypatch.setattr(work_budget, "bounded", short)
        call = SearchCall(query="Item.label", kind="callers")
        answer = lazy.search(call)
        assert not any(note.startswith("Partial") for note in answer.notes)
        assert [(m.path, m.line) for m in answer.matches] == [
            (m.path, m.line) for m in eager.search(call).matches]
