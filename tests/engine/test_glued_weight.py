"""Two of the query's words glued into a name (``readlines``: read, lines) say more than
one of them written apart in another name (``open_file``: file)."""

from __future__ import annotations

from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import search_words

# Other code, so that the query's words are rare in the workspace, as they are in a real one.
HELPERS = filler_functions(12)
FILES = {
    "helpers.py": HELPERS,
    "store/streams.py": (
        "def readlines(stream):\n"
        '    """Return them all."""\n'
        "    return stream.read().split()\n\n\n"
        "def open_file(path):\n"
        '    """Open the path."""\n'
        "    return open(path)\n"),
}

workspace = module_workspace(FILES)


def test_two_glued_words_rank_above_one_written_apart(workspace: Workspace) -> None:
    hits = search_words(workspace.store, "lines read from a file", 10)[0]
    assert [hit.scope for hit in hits] == ["readlines", "open_file"]
