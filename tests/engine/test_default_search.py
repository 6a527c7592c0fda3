"""The default search (no ``kind``): names, dotted names, code, regexes and words."""

from __future__ import annotations

from pathlib import Path

import pytest
from indexed_files import module_workspace

from sari_core.arguments import parse_search
from sari_core.engine import Workspace
from sari_core.engine.index.word_index import chunks, code_words
from sari_core.engine.search.query_kinds import classify
from sari_core.engine.search.word_search import query_terms
from sari_core.models import SearchCall, SearchResult

FILES = {
    "CHANGES.rst": "Version 2\n\nRedirects are followed again; redirect loops are caught.\n"
                   "Followed redirects keep their history.\n",
    "PKG-INFO": "Name: pkg\nSummary: follows redirects\n",
    "src/pkg/sessions.py": (
        "class Session:\n"
        "    def send(self, request):\n"
        "        return self.adapter.send(request)\n"
        "\n"
        "    def resolve_redirects(self, response):\n"
        "        \"\"\"Receive a response and follow its redirects, yielding each.\"\"\"\n"
        "        while response.is_redirect:\n"
        "            response = self.send(response.next)\n"
        "            yield response\n"
        "\n"
        "\n"
        "class Adapter:\n"
        "    def send(self, request):\n"
        "        return request\n"),
    "src/pkg/options.py": (
        "import os\n"
        "\n"
        "\n"
        "def value_from_envvar(name):\n"
        "    \"\"\"The option's value read from its environment variable.\"\"\"\n"
        "    return os.environ.get(name)\n"
        "\n"
        "\n"
        "def parseHTTPHeader(line):\n"
        "    return line.split(':', 1)\n"),
    "examples/redirects.py": "def main(session):\n"
                             "    # where the redirects are followed\n"
                             "    print(session.redirects_followed)\n",
    "tests/test_sessions.py": "def test_redirects_are_followed():\n"
                              "    assert follow_redirects() is not None\n",
}


workspace = module_workspace(FILES)


def default(workspace: Workspace, query: str, **args: object) -> SearchResult:
    return workspace.search(parse_search({"query": query, **args}))


def where(result: SearchResult) -> list[tuple[str, int | None]]:
    return [(match.path, match.line) for match in result.matches]


@pytest.mark.parametrize(("query", "kind"), [
    ("resolve_redirects", "identifier"), ("HTTPAdapter", "identifier"),
    ("Session.send", "dotted"), ("requests.utils.super_len", "dotted"), ("Foo::bar", "dotted"),
    ("def \\w+_redirect", "regex"), ("foo.*bar", "regex"), ("^import os", "regex"),
    ("allow_redirects=False", "code"), ("get_close_matches(opt", "code"),
    ("def helper", "code"), ("x = 'a'", "code"),
    ("where are redirects followed", "words"), ("redirect limit", "words"),
    ("where is a parameter's default value computed", "words"),
    ("raise an error for 4xx and 5xx status codes", "words"),
])
def test_a_query_is_classified_by_what_it_looks_like(query: str, kind: str) -> None:
    assert classify(query) == kind


def test_code_words_split_case_changes_and_the_tokenizer_does_the_rest() -> None:
    assert code_words("parseHTTPHeader(self.max_redirects)") == \
        "parse HTTP Header self max redirects"
    assert query_terms("where are the redirects followed?") == ["redirects", "followed"]


def test_a_definition_chunk_holds_its_own_lines_not_its_methods() -> None:
    text = FILES["src/pkg/sessions.py"]
    rows = chunks(text, [("Session", "class", 1, 9), ("send", "method", 2, 3),
                         ("resolve_redirects", "method", 5, 9), ("Adapter", "class", 12, 14),
                         ("send", "method", 13, 14)])
    by_scope = {scope: body for _, _, scope, _, _, body in rows}
    assert by_scope["Session"] == "class Session"
    assert "follow its redirects" in by_scope["Session.resolve_redirects"]


def test_words_find_the_definition_before_changelogs_tests_and_examples(
        workspace: Workspace) -> None:
    result = default(workspace, "where are redirects followed")
    first = result.matches[0]
    assert (first.path, first.line, first.kind) == ("src/pkg/sessions.py", 5, "definition")
    assert first.symbol == "Session.resolve_redirects"
    paths = [match.path for match in result.matches]
    assert paths.index("CHANGES.rst") > 0 and paths.index("PKG-INFO") > 0
    assert result.notes == ['No file contains "where are redirects followed" as written; '
                            "these are the best matches of its words."]


def test_a_query_asking_for_docs_gets_them_first(workspace: Workspace) -> None:
    assert default(workspace, "changelog redirects followed").matches[0].path == "CHANGES.rst"


def test_an_exact_literal_wins_over_word_matches(workspace: Workspace) -> None:
    result = default(workspace, "follow its redirects")
    assert where(result)[0] == ("src/pkg/sessions.py", 6) and not result.notes


def test_words_of_camel_and_snake_names_match_as_words(workspace: Workspace) -> None:
    assert default(workspace, "parse http header").matches[0].symbol == "parseHTTPHeader"
    assert default(workspace, "read value from environment variable"
                   ).matches[0].symbol == "value_from_envvar"


def test_a_dotted_name_finds_the_definition_in_that_class(workspace: Workspace) -> None:
    result = default(workspace, "Session.send")
    assert where(result)[0] == ("src/pkg/sessions.py", 2)
    assert ("src/pkg/sessions.py", 13) not in where(result)  # Adapter.send is another symbol
    assert where(default(workspace, "pkg.options.value_from_envvar"))[0] == \
        ("src/pkg/options.py", 4)


def test_code_with_no_literal_hit_is_answered_by_its_words_and_says_so(
        workspace: Workspace) -> None:
    result = default(workspace, "os.environ.get(option_name)")
    assert result.matches and result.matches[0].path == "src/pkg/options.py"
    assert "as written" in result.notes[0]


def test_a_regex_looking_query_with_no_literal_hit_runs_as_a_regex(workspace: Workspace
                                                                   ) -> None:
    result = default(workspace, "def \\w+_redirects")
    assert where(result) == [("src/pkg/sessions.py", 5), ("tests/test_sessions.py", 1)]
    assert "as a regex" in result.notes[0]


def test_an_explicit_text_kind_stays_literal(workspace: Workspace) -> None:
    assert default(workspace, "where are redirects followed", kind="text").matches == []
    assert workspace.search(SearchCall(query="where are redirects followed")).matches == []
    assert default(workspace, "where are redirects followed", case_sensitive=True).matches == []


def test_the_word_index_follows_a_changed_file(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def fetch_weather():\n    return 'sunny'\n",
                                   encoding="utf-8")
    (tmp_path / "notes.md").write_text("The weather forecast.\n", encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert default(engine, "weather forecast fetch").matches
        (tmp_path / "a.py").write_text("def download_report():\n    return 1\n",
                                       encoding="utf-8")
        (tmp_path / "notes.md").unlink()
        engine.indexer.sync([(0, "a.py"), (0, "notes.md")])
        assert default(engine, "weather forecast fetch").matches == []
        assert default(engine, "report download").matches[0].symbol == "download_report"
        rows = engine.store.reader.execute("SELECT count(*) FROM word_chunks").fetchone()[0]
        indexed = engine.store.reader.execute("SELECT count(*) FROM words").fetchone()[0]
        assert rows == indexed == 1


def test_the_project_s_code_comes_before_the_same_code_in_examples(tmp_path: Path) -> None:
    code = "def parse_config_file(path):\n    return open(path).read()\n"
    for folder in ("examples", "src"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "config.py").write_text(code, encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert default(engine, "parse the config file").matches[0].path == "src/config.py"
