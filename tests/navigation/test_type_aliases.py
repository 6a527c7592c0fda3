"""Index-only narrowing: a receiver annotated with a module's type alias holds the classes
the alias names (``AnyStream = Union[TextStream, ByteStream]``)."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "streamkit/__init__.py": "",
    "streamkit/streams.py": (
        "from typing import Union\n"                             # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class TextStream:\n"                                    # 4
        "    def receive(self): ...\n"                           # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "class ByteStream:\n"                                    # 8
        "    def receive(self): ...\n"                           # 9
        "\n"                                                     # 10
        "\n"                                                     # 11
        "class Socket:\n"                                        # 12
        "    def receive(self): ...\n"                           # 13
        "\n"                                                     # 14
        "\n"                                                     # 15
        "AnyStream = Union[TextStream, ByteStream]\n"            # 16
        "\n"                                                     # 17
        "\n"                                                     # 18
        "class Buffered:\n"                                      # 19
        "    def __init__(self, stream: AnyStream):\n"           # 20
        "        self.stream = stream\n"                         # 21
        "\n"                                                     # 22
        "    def read(self):\n"                                  # 23
        "        return self.stream.receive()\n"),               # 24
}


workspace = module_workspace(FILES)


def test_an_alias_annotation_holds_the_classes_it_names(workspace: Workspace) -> None:
    assert ("streamkit/streams.py", 24) in usage_lines(workspace, "streamkit/streams.py:5")
    assert ("streamkit/streams.py", 24) in usage_lines(workspace, "streamkit/streams.py:9")
    assert ("streamkit/streams.py", 24) not in usage_lines(workspace, "streamkit/streams.py:13")
