"""What searches keep between them (engine.index.index_memo) is never older than the index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sari_core.arguments import parse_search
from sari_core.engine import Workspace
from sari_core.engine.index.index_memo import LINES_FILES, file_lines, memo_for, remembered

PAGES = (
    "def fetch_page(url):\n"
    '    """Fetch one page over the network."""\n'
    "    return get(url)\n"
    "\n"
    "\n"
    "def parse_page(text):\n"
    '    """Parse a page into its links."""\n'
    "    return text.split()\n")
# The same file after an edit: the fetch now retries, in its docstring and its code.
PAGES_EDITED = PAGES.replace(
    'def fetch_page(url):\n    """Fetch one page over the network."""\n    return get(url)\n',
    'def fetch_page(url, retries=3):\n'
    '    """Fetch one page over the network, retried when the fetch fails."""\n'
    "    return retry(get, url, retries)  # a failed fetch is retried\n").replace(
    "parse_page", "parse_links")  # and a definition renamed
OTHERS = {f"mod_{n}.py": f"def helper_{n}(value):\n    return value + {n}\n" for n in range(6)}


def build(root: Path, pages: str) -> Workspace:
    for name, text in {"pages.py": pages, **OTHERS}.items():
        (root / name).write_text(text, encoding="utf-8")
    workspace = Workspace([root], index_path=root.parent / f"{root.name}.sqlite", watch=False)
    workspace.ensure_index(progress=False)
    return workspace


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "0")  # a change on disk is seen by the next call
    (tmp_path / "tree").mkdir()
    engine = build(tmp_path / "tree", PAGES)
    try:
        yield engine
    finally:
        engine.close()


def answer(workspace: Workspace, query: str) -> list[tuple[object, ...]]:
    result = workspace.search(parse_search({"query": query}))
    return [(match.path, match.line, match.snippet, match.score, match.symbol, match.scope,
             match.context)
            for match in result.matches]


def test_a_value_is_computed_once_per_index_version(workspace: Workspace) -> None:
    store = workspace.store
    computed: list[int] = []

    def compute() -> int:
        computed.append(len(computed) + 1)
        return computed[-1]

    assert remembered(memo_for(store, store.reader), "probe", "key", compute, 8) == 1
    assert remembered(memo_for(store, store.reader), "probe", "key", compute, 8) == 1
    with store.transaction() as conn:  # another connection commits: a new version
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', '1')")
    assert remembered(memo_for(store, store.reader), "probe", "key", compute, 8) == 2


def test_the_memo_keeps_at_most_its_bound_and_what_it_is_told_to(
        workspace: Workspace) -> None:
    store = workspace.store
    memo = memo_for(store, store.reader)
    for key in range(5):
        remembered(memo, "bounded", key, lambda key=key: key, 3)
    assert list(memo.kinds["bounded"]) == [2, 3, 4]
    remembered(memo, "weighed", "big", lambda: "x" * 11, 10, len)  # heavier than the bound
    for key in "abc":
        remembered(memo, "weighed", key, lambda: "x" * 4, 10, len)
    assert list(memo.kinds["weighed"]) == ["b", "c"]  # 12 > 10: the oldest went
    ids = [row.id for row in store.text_files()]
    lines = file_lines(store, ids)
    assert lines[ids[0]] == store.text_of(ids[0]).split("\n")  # type: ignore[union-attr]
    assert len(memo_for(store, store.reader).kinds["lines"]) == min(len(ids), LINES_FILES)


def test_words_answered_after_an_edit_are_those_of_a_fresh_index(
        workspace: Workspace, tmp_path: Path) -> None:
    query = "retry a failed fetch of a page"
    before = answer(workspace, query)  # fills the memo: holders, lengths, lines
    assert before and before[0][0] == "pages.py"
    (workspace.roots[0] / "pages.py").write_text(PAGES_EDITED, encoding="utf-8")
    after = answer(workspace, query)
    (tmp_path / "fresh").mkdir()
    fresh = build(tmp_path / "fresh", PAGES_EDITED)
    try:
        assert after == answer(fresh, query)
    finally:
        fresh.close()
    assert after != before
    assert after[0][:3] == ("pages.py", 1, "def fetch_page(url, retries=3):")
    assert "parse_links" in [match[4] for match in after]


def test_a_chunk_kept_between_searches_is_read_again_after_its_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One file: its chunks' ids are taken again when it is indexed anew, so a chunk's row
    # kept from before (its lines, its definition's name) would answer for the new one.
    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "0")
    root = tmp_path / "one"
    root.mkdir()
    (root / "pages.py").write_text(PAGES, encoding="utf-8")
    workspace = Workspace([root], index_path=tmp_path / "one.sqlite", watch=False)
    workspace.ensure_index(progress=False)
    query = "links parsed from pages"  # not written as such: answered by its words
    try:
        before = answer(workspace, query)
        assert before[0][:2] == ("pages.py", 6)
        assert before[0][4] == "parse_page"
        edited = "import os\n\n\n" + PAGES.replace("parse_page", "parse_html_page")
        (root / "pages.py").write_text(edited, encoding="utf-8")
        after = answer(workspace, query)
    finally:
        workspace.close()
    assert after[0][:2] == ("pages.py", 9)
    assert after[0][4] == "parse_html_page"


def test_a_word_no_chunk_held_is_searched_again_once_a_file_holds_it(
        workspace: Workspace) -> None:
    # The word search leaves out of its query the words no chunk holds, as the memo says:
    # a file written since must be found by them.
    query = "zebra crossing lights"
    assert answer(workspace, query) == []
    (workspace.roots[0] / "roads.py").write_text(
        'def zebra_crossing(lights):\n    """Turn the lights of a zebra crossing."""\n'
        "    return lights\n", encoding="utf-8")
    after = answer(workspace, query)
    assert after and after[0][:2] == ("roads.py", 1)
