"""A question about code is answered with code first: docs, notes and licences that hold
its words more often come after every code hit, and still first when docs are asked for."""

from __future__ import annotations

import pytest
from indexed_files import indexed

from sari_core.arguments import parse_search
from sari_core.engine.search.word_search import is_prose

QUERY = "retry a failed upload after a timeout"
# Prose saturated with the query's words (none holds it as written), each kind of it: a
# docs page, a notes file in Org mode, a licence.
PROSE = {
    "docs/uploads.rst": "Uploads\n=======\n\n" + "".join(
        "A failed upload is retried after a timeout; retry the upload when it failed.\n"
        for _ in range(6)),
    "notes.org": "* Uploads\n" + "".join(
        "** a failed upload: retry it after a timeout; the upload is retried, the timeout kept\n"
        for _ in range(6)),
    "LICENSE": "".join(
        "Permission to retry, upload and time out is granted; a failed upload is retried"
        " after a timeout without warranty.\n" for _ in range(6)),
}
CODE = {
    "client/transfer.py": (
        "def send_again(request, attempts):\n"
        '    """Send a request again when the server did not answer in time."""\n'
        "    for _ in range(attempts):\n"
        "        if request.send():\n"
        "            return True\n"
        "    return False\n\n\n"
        "def upload(path):\n"
        "    return open(path, 'rb').read()\n"),
    "client/clock.py": "def timeout(seconds):\n    return seconds * 1000\n",
}


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    root = tmp_path_factory.mktemp("prose").resolve()
    with indexed(root, {**PROSE, **CODE}) as engine:
        return {query: [match.path for match in
                        engine.search(parse_search({"query": query})).matches]
                for query in (QUERY, f"docs on how to {QUERY}")}


def test_no_prose_file_comes_before_a_code_file_for_a_code_question(
        paths: dict[str, list[str]]) -> None:
    found = paths[QUERY]
    code = [index for index, path in enumerate(found) if not is_prose(path)]
    prose = [index for index, path in enumerate(found) if is_prose(path)]
    assert code and prose, found
    assert max(code) < min(prose), found


def test_prose_still_comes_first_when_the_query_asks_for_docs(
        paths: dict[str, list[str]]) -> None:
    assert is_prose(paths[f"docs on how to {QUERY}"][0])


@pytest.mark.parametrize("path", ["notes.org", "doc/guide.org", "LICENSE", "README.md"])
def test_notes_and_licences_are_prose(path: str) -> None:
    assert is_prose(path)


@pytest.mark.parametrize("path", ["client/transfer.py", "src/org/apache/Upload.java"])
def test_code_is_not_prose(path: str) -> None:
    assert not is_prose(path)

