"""A definition's head (signature, docstring summary, comment above) outranks its body."""

from __future__ import annotations

import pytest
from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search import word_search
from sari_core.engine.search.definition_heads import head, same_word
from sari_core.engine.search.word_search import search_words

HELPERS = filler_functions(8)
FILES = {
    "helpers.py": HELPERS,
    # Both hold the query's words; one says so at its head, the other only uses them.
    "tokens.py": (
        "def verify(value, key):\n"
        '    """Compare a signed token with its expected signature."""\n'
        "    expected = key.sign(value.payload)\n"
        "    return expected == value.mark\n\n\n"
        "def handle(request, app):\n"
        "    payload = request.body\n"
        "    token = request.headers.get('token')  # a signed token\n"
        "    log('compare the signature of the signed token', token)\n"
        "    log('signature compared: the token is signed', token)\n"
        "    return app(payload)\n"),
    # Both hold the words once in their bodies; one's docstring says them, the other's
    # parameters only name them.
    "uploads.py": (
        "def send_later(upload, failed, retry):\n"
        "    queue.put(upload)\n\n\n"
        "def again(item):\n"
        '    """Retry a failed upload."""\n'
        "    queue.put(item)\n"),
    # A constant named with the words, and the function that says all three.
    "limits.py": (
        "def wait(attempt):\n"
        '    """Pause before the next upload retry: longer each time."""\n'
        "    sleep(attempt * 2)\n\n\n"
        "UPLOAD_RETRY_PAUSE = 5\n"),
    "tests/test_uploads.py": (
        "def test_retry_failed_upload():\n"
        "    upload = failed_upload()  # a failed upload, to retry\n"
        "    assert again(upload) is None  # the retry of a failed upload\n"),
    "widget.js": (
        "// Compare a signed token with its expected signature.\n"
        "function verify(token, key) {\n"
        "  return key.signature(token.payload) === token.mark;\n"
        "}\n\n"
        "function handle(request, app) {\n"
        "  const token = request.headers.token;\n"
        "  log('compare the signature of the signed token', token);\n"
        "  return app(request.body);\n"
        "}\n"),
}


workspace = module_workspace(FILES)


def test_a_definition_whose_docstring_says_it_comes_before_one_that_uses_the_words(
        workspace: Workspace) -> None:
    hits = search_words(workspace.store, "compare the signature of a signed token", 10,
                        lambda path: path == "tokens.py")[0]
    assert [hit.scope for hit in hits][:2] == ["verify", "handle"]


def test_a_comment_right_above_a_definition_is_its_head(workspace: Workspace) -> None:
    hits = search_words(workspace.store, "compare the signature of a signed token", 10,
                        lambda path: path == "widget.js")[0]
    assert [hit.scope for hit in hits][:2] == ["verify", "handle"]


def test_the_head_is_the_signature_and_the_docstring_s_summary_line() -> None:
    lines = ["# unrelated", "", "# Parse a header.", "def parse(", "    text,",
             "    strict=False,", "):", '    """', "    Split the header into fields.", "",
             "    Longer words about tokens.", '    """', "    return text.split()"]
    found = head(lines, 4, 13)
    assert found.said == ("# Parse a header.", '    """', "    Split the header into fields.")
    assert found.signature == tuple(lines[3:7])
    assert {"parse", "split", "header", "fields"} <= found.said_words("parse")
    assert "tokens" not in found.said_words("parse") | found.signature_words()
    assert "strict" in found.signature_words() - found.said_words("parse")
    one_line = ["def f(x):", '    """Return x twice."""', "    return 2 * x  # twice x"]
    assert head(one_line, 1, 3).said == (one_line[1],)
    braces = ["function f(x) {", "  return x; // x", "}"]
    assert head(braces, 1, 3) == head(braces, 1, 3).__class__((), (braces[0],))


def test_a_word_only_in_the_signature_counts_less_than_one_the_docstring_says(
        workspace: Workspace) -> None:
    hits = search_words(workspace.store, "retry a failed upload", 10,
                        lambda path: path == "uploads.py")[0]
    assert [hit.scope for hit in hits][:2] == ["again", "send_later"]


def test_a_constant_s_name_is_not_counted_again_as_its_head(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    def scores() -> dict[str, float]:
        return {hit.scope: hit.score for hit in search_words(
            workspace.store, "pause between upload retries", 10,
            lambda path: path == "limits.py")[0]}

    with_heads = scores()
    monkeypatch.setattr(word_search, "HEAD", 0.0)
    without = scores()
    assert with_heads["UPLOAD_RETRY_PAUSE"] == without["UPLOAD_RETRY_PAUSE"]
    assert with_heads["wait"] > without["wait"]


def test_a_head_s_word_counts_in_any_of_its_forms_but_not_as_another_word() -> None:
    for word, other in (("formatting", "format"), ("files", "file"), ("retries", "retry"),
                        ("parsing", "parse"), ("redirects", "redirect")):
        assert same_word(word, other) and same_word(other, word)
    for word, other in (("form", "format"), ("line", "linear"), ("set", "settle")):
        assert not same_word(word, other)


def test_a_test_s_head_counts_only_when_tests_are_asked_for(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    def scores(query: str) -> dict[str, float]:
        return {hit.scope: hit.score for hit in search_words(
            workspace.store, query, 10, lambda path: path == "tests/test_uploads.py")[0]}

    with_heads = scores("retry a failed upload"), scores("test retry a failed upload")
    monkeypatch.setattr(word_search, "HEAD", 0.0)
    without = scores("retry a failed upload"), scores("test retry a failed upload")
    name = "test_retry_failed_upload"
    assert with_heads[0][name] == without[0][name]  # its name says what it checks
    assert with_heads[1][name] > without[1][name]  # tests asked for: it says what they are
