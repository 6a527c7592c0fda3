"""The engine on real code at scale: the Python standard library of this interpreter."""

from __future__ import annotations

import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_repo import simple_fold

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import decode
from sari_core.models import ReadCall, SearchCall

STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
# The standard library only: packages installed into the base interpreter are not it.
EXCLUDE = ["site-packages/", "dist-packages/"]
QUERIES = ["def urlopen", "class HTTPConnection", "raise ValueError", "TODO", "json.dumps",
           "__name__ == '__main__'", "async def", "lru_cache", "zipfile", "ab", "ÿ", "self"]


@pytest.fixture(scope="module")
def stdlib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    index = tmp_path_factory.mktemp("stdlib-index") / "stdlib.sqlite"
    with Workspace([STDLIB], index_path=index, watch=False, exclude=EXCLUDE) as engine:
        stats = engine.ensure_index(progress=False)
        assert stats.files > 500 and stats.text_files > 500
        yield engine


@pytest.fixture(scope="module")
def texts(stdlib: Workspace) -> dict[str, str]:
    """Every indexed file's text, read from disk and decoded as the engine decodes."""
    return {row.path: decode((STDLIB / row.path).read_bytes()).text
            for row in stdlib.store.text_files()}


@pytest.fixture(scope="module")
def folded(texts: dict[str, str]) -> dict[str, str]:
    return {path: simple_fold(text) for path, text in texts.items()}


@pytest.mark.parametrize("query", QUERIES)
def test_literal_search_equals_a_plain_scan(stdlib: Workspace, texts: dict[str, str],
                                            folded: dict[str, str], query: str) -> None:
    for case_sensitive in (True, False):
        if case_sensitive:
            expected = sorted(path for path, text in texts.items() if query in text)
        else:
            needle = simple_fold(query)
            expected = sorted(path for path, text in folded.items() if needle in text)
        call = SearchCall(query=query, case_sensitive=case_sensitive)
        assert sorted(stdlib.matching_files(call)) == expected, (query, case_sensitive)


def test_ranking_puts_the_definition_first(stdlib: Workspace) -> None:
    result = stdlib.search(SearchCall(query="def urlopen"))
    assert result.matches[0].path == "urllib/request.py"
    assert result.matches[0].kind == "definition"
    symbol = stdlib.search(SearchCall(query="HTTPConnection", kind="symbol"))
    assert (symbol.matches[0].path, symbol.matches[0].kind) == ("http/client.py", "class")


def test_symbol_reads_in_the_stdlib(stdlib: Workspace) -> None:
    result = stdlib.read(ReadCall(mode="symbol", target="urlopen", path="urllib/request.py"))
    assert result.text.startswith("def urlopen(")
    method = stdlib.read(ReadCall(mode="symbol", target="HTTPConnection.request"))
    assert method.path == "http/client.py" and "def request(" in method.text


def test_reference_counts_of_the_stdlib(stdlib: Workspace) -> None:
    counts = stdlib.reference_counts()
    assert counts["os.py"] > 50  # os.path.join & co. are called everywhere
    assert all(count > 0 for count in counts.values())
