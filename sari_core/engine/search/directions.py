"""Which way data goes: a query that asks for reading (loading, parsing, decoding) is not
answered by the code that writes (dumping, serialising, encoding), and the other way round.

Code pairs its readers and writers and names them with the same nouns (``represent_binary``
and ``construct_yaml_binary``; ``ChunkedReader`` and ``ChunkedWriter``), so the nouns of a
question rank both alike. A query whose words go one way only has a direction; a definition
whose name (or its file's name) goes only the other way is then the opposite of what was
asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from sari_core.engine.index.word_chunks import code_words

IN = "in"
OUT = "out"
# Words of each direction, as code and questions spell them.
_WORDS = {
    IN: frozenset((
        "read", "reads", "reader", "readers", "reading", "load", "loads", "loader", "loaders",
        "loading", "parse", "parses", "parser", "parsers", "parsing", "decode", "decodes",
        "decoder", "decoding", "receive", "receives", "receiving", "recv", "deserialize",
        "deserializer", "deserializing", "deserialise", "construct", "constructor",
        "constructing", "unmarshal")),
    OUT: frozenset((
        "write", "writes", "writer", "writers", "writing", "dump", "dumps", "dumper", "dumpers",
        "dumping", "serialize", "serializer", "serializing", "serialise", "encode", "encodes",
        "encoder", "encoding", "send", "sends", "sending", "represent", "representer",
        "representing", "emit", "emitter", "emitting", "marshal")),
}


def direction(terms: Sequence[str]) -> str | None:
    """The direction the query's words go (``IN`` or ``OUT``), if they go one way only."""
    ways = {way for way, words in _WORDS.items() if any(term in words for term in terms)}
    return ways.pop() if len(ways) == 1 else None


@lru_cache(maxsize=8192)
def goes(scope: str, path: str) -> str | None:
    """The direction a definition's name goes (its file's name when its own says none),
    if one way only."""
    for text in (scope, path.rsplit("/", 1)[-1].rsplit(".", 1)[0]):
        words = code_words(text).lower().split()
        ways = {way for way, spelled in _WORDS.items() if any(word in spelled for word in words)}
        if ways:
            return ways.pop() if len(ways) == 1 else None
    return None


def opposite(asked: str | None, scope: str, path: str) -> bool:
    """Whether a definition goes the other way from the one ``asked``."""
    if asked is None:
        return False
    way = goes(scope, path)
    return way is not None and way != asked
