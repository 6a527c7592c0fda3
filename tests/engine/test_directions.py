"""A query that asks which way data goes (loading, dumping; reading, writing) is answered by
the code going that way, not by its counterpart named with the same nouns."""

from __future__ import annotations

import pytest
from indexed_files import indexed

from sari_core.arguments import parse_search
from sari_core.engine.search.directions import IN, OUT, direction

FILES = {
    "lib/representer.py": (
        "class Representer:\n"
        "    def represent_binary(self, data):\n"
        '        """A binary scalar of bytes as base64 text, with the binary tag."""\n'
        "        text = base64.encodebytes(data)\n"
        "        return self.scalar('binary', text)\n"),
    "lib/constructor.py": (
        "class Constructor:\n"
        "    def construct_binary(self, node):\n"
        '        """The bytes of a binary scalar from its base64 text."""\n'
        "        return base64.decodebytes(node.value)\n"),
    "net/readers.py": (
        "class ChunkedReader:\n"
        '    """Chunks of a body, read one by one."""\n\n'
        "    def next_chunk(self, buffer):\n"
        "        return buffer.take()\n"),
    "net/writers.py": (
        "class ChunkedWriter:\n"
        '    """Each chunk of a body with its length, chunk after chunk of the body."""\n\n'
        "    def put_chunk(self, data):\n"
        "        return data\n"),
}


@pytest.mark.parametrize("query, first", [
    ("base64 binary scalar when loading", "lib/constructor.py"),
    ("decode a base64 binary scalar", "lib/constructor.py"),
    ("read a body in chunks", "net/readers.py"),
])
def test_the_code_going_the_way_asked_comes_first(tmp_path_factory: pytest.TempPathFactory,
                                                   query: str, first: str) -> None:
    with indexed(tmp_path_factory.mktemp("ways").resolve(), FILES) as engine:
        assert engine.search(parse_search({"query": query})).matches[0].path == first


def test_a_query_going_both_ways_or_none_has_no_direction() -> None:
    assert direction(["load", "binary"]) == IN
    assert direction(["dumping", "floats"]) == OUT
    assert direction(["read", "write", "lock"]) is None
    assert direction(["binary", "scalar"]) is None
