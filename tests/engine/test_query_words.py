"""The default search read as an agent writes: package names, words in capitals, acronyms,
and the words code uses for the same thing."""

from __future__ import annotations

import pytest
from indexed_files import indexed, module_workspace

from sari_core.arguments import parse_search
from sari_core.engine import Workspace
from sari_core.models import SearchResult

FILES = {
    "pkg/__init__.py": (
        "from pkg.splitting import Splitter\n\n\n"
        "def split(text):\n"
        '    """Each statement of text, one by one."""\n'
        "    return list(Splitter().run(text))\n"),
    "pkg/splitting.py": (
        "class Splitter:\n"
        "    def run(self, text):\n"
        "        for part in text.split(';'):\n"
        "            yield part\n"),
    "README.md": "Call pkg.split(text) to split a script.\n",
    "tests/test_split.py": "import pkg\n\n\ndef test_split():\n"
                           "    assert pkg.split('a;b') == ['a', 'b']\n",
    "pkg/grouping.py": (
        "def group_where(tokens):\n"
        '    """Wrap the tokens from WHERE up to the next keyword."""\n'
        "    return wrap(tokens, 'WHERE')\n\n\n"
        "def group_order(tokens):\n"
        '    """Group the ORDER BY clause of a statement."""\n'
        "    return wrap(tokens, 'ORDER')\n\n\n"
        "def group_limit(tokens):\n"
        '    """Group a LIMIT clause."""\n'
        "    return wrap(tokens, 'LIMIT')\n"),
    "pkg/cli.py": (
        "def main(argv):\n"
        '    """Format each file given, in place."""\n'
        "    for name in argv:\n"
        "        reformat(name)\n"),
    "pkg/commands.py": (
        "class Command:\n"
        '    """One command of the line-oriented interface."""\n\n'
        "    def run(self, line):\n"
        "        return self.interface.send(line)\n"),
    "pkg/text.py": (
        "def truncate_text(text, width):\n"
        '    """Cut text down to width characters, marking the cut."""\n'
        "    return text[:width] + '...'\n\n\n"
        "def warn_if_long(text):\n"
        '    """Warn when a text is long."""\n'
        "    return len(text) > 80\n"),
    "docs/cli.rst": "Run it from a shell: it formats the files it is given.\n",
}


workspace = module_workspace(FILES)


def default(workspace: Workspace, query: str) -> SearchResult:
    return workspace.search(parse_search({"query": query}))


def test_a_package_s_function_named_with_the_package_is_its_definition(
        workspace: Workspace) -> None:
    first = default(workspace, "pkg.split").matches[0]
    assert (first.path, first.line, first.kind) == ("pkg/__init__.py", 4, "definition")


def test_three_words_find_the_module_named_for_their_initials(workspace: Workspace) -> None:
    first = default(workspace, "command line interface for formatting files").matches[0]
    assert (first.path, first.symbol) == ("pkg/cli.py", "main")


def test_a_word_finds_code_that_spells_it_short(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    files = {"app/env.py": "def read_env(name):\n    return lookup(name)\n",
             "app/values.py": "def read_value(name):\n    return lookup(name)\n"}
    with indexed(tmp_path_factory.mktemp("short").resolve(), files) as engine:
        assert default(engine, "read from the environment").matches[0].symbol == "read_env"


def test_initials_that_are_a_file_extension_are_no_acronym(workspace: Workspace) -> None:
    from sari_core.engine.search.query_words import query_terms, term_groups

    terms = query_terms("report stale tables")
    assert ("rst",) in term_groups(terms)
    assert ("rst",) not in term_groups(terms, {"rst", "py"})


def test_an_instance_s_dotted_name_finds_its_class_s_method(tmp_path_factory: pytest.TempPathFactory
                                                            ) -> None:
    files = {
        "app/websockets.py": "class WebSocket:\n    def accept(self):\n        return 1\n",
        "app/endpoints.py": "class Endpoint:\n    def accept(self, websocket):\n"
                            "        return websocket.accept()\n",
        "docs/guide.md": "Call `websocket.accept()` first.\n",
    }
    with indexed(tmp_path_factory.mktemp("instance").resolve(), files) as engine:
        first = default(engine, "websocket.accept").matches[0]
        assert (first.path, first.line, first.kind) == ("app/websockets.py", 2, "definition")


def test_a_name_nothing_defines_shows_the_definitions_named_with_its_words(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    files = {
        "app/cookies.py": "def cookie_parser(text):\n    return dict(pair.split('=') for pair"
                          " in text.split(';'))\n\n\ndef cookie_jar():\n    return {}\n",
        "tests/test_cookies.py": "def test_last_wins():\n"
                                 "    # parse_cookie() keeps only the last cookie\n"
                                 "    assert cookie_parser('a=b;a=c') == {'a': 'c'}\n\n\n"
                                 "def test_cookie_parsing():\n"
                                 "    assert cookie_parser('a=b') == {'a': 'b'}\n",
    }
    with indexed(tmp_path_factory.mktemp("named").resolve(), files) as engine:
        result = default(engine, "parse_cookie")
        assert [match.symbol for match in result.matches[:2]][1] == "cookie_parser"
        assert result.matches[0].path == "tests/test_cookies.py"  # the literal still first
        assert result.notes == ['Nothing here defines "parse_cookie"; definitions named '
                                'with its words follow its mention.']
        shown = [match.symbol for match in result.matches]
        assert "cookie_jar" not in shown and "test_cookie_parsing" not in shown
        # a prefix of the name: its line is a mention and the definition, shown once
        lines = [(match.path, match.line) for match in default(engine, "cookie_pars").matches]
        assert lines.count(("app/cookies.py", 1)) == 1


@pytest.mark.parametrize("test_file", ["src/redirect.test.js", "src/redirect.spec.ts",
                                       "src/RedirectTest.java", "spec/redirect_spec.rb"])
def test_tests_named_as_other_languages_name_them_come_after_the_code(
        tmp_path_factory: pytest.TempPathFactory, test_file: str) -> None:
    code = ("function followRedirects(response) {\n"
            "  // follow each redirect of the response\n"
            "  while (response.redirect) { response = response.next; }\n"
            "  return response;\n}\n")
    tests = "".join(f"function testRedirectFollowed{n}() {{\n"
                    f"  // the redirects are followed: redirect {n} followed\n"
                    f"  followRedirects(redirectResponse({n}));\n}}\n" for n in range(4))
    files = {"src/redirect.js": code, test_file: tests}
    with indexed(tmp_path_factory.mktemp("tests").resolve(), files) as engine:
        assert default(engine, "where are redirects followed").matches[0].path == \
            "src/redirect.js"


@pytest.mark.parametrize("query, code", [
    ("reload the server when a source file changes", "app/reloader.py"),
    ("compatible release operator", "app/specifiers.py"),
    ("validate a license expression", "app/licenses.py"),
])
def test_a_word_code_uses_as_often_as_docs_does_not_ask_for_docs(
        tmp_path_factory: pytest.TempPathFactory, query: str, code: str) -> None:
    # No text holds a query as written: the words are ranked, not a literal.
    files = {
        "app/reloader.py": "def reload_on_change(server, paths):\n"
                           '    """Restart the server: a source file of it changes."""\n'
                           "    return server.reload(paths)\n",
        "app/specifiers.py": "def compare_compatible(version, spec):\n"
                             '    """The operator of a compatible release: ~=."""\n'
                             "    return version.release[:-1] == spec.release[:-1]\n",
        "app/licenses.py": "def validate_license_expression(text):\n"
                           '    """Validate the expression of a license."""\n'
                           "    return text.upper()\n",
        "docs/changes.rst": "Changes\n=======\n\n" + "".join(
            f"* {n}: the server reloads, a source file changes; the operator of a"
            " compatible release; each license expression validated.\n" for n in range(2)),
        "LICENSE": "".join("Permission to reload, change and release the source is granted;"
                           " the expression of this license is validated when a"
                           " source file changes, by the operator of a compatible release.\n"
                           for _ in range(2)),
    }
    with indexed(tmp_path_factory.mktemp("docwords").resolve(), files) as engine:
        assert default(engine, query).matches[0].path == code


def test_a_query_naming_documentation_still_finds_prose_first(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    files = {
        "app/reloader.py": "def reload_on_change(server, paths):\n"
                           '    """Reload the server when a source file changes."""\n'
                           "    return server.restart(paths)\n",
        "docs/reloading.rst": "Reloading\n=========\n\nThe server reloads when a source"
                              " file changes.\n",
    }
    with indexed(tmp_path_factory.mktemp("docs").resolve(), files) as engine:
        assert default(engine, "docs on reloading the server").matches[0].path == \
            "docs/reloading.rst"
        assert default(engine, "release notes on reloading").matches[0].path == \
            "docs/reloading.rst"
