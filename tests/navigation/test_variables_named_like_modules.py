"""Index-only narrowing: ``client.connect()`` asks for a module's function only when
``client`` is the module; a variable of that name holding an instance is no module."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "wirekit/__init__.py": "",
    "wirekit/client.py": (
        "def connect(uri): ...\n"                                # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class ClientProtocol:\n"                                # 4
        "    def connect(self): ...\n"),                         # 5
    "wirekit/use_instance.py": (
        "from wirekit.client import ClientProtocol\n"            # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def handshake():\n"                                     # 4
        "    client = ClientProtocol()\n"                        # 5
        "    return client.connect()\n"),                        # 6
    "wirekit/use_module.py": (
        "from wirekit import client\n"                           # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def dial():\n"                                          # 4
        "    return client.connect('ws://x')\n"),                # 5
}


workspace = module_workspace(FILES)


def test_a_variable_holding_an_instance_is_no_module(workspace: Workspace) -> None:
    module_function = usage_lines(workspace, "wirekit/client.py:1")
    assert ("wirekit/use_instance.py", 6) not in module_function
    assert ("wirekit/use_instance.py", 6) in usage_lines(workspace, "wirekit/client.py:5")


def test_the_imported_module_still_reaches_its_function(workspace: Workspace) -> None:
    assert ("wirekit/use_module.py", 5) in usage_lines(workspace, "wirekit/client.py:1")
