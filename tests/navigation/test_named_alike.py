"""A definition gives the same answer however it is named: bare name, dotted, path:line."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from indexed_files import indexed

from sari_core.engine import Workspace
from sari_core.models import SearchCall, SearchResult

FILES = {
    "pkg/store.py": (
        "import io\n"                                      # 1
        "\n"                                               # 2
        "\n"                                               # 3
        "class Store:\n"                                   # 4
        "    def flush(self):\n"                           # 5
        "        return 1\n"                               # 6
        "\n"                                               # 7
        "\n"                                               # 8
        "def save(store: Store, out: io.StringIO):\n"      # 9
        "    store.flush()\n"                              # 10
        "    out.flush()\n"),                              # 11
    "pkg/wire.py": (
        "import socket\n"                                  # 1
        "\n"                                               # 2
        "\n"                                               # 3
        "class Session:\n"                                 # 4
        "    def send(self, data):\n"                      # 5
        "        return data\n"                            # 6
        "\n"                                               # 7
        "\n"                                               # 8
        "class Adapter:\n"                                 # 9
        "    def send(self, data):\n"                      # 10
        "        return data\n"                            # 11
        "\n"                                               # 12
        "\n"                                               # 13
        "def talk(session: Session, adapter: Adapter, sock: socket.socket):\n"  # 14
        "    session.send(1)\n"                            # 15
        "    adapter.send(2)\n"                            # 16
        "    sock.send(b'3')\n"),                          # 17
    "pkg/groups.py": (
        "class Group:\n"                                 # 1
        "    def command(self, name):\n"                 # 2
        "        return name\n"),                        # 3
    "pkg/test_groups.py": (
        "def test_named():\n"                            # 1
        "    def command():\n"                           # 2
        "        return 1\n"                             # 3
        "    return command\n"),                         # 4
    "pkg/app.py": (
        "from pkg.setup import cli\n"                    # 1
        "\n"                                             # 2
        "\n"                                             # 3
        "@cli.command('push')\n"                         # 4
        "def push():\n"                                  # 5
        "    pass\n"),                                   # 6
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with indexed(tmp_path_factory.mktemp("named-alike").resolve(), FILES) as engine:
        yield engine


def ask(workspace: Workspace, query: str, kind: str) -> SearchResult:
    return workspace.search(SearchCall(query=query, kind=kind, limit=100))


def where(result: SearchResult) -> set[tuple[str, int]]:
    return {(match.path, int(match.line or 0)) for match in result.matches}


@pytest.mark.parametrize("kind", ["references", "callers"])
def test_a_name_defined_once_answers_as_its_location_does(workspace: Workspace,
                                                          kind: str) -> None:
    at_line = ask(workspace, "pkg/store.py:5", kind)
    for query in ("flush", "Store.flush"):
        by_name = ask(workspace, query, kind)
        assert where(by_name) == where(at_line), query
        assert ("pkg/store.py", 11) not in where(by_name)  # io.StringIO's flush
        assert by_name.extra["precision"] == "narrowed-by-index"


@pytest.mark.parametrize("kind", ["references", "callers"])
def test_a_name_defined_twice_pools_each_definition_s_own_uses(workspace: Workspace,
                                                               kind: str) -> None:
    pooled = ask(workspace, "send", kind)
    each = where(ask(workspace, "pkg/wire.py:5", kind)) | where(ask(workspace, "pkg/wire.py:10",
                                                                    kind))
    assert where(pooled) == each
    assert {("pkg/wire.py", 15), ("pkg/wire.py", 16)} <= where(pooled)
    assert ("pkg/wire.py", 17) not in where(pooled)  # socket.socket's send
    assert any("Session.send (pkg/wire.py:5)" in n and "Adapter.send (pkg/wire.py:10)" in n
               for n in pooled.notes), pooled.notes


@pytest.mark.parametrize("query", ["pkg/groups.py:2", "Group.command"])
def test_a_local_function_of_the_name_is_no_class_s_method(workspace: Workspace,
                                                           query: str) -> None:
    """A receiver of unknown type may be the method's class: a test's local ``command``
    function is no method of another class that would make it someone else's."""
    assert ("pkg/app.py", 4) in where(ask(workspace, query, "references"))
