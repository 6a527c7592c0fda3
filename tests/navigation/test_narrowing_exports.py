"""Index-only narrowing: a name in a module's ``__all__`` is a reference of the definition
it exports, a name imported from a package outside the workspace is not one of its
definitions, and a method a class inherits returns what its base's definition says."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "pkg/__init__.py": (
        "from pkg.api import get\n"                              # 1
        "from pkg.pools import Pool\n"                           # 2
        "\n"                                                     # 3
        "__all__ = [\n"                                          # 4
        '    "Pool",\n'                                          # 5
        '    "get",  # the helper\n'                             # 6
        "]\n"                                                    # 7
        'NOTE = "get"\n'),                                       # 8
    "pkg/api.py": (
        "__all__ = ('get',)\n"                                   # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def get(url):\n"                                        # 4
        "    return url\n"),                                     # 5
    "pkg/other.py": (
        '__all__ = ["get"]\n'                                    # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def get(key):\n"                                        # 4
        "    return key\n"),                                     # 5
    "app/views.py": "from quart import get\n\nget('/')\n",
    "app/mine.py": "from pkg import get\n\nget('/')\n",
    "pkg/pools.py": (
        "class Response:\n"                                      # 1
        "    def json(self):\n"                                  # 2
        "        return {}\n"                                    # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Methods:\n"                                       # 6
        "    def request(self, url) -> Response:\n"              # 7
        "        return Response()\n"                            # 8
        "\n"                                                     # 9
        "\n"                                                     # 10
        "class Pool(Methods):\n"                                 # 11
        "    pass\n"                                             # 12
        "\n"                                                     # 13
        "\n"                                                     # 14
        "class Session:\n"                                       # 15
        "    def request(self, url) -> dict:\n"                  # 16
        "        return {}\n"                                    # 17
        "\n"                                                     # 18
        "\n"                                                     # 19
        "class Decoder:\n"                                       # 20
        "    def json(self):\n"                                  # 21
        "        return []\n"                                    # 22
        "\n"                                                     # 23
        "\n"                                                     # 24
        "def use(pool: Pool, thing):\n"                          # 25
        "    reply = pool.request('/')\n"                        # 26
        "    return reply.json()\n"),                            # 27
}


workspace = module_workspace(FILES)


def test_a_name_in_all_is_a_reference_of_what_the_module_exports(workspace: Workspace) -> None:
    found = usage_lines(workspace, "pkg.api.get")
    assert {("pkg/__init__.py", 6), ("pkg/api.py", 1)} <= found
    # another module's get, and a string that is no __all__ entry
    assert not found & {("pkg/other.py", 1), ("pkg/__init__.py", 8)}
    assert ("pkg/__init__.py", 5) in usage_lines(workspace, "pkg.pools.Pool")
    assert ("pkg/api.py", 1) not in usage_lines(workspace, "pkg.other.get")


def test_an_inherited_method_returns_what_the_base_s_definition_says(
        workspace: Workspace) -> None:
    assert ("pkg/pools.py", 27) in usage_lines(workspace, "Response.json", "callers")
    assert ("pkg/pools.py", 27) not in usage_lines(workspace, "Decoder.json", "callers")


def test_a_name_imported_from_a_package_outside_the_workspace_is_not_the_workspace_s(
        workspace: Workspace) -> None:
    found = usage_lines(workspace, "pkg.api.get", "callers")
    assert ("app/views.py", 3) not in found  # quart's get
    assert ("app/mine.py", 3) in found  # the workspace's, through the package
