"""A glued lower-case name says its words in its definition's head: ``fromtimestamp`` is
what "from a unix timestamp" asks for; an English word is not cut into nonsense."""

from __future__ import annotations

import pytest
from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.definition_heads import glued_words
from sari_core.engine.search.glued_names import glued_parts, vocabulary
from sari_core.engine.search.word_search import search_words

# Other code, so that the query's words are rare in the workspace, as they are in a real one.
HELPERS = filler_functions(12)
FILES = {
    "helpers.py": HELPERS,
    # One says what it is in its glued name; the others merely use timestamps.
    "clock/moments.py": (
        "class Moment:\n"
        "    @classmethod\n"
        "    def fromtimestamp(cls, seconds, tz=None):\n"
        '        """Build a moment for seconds since the unix epoch."""\n'
        "        return cls(seconds, tz)\n\n"
        "    def age(self, now):\n"
        "        return now - self.seconds  # seconds between two unix timestamps\n\n"
        "    def log(self, stream):\n"
        "        stream.write(f'unix timestamp {self.seconds}')\n"),
    "cli/commands.py": (
        "def multicommand(name, commands):\n"
        '    """Group several under one name."""\n'
        "    return [command(name, each) for each in commands]\n\n\n"
        "def command(name, callback):\n"
        '    """Register a callback under a name."""\n'
        "    return name, callback\n"),
}

workspace = module_workspace(FILES)


def scopes(workspace: Workspace, query: str, path: str) -> list[str]:
    hits = search_words(workspace.store, query, 10, lambda found: found == path)[0]
    return [hit.scope for hit in hits]


def test_a_glued_name_s_words_rank_its_definition_first(workspace: Workspace) -> None:
    ranked = scopes(workspace, "from a unix timestamp", "clock/moments.py")
    assert ranked[0] == "Moment.fromtimestamp"
    assert {"Moment.age", "Moment.log"} <= set(ranked)


def test_a_name_holding_a_word_does_not_pass_the_definition_named_by_it(
        workspace: Workspace) -> None:
    assert scopes(workspace, "command", "cli/commands.py")[:2] == ["command", "multicommand"]


def test_a_name_s_glued_words_are_those_it_does_not_write_apart() -> None:
    assert glued_words("Moment.fromtimestamp") == {"timestamp"}  # not the glue, "from"
    assert glued_words("utcfromtimestamp") == {"utc", "timestamp"}
    assert glued_words("command") == glued_words("float_timestamp") == frozenset()
    assert glued_words("run_multicommand") == {"multi", "command"}


@pytest.mark.parametrize(("word", "parts"), [
    ("getattr", ("get", "attr")), ("readlines", ("read", "lines")),
    ("isoformat", ("iso", "format")), ("utcoffset", ("utc", "offset")),
    ("utcfromtimestamp", ("utc", "timestamp")), ("fromtimestamp", ("timestamp",)),
    ("multicommand", ("multi", "command")),
    ("command", ()), ("dispatch", ()), ("another", ()), ("information", ()),
    ("executable", ()), ("itself", ()), ("interval", ()),
    ("Getattr", ()), ("get", ()), ("abc123def", ()),
])
def test_only_names_made_of_words_split(word: str, parts: tuple[str, ...]) -> None:
    assert glued_parts(word) == parts


def test_the_shipped_vocabulary_knows_common_parts_and_english_words() -> None:
    shipped = vocabulary()
    assert {"get", "attr", "timestamp", "format", "lines"} <= shipped.known
    # English words that would otherwise split (dis patch, pre sent, for get, in side)
    assert {"dispatch", "present", "forget", "inside"} <= shipped.whole
