"""Index-only narrowing: a workspace class's own subscript and iteration (its
``__getitem__`` and ``__iter__`` annotations), and ``isinstance`` checks that narrow a
receiver to a subclass (``assert isinstance(x, Frame)``, the block of ``if
isinstance(x, Frame):``); names chosen so that their words tell nothing."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "wirekit/__init__.py": "",
    "wirekit/parts.py": (
        "from typing import Iterator\n"                          # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Base:\n"                                          # 4
        "    pass\n"                                             # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "class Frame(Base):\n"                                   # 8
        "    def close(self): ...\n"                             # 9
        "\n"                                                     # 10
        "\n"                                                     # 11
        "class Stream(Base):\n"                                  # 12
        "    def close(self): ...\n"                             # 13
        "\n"                                                     # 14
        "\n"                                                     # 15
        "class Book:\n"                                          # 16
        "    def __getitem__(self, key: str) -> Frame: ...\n"    # 17
        "\n"                                                     # 18
        "    def __iter__(self) -> Iterator[Stream]: ...\n"      # 19
        "\n"                                                     # 20
        "\n"                                                     # 21
        "def use(book: Book, one: Base, two: Base):\n"           # 22
        "    book['a'].close()\n"                                # 23
        "    for item in book:\n"                                # 24
        "        item.close()\n"                                 # 25
        "    assert isinstance(one, Frame)\n"                    # 26
        "    one.close()\n"                                      # 27
        "    if isinstance(two, Stream):\n"                      # 28
        "        two.close()\n"),                                # 29
}


workspace = module_workspace(FILES)


def frames_and_streams(workspace: Workspace) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    return (usage_lines(workspace, "wirekit/parts.py:9"),
            usage_lines(workspace, "wirekit/parts.py:13"))


def test_a_subscript_holds_what_the_classes_getitem_returns(workspace: Workspace) -> None:
    frames, streams = frames_and_streams(workspace)
    assert ("wirekit/parts.py", 23) in frames and ("wirekit/parts.py", 23) not in streams


def test_a_loop_over_a_class_holds_what_its_iter_yields(workspace: Workspace) -> None:
    frames, streams = frames_and_streams(workspace)
    assert ("wirekit/parts.py", 25) in streams and ("wirekit/parts.py", 25) not in frames


def test_an_isinstance_check_narrows_to_the_subclass(workspace: Workspace) -> None:
    frames, streams = frames_and_streams(workspace)
    assert ("wirekit/parts.py", 27) in frames and ("wirekit/parts.py", 27) not in streams
    assert ("wirekit/parts.py", 29) in streams and ("wirekit/parts.py", 29) not in frames


CONDITION = {
    "wirekit/__init__.py": "",
    "wirekit/checks.py": (
        "class Base:\n"                                          # 1
        "    value = None\n"                                     # 2
        "\n"                                                     # 3
        "\n"                                                     # 4
        "class Frame(Base):\n"                                   # 5
        "    def close(self): ...\n"                             # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Stream(Base):\n"                                  # 9
        "    def close(self): ...\n"                             # 10
        "\n"                                                     # 11
        "\n"                                                     # 12
        "def use(one: Base, two: Base):\n"                       # 13
        "    done = isinstance(one, Frame) and one.close()\n"    # 14
        "    shut = (\n"                                         # 15
        "        isinstance(two, Stream)\n"                      # 16
        "        and two.close()\n"                              # 17
        "    )\n"),                                              # 18
}

condition_workspace = module_workspace(CONDITION)


def test_an_isinstance_check_narrows_the_rest_of_its_and_condition(
        condition_workspace: Workspace) -> None:
    frames = usage_lines(condition_workspace, "wirekit/checks.py:6")
    streams = usage_lines(condition_workspace, "wirekit/checks.py:10")
    assert ("wirekit/checks.py", 14) in frames and ("wirekit/checks.py", 14) not in streams
    assert ("wirekit/checks.py", 17) in streams and ("wirekit/checks.py", 17) not in frames
