"""Index-only narrowing: ``x = item(34)`` holds what the ``@overload`` signature its first
argument chooses returns (the first, in the order written, whose first parameter accepts
it; a ``Sequence[dict]`` takes no list of numbers); after ``x += 1`` the text no longer says
what ``x`` holds."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "kit/__init__.py": "",
    "kit/items.py": (
        "from typing import Sequence, overload\n"                # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Bool:\n"                                          # 4
        "    def render(self): ...\n"                            # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "class Integer:\n"                                       # 8
        "    def render(self): ...\n"                            # 9
        "\n"                                                     # 10
        "\n"                                                     # 11
        "class Tables:\n"                                        # 12
        "    def render(self): ...\n"                            # 13
        "\n"                                                     # 14
        "\n"                                                     # 15
        "class Array:\n"                                         # 16
        "    def render(self): ...\n"                            # 17
        "\n"                                                     # 18
        "\n"                                                     # 19
        "@overload\n"                                            # 20
        "def item(value: bool) -> Bool: ...\n"                   # 21
        "@overload\n"                                            # 22
        "def item(value: int) -> Integer: ...\n"                 # 23
        "@overload\n"                                            # 24
        "def item(\n"                                            # 25
        "    value: Sequence[dict],\n"                           # 26
        ") -> Tables: ...\n"                                     # 27
        "@overload\n"                                            # 28
        "def item(value: list) -> Array: ...\n"                  # 29
        "def item(value):\n"                                     # 30
        "    return value\n"),                                   # 31
    "tests/test_items.py": (
        "from kit.items import item\n"                           # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def test_items():\n"                                    # 4
        "    flag = item(True)\n"                                # 5
        "    flag.render()\n"                                    # 6
        "    number = item(34)\n"                                # 7
        "    number.render()\n"                                  # 8
        "    numbers = item([1, 2])\n"                           # 9
        "    numbers.render()\n"                                 # 10
        "    tables = item([{'a': 1}])\n"                        # 11
        "    tables.render()\n"                                  # 12
        "    number += 1\n"                                      # 13
        "    number.render()\n"),                                # 14
}


workspace = module_workspace(FILES)


def test_the_first_argument_chooses_the_signature(workspace: Workspace) -> None:
    assert ("tests/test_items.py", 6) in usage_lines(workspace, "kit/items.py:5")
    assert ("tests/test_items.py", 8) in usage_lines(workspace, "kit/items.py:9")
    assert ("tests/test_items.py", 8) not in usage_lines(workspace, "kit/items.py:5")
    assert ("tests/test_items.py", 10) in usage_lines(workspace, "kit/items.py:17")
    assert ("tests/test_items.py", 10) not in usage_lines(workspace, "kit/items.py:13")
    assert ("tests/test_items.py", 12) in usage_lines(workspace, "kit/items.py:13")


def test_an_augmented_assignment_leaves_the_type_unknown(workspace: Workspace) -> None:
    # int + 1 may be an int, not an Integer: the text does not say
    assert ("tests/test_items.py", 14) not in usage_lines(workspace, "kit/items.py:9")
