"""A Python property is called where it is read or set, and its getter and setter are one
symbol: what a type checker's call hierarchy and references answer for it."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.engine.python.symbol_target import resolve

FILES = {
    "pkg/__init__.py": "",
    "pkg/models.py": (
        "class Response:\n"                                      # 1
        "    def __init__(self):\n"                              # 2
        "        self._request = None\n"                         # 3
        "\n"                                                     # 4
        "    @property\n"                                        # 5
        "    def request(self) -> 'Request':\n"                  # 6
        "        return self._request\n"                         # 7
        "\n"                                                     # 8
        "    @request.setter\n"                                  # 9
        "    def request(self, value) -> None:\n"                # 10
        "        self._request = value\n"                        # 11
        "\n"                                                     # 12
        "    def url(self):\n"                                   # 13
        "        return self.request.url\n"                      # 14
        "\n"                                                     # 15
        "\n"                                                     # 16
        "class Client:\n"                                        # 17
        "    def request(self, method):\n"                       # 18
        "        return Response()\n"),                          # 19
    "tests/test_models.py": (
        "from pkg.models import Client, Response\n"              # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def test_request(response: Response, client: Client):\n"  # 4
        "    assert response.request.method == 'GET'\n"          # 5
        "    response.request = client.request('GET')\n"        # 6
        "    response.request  # read for its error\n"           # 7
        "    # response.request in a comment is no call\n"       # 8
        "    text = 'see response.request'\n"                    # 9
        "    return client.request\n"),                          # 10
}


workspace = module_workspace(FILES)


def test_callers_by_name_hold_every_read_and_write_of_a_property(workspace: Workspace) -> None:
    found = usage_lines(workspace, "request", "callers")
    assert {("pkg/models.py", 14), ("tests/test_models.py", 5), ("tests/test_models.py", 6),
            ("tests/test_models.py", 7), ("tests/test_models.py", 10)} <= found
    # a comment and a string name it; the setter's decorator extends it
    assert not found & {("tests/test_models.py", 8), ("tests/test_models.py", 9),
                        ("pkg/models.py", 9)}


def test_a_property_s_callers_are_its_reads_and_writes_not_the_method_s(
        workspace: Workspace) -> None:
    for asked in ("pkg/models.py:6", "pkg/models.py:10", "Response.request"):
        assert usage_lines(workspace, asked, "callers") == {
            ("pkg/models.py", 14), ("tests/test_models.py", 5), ("tests/test_models.py", 6),
            ("tests/test_models.py", 7)}, asked
    # the method of the same name keeps its calls only
    assert usage_lines(workspace, "Client.request", "callers") == {
        ("tests/test_models.py", 6), ("tests/test_models.py", 10)}


def test_a_property_s_getter_and_setter_are_one_symbol(workspace: Workspace) -> None:
    chosen = resolve(workspace.store, "pkg/models.py:6").chosen
    assert sorted(n.row.line for n in chosen) == [6, 10]
    assert [n.row.line for n in resolve(workspace.store, "pkg/models.py:18").chosen] == [18]
    # the setter's decorator names the property: a reference of it, asked at either part
    assert ("pkg/models.py", 9) in usage_lines(workspace, "pkg/models.py:10", "references")
    assert ("pkg/models.py", 9) not in usage_lines(workspace, "Client.request", "references")
