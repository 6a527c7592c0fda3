"""How search by words ranks chunks: length, special methods, word forms."""

from __future__ import annotations

from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import WordHit, search_words, term_groups

# Chunks that hold none of the queries' words: they give the words their rarity.
HELPERS = "\n\n".join(f'def helper_{n}(value):\n    """Format value number {n}."""\n'
                      f'    return value + {n}\n' for n in range(8))
FILLER_LINES = "\n".join(f"        part_{n} = chunk[{n}] if len(chunk) > {n} else None"
                         for n in range(30))
FILES = {
    "helpers.py": HELPERS,
    # A one-line constant whose name holds two of the query's words, and the long function
    # that does the work.
    "uploads.py": (
        "MAX_UPLOAD_RETRIES = 5\n\n\n"
        "def send_chunks(session, chunks):\n"
        '    """Send each chunk; a failed upload is retried, up to the limit.\n\n'
        '    Each retry of a failed upload waits a little longer; a retried upload starts over.\n    """\n'
        "    for chunk in chunks:\n"
        f"{FILLER_LINES}\n"
        "        attempts = 0  # each failed upload is retried\n"
        "        while not session.put(chunk):  # the upload failed: retry it\n"
        "            attempts += 1\n"
        "            if attempts > MAX_UPLOAD_RETRIES:\n"
        '                raise IOError("upload failed")\n'),
    "report.py": (
        "class Report:\n"
        "    def __init__(self, title, rows):\n"
        "        self.title = title\n"
        "        self.rows = rows\n\n"
        "    def __str__(self):\n"
        "        return self.title\n\n\n"
        "def format_rows(report):\n"
        '    """The report\'s rows as one string, a line each."""\n'
        '    return "\\n".join(str(row) for row in report.rows)\n'),
    "files.py": (
        "class LazyFile:\n"
        '    """Opens its file on first use."""\n\n'
        "    def __init__(self, name):\n"
        "        self.name = name\n"),
}


workspace = module_workspace(FILES)


def ranked(workspace: Workspace, query: str) -> list[WordHit]:
    return search_words(workspace.store, query, 10)[0]


def test_the_long_function_doing_the_work_comes_before_a_constant_naming_it(
        workspace: Workspace) -> None:
    assert [hit.scope for hit in ranked(workspace, "retry a failed upload")][:2] == [
        "send_chunks", "MAX_UPLOAD_RETRIES"]


def test_a_special_method_s_name_is_no_match_for_a_word(workspace: Workspace) -> None:
    # "string" is spelled "str" in code, and __str__ is named "str": the protocol's name,
    # not what the method does.
    scopes = [hit.scope for hit in ranked(workspace, "the report as a string")]
    assert scopes[0] == "format_rows"
    assert scopes.index("Report.__str__") > scopes.index("Report")


def test_an_adverb_matches_the_word_it_is_made_from(workspace: Workspace) -> None:
    assert term_groups(["lazily"])[0][:2] == ("lazily", "lazy")
    assert term_groups(["safely"])[0][:2] == ("safely", "safe")
    assert term_groups(["only"]) == [("only",)]
    assert ranked(workspace, "open a file lazily")[0].scope == "LazyFile"
