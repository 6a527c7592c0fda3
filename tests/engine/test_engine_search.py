"""Search kinds, exactness against a plain scan, ignore rules, ranking and bounds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from engine_repo import FILES, IGNORED, LATIN1, scan_matches, write

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import decode
from sari_core.engine.search.search import PREVIEW_BUDGET_CHARS
from sari_core.kernel import Kernel
from sari_core.models import SearchCall


def search(workspace: Workspace, query: str, **args: object) -> list[tuple[str, int | None]]:
    result = workspace.search(SearchCall(query=query, **args))
    return [(match.path, match.line) for match in result.matches]


def plain_scan(root: Path, files: list[str], query: str, case_sensitive: bool) -> list[str]:
    """``query in text`` over every file, decoded as the engine decodes (UTF-8, else Latin-1)."""
    out = []
    for relative in files:
        text = decode((root / relative).read_bytes()).text
        if scan_matches(text, query, case_sensitive):
            out.append(relative)
    return sorted(out)


def indexed_text_files(workspace: Workspace) -> list[str]:
    return sorted(row.path for row in workspace.store.text_files())


def test_the_index_holds_exactly_the_workspace_files(shared: Workspace) -> None:
    files = indexed_text_files(shared)
    for relative in FILES:
        assert relative in files
    for relative in IGNORED:  # .gitignore, nested .gitignore, default exclusions, venvs
        assert relative not in files
    assert LATIN1 in files
    assert "data/blob.bin" not in files  # binary: listed, not searchable
    assert not any(path.startswith(("leakdir", ".git/")) or path in ("leak.txt", "alias.py")
                   for path in files)


@pytest.mark.parametrize("query", ["execute_read", "EXECUTE_READ", "helper(", "import", "ab",
                                   "x", "crème", "CRÈME", "return os.fspath(value)", "\"\"\"",
                                   "Short: ab", "not in any file at all", "STRAẞE", "ſtraße",
                                   "\u212aelvin", "kelvin", "İstanbul", "istanbul", "k", "S", "ſ", "é",
                                   "OS.FSPATH(", "\\n", "a+b|c", "[x]"])
@pytest.mark.parametrize("case_sensitive", [False, True])
def test_literal_results_agree_with_a_plain_scan(shared: Workspace, shared_repo: Path, query: str,
                                                 case_sensitive: bool) -> None:
    expected = plain_scan(shared_repo, indexed_text_files(shared), query, case_sensitive)
    call = SearchCall(query=query, case_sensitive=case_sensitive)
    assert sorted(shared.matching_files(call)) == expected
    assert shared.search(call).total == len(expected)


def test_ignored_and_excluded_files_are_not_found(shared: Workspace) -> None:
    paths = {path for path, _ in search(shared, "execute_read", limit=50)}
    assert paths == {"src/app.py", "src/other.py", "docs/notes.md"}


def test_definitions_and_exact_words_rank_first(shared: Workspace) -> None:
    result = shared.search(SearchCall(query="helper", limit=50))
    first = result.matches[0]
    assert (first.path, first.line, first.kind, first.symbol) == \
        ("src/app.py", 12, "definition", "helper")
    assert first.end_line == 13
    scores = [match.score for match in result.matches]
    assert scores == sorted(scores, reverse=True)
    test_hits = [m for m in result.matches if m.path == "src/test_app.py"]
    other_hits = [m for m in result.matches if m.path == "src/other.py"]
    assert min(m.score for m in other_hits) > max(m.score for m in test_hits)


def test_case_sensitivity(shared: Workspace) -> None:
    assert search(shared, "CLASS READER") == [("src/app.py", 4)]
    assert search(shared, "CLASS READER", case_sensitive=True) == []
    assert search(shared, "class Reader", case_sensitive=True) == [("src/app.py", 4)]


def test_short_queries_use_the_scan_fallback(shared: Workspace, shared_repo: Path) -> None:
    call = SearchCall(query="ab", limit=50)
    expected = plain_scan(shared_repo, indexed_text_files(shared), "ab", False)
    assert sorted(shared.matching_files(call)) == expected and "docs/notes.md" in expected
    assert shared.search(call).total == len(expected)


def test_case_folding_is_simple_unicode_folding(shared: Workspace, shared_repo: Path) -> None:
    assert {p for p, _ in search(shared, "KELVIN")} == {"docs/unicode.txt"}
    assert {p for p, _ in search(shared, "straße")} == {"docs/unicode.txt"}  # ẞ folds to ß
    assert search(shared, "strasse") == []  # no length-changing folds


def test_latin1_text_is_searchable(shared: Workspace) -> None:
    assert search(shared, "brûlée") == [(LATIN1, 1)]


def test_regex_search(shared: Workspace, shared_repo: Path) -> None:
    pattern = r"def \w+_read\("
    result = shared.search(SearchCall(query=pattern, kind="regex", limit=50))
    assert {(m.path, m.line) for m in result.matches} == {("src/app.py", 7),
                                                          ("src/other.py", 5)}
    rx = re.compile(r"^\s*return\b", re.MULTILINE)
    expected = sorted(p for p in indexed_text_files(shared)
                      if any(rx.search(line) for line in
                             (shared_repo / p).read_bytes().decode("latin-1").split("\n")))
    assert sorted(shared.matching_files(SearchCall(query=r"^\s*return\b", kind="regex"))) \
        == expected
    bad = shared.search
    with pytest.raises(Exception) as caught:
        bad(SearchCall(query="(unclosed", kind="regex"))
    assert getattr(caught.value, "code", None) == "INVALID_ARGS"


def test_symbol_search(shared: Workspace) -> None:
    result = shared.search(SearchCall(query="execute_read", kind="symbol"))
    assert {(m.path, m.line, m.kind) for m in result.matches} == {
        ("src/app.py", 7, "method"), ("src/other.py", 5, "method")}
    assert result.extra["total_unit"] == "definitions"
    named = shared.search(SearchCall(query="shape", kind="symbol"))
    assert [m.symbol for m in named.matches] == ["Shape"]  # makeShape only contains it
    assert named.matches[0].snippet.startswith("interface Shape") and not named.notes
    inside = shared.search(SearchCall(query="eShape", kind="symbol"))
    assert [m.symbol for m in inside.matches] == ["makeShape"]
    assert inside.notes == ["Nothing is named or starts with eShape; these names resemble it."]
    assert shared.search(SearchCall(query="shape", kind="symbol", match="fuzzy")).total == 2


def test_path_search_and_globs(shared: Workspace) -> None:
    assert search(shared, "app", kind="path")[0] == ("src/app.py", None)
    assert search(shared, "*.ts", kind="path") == [("web/types.ts", None)]
    assert {p for p, _ in search(shared, "execute_read", path_glob="*.md")} == \
        {"docs/notes.md"}
    assert {p for p, _ in search(shared, "execute_read", path_glob="src/**")} == \
        {"src/app.py", "src/other.py"}


@pytest.mark.parametrize("query", ["\x00abc", "\"\"\"", "\"", "a" * 5000, "AND OR NOT", "*",
                                   "NEAR(a b)", "^x", "\\"])
@pytest.mark.parametrize("kind", ["text", "regex", "symbol", "path"])
def test_odd_queries_never_crash(shared: Workspace, query: str, kind: str) -> None:
    from sari_core.errors import SariError

    try:
        shared.search(SearchCall(query=query, kind=kind))
    except SariError as exc:
        assert kind == "regex" and exc.code == "INVALID_ARGS"


def test_limit_and_truncation(shared: Workspace) -> None:
    result = shared.search(SearchCall(query="e", limit=2))
    assert len(result.matches) == 2 and result.truncated is True and result.total > 2


def test_previews_are_bounded(workspace: Workspace, repo: Path) -> None:
    write(repo, "wide.txt", "".join(f"needle {'w' * 2000} {n}\n" for n in range(60)))
    for n in range(20):
        write(repo, f"wide/{n}.txt", "needle " + "z" * 5000 + "\n")
    result = workspace.search(SearchCall(query="needle", limit=50))
    assert sum(len(m.snippet) for m in result.matches) <= PREVIEW_BUDGET_CHARS + 100
    assert result.truncated is True
    assert all(m.snippet.startswith("needle") for m in result.matches)


def test_search_through_the_kernel(kernel: Kernel) -> None:
    response = kernel.execute_search({"query": "renderPage"})
    assert response["ok"] and response["meta"]["index_ready"] is True
    assert response["matches"][0]["path"] == "web/index.js"
    assert response["matches"][0]["kind"] == "definition"
    refused = kernel.execute_search({"query": "x", "limit": 0})
    assert refused["ok"] is False and refused["error"]["code"] == "INVALID_ARGS"
    assert kernel.execute_search({"query": "x", "limit": 99})["ok"]  # served, at most 50


def test_a_background_build_answers_index_ready(repo: Path) -> None:
    with Workspace([repo]) as engine:
        engine.start_background_index()
        assert engine.wait_for_index(30)
        result = engine.search(SearchCall(query="renderPage"))
        assert result.index_ready is True and result.total == 1


def test_searches_before_a_background_build_finishes_say_so(repo: Path) -> None:
    with Workspace([repo]) as engine:
        engine.ready_wait_seconds = 0.05
        with engine._build_lock:  # hold the build back: the index is not ready yet
            engine.start_background_index()
            early = engine.search(SearchCall(query="renderPage"))
        assert early.index_ready is False
        assert engine.wait_for_index(30)
        late = engine.search(SearchCall(query="renderPage"))
        assert late.index_ready is True and late.total == 1


def test_several_roots(tmp_path: Path, repo: Path) -> None:
    second = tmp_path / "second"
    write(second, "lib/extra.py", "def execute_read():\n    pass\n")
    with Workspace([repo, second]) as engine:
        paths = {m.path for m in engine.search(SearchCall(query="def execute_read",
                                                          limit=50)).matches}
        assert paths == {"repo/src/app.py", "repo/src/other.py", "second/lib/extra.py"}
        from sari_core.models import ReadCall

        text = engine.read(ReadCall(mode="file", target="second/lib/extra.py")).text
        assert text.startswith("def execute_read")


def test_a_module_function_and_the_project_own_code_rank_before_methods_and_installed_code(
        tmp_path: Path) -> None:
    # Alphabetical order would put all three other files first: the ranking must not.
    write(tmp_path, "a_formatter.py", "class Formatter:\n    def dedent(self):\n        pass\n")
    write(tmp_path, "lib/site-packages/pkg/text.py", "def dedent(text):\n    return text\n")
    write(tmp_path, "b_helpers.py", "class Helper:\n    def dedent(self, text):\n        return 1\n")
    write(tmp_path, "textwrap.py", "def dedent(text):\n    return text.strip()\n")
    engine = Workspace([tmp_path])
    try:
        engine.ensure_index(progress=False)
        ranked = [path for path, _ in search(engine, "def dedent", limit=10)]
    finally:
        engine.close()
    assert ranked[0] == "textwrap.py"
    assert ranked.index("lib/site-packages/pkg/text.py") > ranked.index("textwrap.py")
    assert ranked[-1] == "lib/site-packages/pkg/text.py"


@pytest.mark.parametrize("query", ["def helper", "def helper(", "class Reader:", "app.helper",
                                   "helper"])
def test_a_symbol_query_written_as_code_finds_the_name(shared: Workspace, query: str) -> None:
    wanted = query.replace("def ", "").replace("class ", "").strip("(:").split(".")[-1]
    result = shared.search(SearchCall(query=query, kind="symbol"))
    assert result.matches and result.matches[0].symbol == wanted, query
