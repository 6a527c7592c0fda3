"""Index-only narrowing: a loop variable, a subscript and a name unpacked from a call hold
the element type of the container's annotation (``list[Frame]``, ``dict[str, Frame]``,
``-> tuple[Stream, Frame]``); the variables are named so that their words tell nothing."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "wirekit/__init__.py": "",
    "wirekit/frames.py": (
        "from typing import Iterator, Optional\n"                 # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Frame:\n"                                         # 4
        "    def close(self): ...\n"                             # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "class Stream:\n"                                        # 8
        "    def close(self): ...\n"                             # 9
        "\n"                                                     # 10
        "\n"                                                     # 11
        "def open_pair() -> tuple[Stream, Frame]: ...\n"         # 12
        "\n"                                                     # 13
        "\n"                                                     # 14
        "class Reader:\n"                                        # 15
        "    frames: list[Frame]\n"                              # 16
        "\n"                                                     # 17
        "    def __init__(self, streams: dict[str, Stream]):\n"  # 18
        "        self.streams = streams\n"                       # 19
        "        self.named: Optional[dict[str, Frame]] = None\n"  # 20
        "\n"                                                     # 21
        "    def pending(self) -> Iterator[Frame]: ...\n"        # 22
        "\n"                                                     # 23
        "    def shut(self, streams: list[Stream]):\n"           # 24
        "        for item in self.frames:\n"                     # 25
        "            item.close()\n"                             # 26
        "        for piece in streams:\n"                        # 27
        "            piece.close()\n"                            # 28
        "        [each.close() for each in self.pending()]\n"    # 29
        "        self.frames[0].close()\n"                       # 30
        "        self.named['x'].close()\n"                      # 31
        "        left, right = open_pair()\n"                    # 32
        "        left.close()\n"                                 # 33
        "        right.close()\n"                                # 34
        "        pairs: list[tuple[Stream, Frame]] = []\n"       # 35
        "        first, second = pairs[0]\n"                      # 36
        "        second.close()\n"),                             # 37
}


workspace = module_workspace(FILES)


def test_a_loop_variable_holds_its_containers_element_type(workspace: Workspace) -> None:
    frames = usage_lines(workspace, "wirekit/frames.py:5")
    streams = usage_lines(workspace, "wirekit/frames.py:9")
    assert ("wirekit/frames.py", 26) in frames and ("wirekit/frames.py", 26) not in streams
    assert ("wirekit/frames.py", 28) in streams and ("wirekit/frames.py", 28) not in frames


def test_a_comprehension_variable_holds_what_the_iterator_yields(workspace: Workspace) -> None:
    assert ("wirekit/frames.py", 29) in usage_lines(workspace, "wirekit/frames.py:5")
    assert ("wirekit/frames.py", 29) not in usage_lines(workspace, "wirekit/frames.py:9")


def test_a_subscript_holds_a_sequences_element_or_a_mappings_value(
        workspace: Workspace) -> None:
    frames = usage_lines(workspace, "wirekit/frames.py:5")
    streams = usage_lines(workspace, "wirekit/frames.py:9")
    assert {("wirekit/frames.py", 30), ("wirekit/frames.py", 31)} <= frames
    assert not {("wirekit/frames.py", 30), ("wirekit/frames.py", 31)} & streams


def test_names_unpacked_from_a_call_hold_the_tuples_element_at_their_position(
        workspace: Workspace) -> None:
    frames = usage_lines(workspace, "wirekit/frames.py:5")
    streams = usage_lines(workspace, "wirekit/frames.py:9")
    assert ("wirekit/frames.py", 33) in streams and ("wirekit/frames.py", 33) not in frames
    assert ("wirekit/frames.py", 34) in frames and ("wirekit/frames.py", 34) not in streams


def test_names_unpacked_from_a_subscript_hold_the_elements_tuple_at_their_position(
        workspace: Workspace) -> None:
    assert ("wirekit/frames.py", 37) in usage_lines(workspace, "wirekit/frames.py:5")
    assert ("wirekit/frames.py", 37) not in usage_lines(workspace, "wirekit/frames.py:9")
