"""Index-only narrowing through what binds a receiver: a ``with`` statement over several
lines, a context manager's yield, a property's return annotation, a class's attributes
(not its methods' parameters written one a line)."""

from __future__ import annotations

from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.models import SearchCall, SearchKind

FILES = {
    "pkg/__init__.py": "",
    "pkg/clients.py": (
        "class Client:\n"                                        # 1
        "    def get(self, url):\n"                              # 2
        "        return url\n"                                   # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Cache:\n"                                         # 6
        "    def get(self, key):\n"                              # 7
        "        return key\n"                                   # 8
        "\n"                                                     # 9
        "\n"                                                     # 10
        "class Session:\n"                                       # 11
        "    def __init__(\n"                                    # 12
        "        self,\n"                                        # 13
        "        cache: Client | None = None,\n"                 # 14
        "    ):\n"                                               # 15
        "        self.cache = Cache()\n"                         # 16
        "\n"                                                     # 17
        "    @property\n"                                        # 18
        "    def backend(self) -> Client:\n"                     # 19
        "        return Client()\n"                              # 20
        "\n"                                                     # 21
        "    @contextmanager\n"                                  # 22
        "    def opened(self) -> Iterator[Cache]:\n"             # 23
        "        yield self.cache\n"),                           # 24
    "pkg/use.py": (
        "from pkg.clients import Session\n"                      # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def use(session: Session):\n"                           # 4
        "    session.cache.get('k')\n"                           # 5
        "    session.backend.get('/')\n"                         # 6
        "    with session.opened() as store:\n"                  # 7
        "        store.get('k')\n"),                             # 8
    "tests/test_clients.py": (
        "from pkg.clients import Cache, Client\n"                # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "async def test_get():\n"                                # 4
        "    with Client(\n"                                     # 5
        "        timeout=5, retries=(1, 2),\n"                   # 6
        ") as http:\n"                                           # 7
        "        http.get('/')\n"                                # 8
        "    async with Cache(\n"                                # 9
        "        size=3\n"                                       # 10
        "    ) as http:\n"                                       # 11
        "        http.get('k')\n"                                # 12
        "    try:\n"                                             # 13
        "        pass\n"                                         # 14
        "    except (\n"                                         # 15
        "        ValueError\n"                                   # 16
        "    ) as http:\n"                                       # 17
        "        http.get('e')\n"),                              # 18
}


workspace = module_workspace(FILES)


def lines(workspace: Workspace, query: str, kind: SearchKind) -> set[int]:
    result = workspace.search(SearchCall(query=query, kind=kind, limit=100))
    return {int(m.line or 0) for m in result.matches if m.path == "tests/test_clients.py"}


def test_a_with_statement_over_several_lines_types_its_target(workspace: Workspace) -> None:
    assert 8 in lines(workspace, "Client.get", "callers")
    assert 12 in lines(workspace, "Cache.get", "callers")
    assert 12 not in lines(workspace, "Client.get", "callers")
    assert 8 not in lines(workspace, "Cache.get", "callers")


def uses(workspace: Workspace, query: str) -> set[int]:
    result = workspace.search(SearchCall(query=query, kind="callers", limit=100))
    return {int(m.line or 0) for m in result.matches if m.path == "pkg/use.py"}


def test_an_attribute_is_the_class_s_not_a_method_parameter_s(workspace: Workspace) -> None:
    # ``cache: Client | None`` is a parameter of __init__, one a line: not the attribute
    assert 5 in uses(workspace, "Cache.get") and 5 not in uses(workspace, "Client.get")


def test_a_property_holds_what_its_getter_returns(workspace: Workspace) -> None:
    assert 6 in uses(workspace, "Client.get") and 6 not in uses(workspace, "Cache.get")


def test_with_binds_what_a_context_manager_yields(workspace: Workspace) -> None:
    assert 8 in uses(workspace, "Cache.get") and 8 not in uses(workspace, "Client.get")
