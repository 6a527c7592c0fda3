"""A class's member that holds the query's words comes before the class holding it."""

from __future__ import annotations

from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import search_words

# Chunks that hold none of the query's words: they give the words their rarity.
HELPERS = filler_functions(8)
FILES = {
    "helpers.py": HELPERS,
    # The class's chunk holds every member's words; the method that does what is asked
    # holds most of them too.
    "pools.py": (
        "class RoundRobinPool:\n"
        '    """Connection pool that hands out its connections in turn."""\n\n'
        "    def __init__(self, connections):\n"
        "        self.connections = list(connections)\n"
        "        self.turn = 0\n\n"
        "    def take(self):\n"
        '        """Hand out the next connection in turn."""\n'
        "        connection = self.connections[self.turn]\n"
        "        self.turn = (self.turn + 1) % len(self.connections)\n"
        "        return connection\n\n"
        "    def close(self):\n"
        "        for connection in self.connections:\n"
        "            connection.close()\n\n"
        "    def __len__(self):\n"
        "        return len(self.connections)\n"),
}

workspace = module_workspace(FILES)


def scopes(workspace: Workspace, query: str) -> list[str]:
    return [hit.scope for hit in search_words(workspace.store, query, 10)[0]]


def test_the_method_holding_the_words_comes_before_its_class(workspace: Workspace) -> None:
    found = scopes(workspace, "give out the pool's connections one after another")
    assert found[:2] == ["RoundRobinPool.take", "RoundRobinPool"]


def test_a_class_named_for_the_query_stays_above_its_members(workspace: Workspace) -> None:
    found = scopes(workspace, "a round robin pool of connections")
    assert found[0] == "RoundRobinPool"
    assert "RoundRobinPool.take" in found
