"""An exception class's docstring says when it is raised, so it holds the words of the
operation that fails: it comes after that operation unless the query speaks of an error."""

from __future__ import annotations

from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import search_words

# Other code, so that the query's words are rare in the workspace, as they are in a real one.
# By its words alone the exception class is first: its docstring holds "length prefix" too.
FILES = {
    "helpers.py": filler_functions(12),
    "net/frames.py": (
        "class FrameTooLongError(ValueError):\n"
        '    """Raised when a frame read from the socket is longer than its length prefix'
        ' allows."""\n\n\n'
        "def read_frame(sock):\n"
        '    """One frame from the socket and its length."""\n'
        "    size = int(sock.recv(4))\n"
        "    return sock.recv(size)\n"),
}

workspace = module_workspace(FILES)


def test_the_operation_comes_before_the_exception_it_raises(workspace: Workspace) -> None:
    hits = search_words(workspace.store, "read a frame from the socket with a length prefix",
                        10)[0]
    assert [hit.scope for hit in hits][:2] == ["read_frame", "FrameTooLongError"]


def test_a_query_about_the_error_finds_the_exception_first(workspace: Workspace) -> None:
    hits = search_words(workspace.store,
                        "error raised when a frame from the socket is longer than its length "
                        "prefix", 10)[0]
    assert hits[0].scope == "FrameTooLongError"
