"""Navigation for one definition: ``Class.method``, ``module.func`` and ``path:line``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from indexed_files import indexed

from sari_core.engine import Workspace
from sari_core.engine.python.symbol_target import resolve
from sari_core.models import SearchCall, SearchResult

FILES = {
    "pkg/sessions.py": (
        "class Session:\n"                                 # 1
        "    def send(self, request):\n"                   # 2
        "        return self.adapter.send(request)\n"      # 3
        "\n"                                               # 4
        "    def resend(self, request):\n"                 # 5
        "        return self.send(request)\n"              # 6
        "\n"                                               # 7
        "\n"                                               # 8
        "class RetryingSession(Session):\n"                # 9
        "    def again(self, request):\n"                  # 10
        "        return self.send(request)\n"),            # 11
    "pkg/adapters.py": (
        "class HTTPAdapter:\n"                             # 1
        "    def send(self, request):\n"                   # 2
        "        return request\n"                         # 3
        "\n"                                               # 4
        "    def retry(self, request):\n"                  # 5
        "        return self.send(request)\n"),            # 6
    "pkg/api.py": (
        "from pkg.sessions import Session\n"               # 1
        "from pkg.adapters import HTTPAdapter\n"           # 2
        "\n"                                               # 3
        "\n"                                               # 4
        "def request(session, adapter, thing):\n"          # 5
        "    session.send(1)\n"                            # 6
        "    adapter.send(2)\n"                            # 7
        "    Session.send(session, 3)\n"                   # 8
        "    thing.send(4)\n"                              # 9
        "    made = Session()\n"                           # 10
        "    made.send(5)\n"                               # 11
        "    return thing.resend(6)\n"),                   # 12
    "pkg/helpers.py": 'def helper(session):\n    """Calls session.send(x), as Session.send does."""\n'
                      "    return 1\n",
    "pkg/files.py": "def close(handle):\n    handle.shut()\n",
    "pkg/sockets.py": "def close(sock):\n    sock.shut()\n",
    "pkg/use_files.py": "from pkg.files import close\n\nclose(1)\n",
    "pkg/use_sockets.py": "from pkg.sockets import close\n\nclose(2)\n",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with indexed(tmp_path_factory.mktemp("symbol-navigation").resolve(), FILES) as engine:
        yield engine


def ask(workspace: Workspace, query: str, kind: str = "references") -> SearchResult:
    return workspace.search(SearchCall(query=query, kind=kind, limit=100))


def where(result: SearchResult) -> set[tuple[str, int]]:
    return {(match.path, int(match.line or 0)) for match in result.matches}


def test_a_dotted_name_or_a_location_names_one_definition(workspace: Workspace) -> None:
    assert [n.qualified for n in resolve(workspace.store, "Session.send").chosen] == \
        ["Session.send"]
    assert [n.row.path for n in resolve(workspace.store, "pkg.sockets.close").chosen] == \
        ["pkg/sockets.py"]
    assert [n.qualified for n in resolve(workspace.store, "pkg/adapters.py:3").chosen] == \
        ["HTTPAdapter.send"]
    assert len(resolve(workspace.store, "send").chosen) == 2  # a bare name is every one


def test_references_of_a_method_leave_out_another_class_s(workspace: Workspace) -> None:
    result = ask(workspace, "Session.send")
    found = where(result)
    assert {("pkg/sessions.py", 6), ("pkg/sessions.py", 11), ("pkg/api.py", 6),
            ("pkg/api.py", 8), ("pkg/api.py", 11)} <= found
    # another class's, and an unknown receiver where another class defines the name
    assert not found & {("pkg/adapters.py", 2), ("pkg/adapters.py", 6), ("pkg/api.py", 7),
                        ("pkg/api.py", 9), ("pkg/helpers.py", 2)}  # nor a docstring
    assert result.extra["precision"] == "narrowed-by-index"
    # a method only Session defines: an unknown receiver is kept, and counted
    resend = ask(workspace, "Session.resend")
    assert ("pkg/api.py", 12) in where(resend)
    assert "1 of them through a receiver of unknown type" in resend.notes[0]


def test_callers_of_a_module_function_follow_its_import(workspace: Workspace) -> None:
    found = where(ask(workspace, "pkg.files.close", "callers"))
    assert ("pkg/use_files.py", 3) in found and ("pkg/use_sockets.py", 3) not in found


def test_a_bare_name_is_still_answered_for_every_definition(workspace: Workspace) -> None:
    result = ask(workspace, "send")
    assert {("pkg/adapters.py", 6), ("pkg/sessions.py", 6)} <= where(result)
    assert result.notes[0].startswith("The name send names 2 definitions, pooled")


def test_a_name_nothing_defines_is_answered_by_name_and_says_so(workspace: Workspace) -> None:
    result = ask(workspace, "Nowhere.send")
    assert ("pkg/adapters.py", 6) in where(result)
    assert result.notes[0].startswith("No indexed definition is Nowhere.send")


def test_the_server_is_asked_only_about_the_named_definition(workspace: Workspace) -> None:
    asked = workspace.navigator.definitions("HTTPAdapter.send", None)
    assert [(d.path.name, d.line) for d in asked] == [("adapters.py", 2)]
    assert len(workspace.navigator.definitions("send", None)) == 2
