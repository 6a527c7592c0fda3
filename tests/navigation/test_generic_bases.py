"""Index-only narrowing: a subscripted base (``class Pair(Source[T])``, ``class
Holder(core.Source[int])``) is a base like any other, and a bare call (``build()``) returns
what the module's function of that name says, not what a same-named method does."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.models import SearchCall

FILES = {
    "kit/__init__.py": "",
    "kit/core.py": (
        "from typing import Generic, TypeVar\n"                  # 1
        "\n"                                                     # 2
        "T = TypeVar('T')\n"                                     # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Source(Generic[T]):\n"                            # 6
        "    def pull(self):\n"                                  # 7
        "        return None\n"                                  # 8
        "\n"                                                     # 9
        "\n"                                                     # 10
        "class Pair(Source[T]):\n"                               # 11
        "    pass\n"                                             # 12
        "\n"                                                     # 13
        "\n"                                                     # 14
        "class Other:\n"                                         # 15
        "    def pull(self):\n"                                  # 16
        "        return 1\n"),                                   # 17
    "kit/make.py": (
        "from kit.core import Other, Pair\n"                     # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def build() -> Pair:\n"                                 # 4
        "    return Pair()\n"                                    # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "class Factory:\n"                                       # 8
        "    def build(self) -> Other:\n"                        # 9
        "        return Other()\n"),                             # 10
    "kit/use.py": (
        "from kit import core\n"                                 # 1
        "from kit.core import Pair\n"                            # 2
        "from kit.make import build\n"                           # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Holder(core.Source[int]):\n"                      # 6
        "    def pull(self):\n"                                  # 7
        "        return 2\n"                                     # 8
        "\n"                                                     # 9
        "\n"                                                     # 10
        "def first(p: Pair):\n"                                  # 11
        "    return p.pull()\n"                                  # 12
        "\n"                                                     # 13
        "\n"                                                     # 14
        "def second(h: Holder):\n"                               # 15
        "    return h.pull()\n"                                  # 16
        "\n"                                                     # 17
        "\n"                                                     # 18
        "def third():\n"                                         # 19
        "    made = build()\n"                                   # 20
        "    return made.pull()\n"),                             # 21
}

workspace = module_workspace(FILES)


def test_a_subscripted_base_passes_its_methods_on(workspace: Workspace) -> None:
    for kind in ("references", "callers"):
        found = usage_lines(workspace, "kit/core.py:7", kind)
        assert ("kit/use.py", 12) in found, kind
        assert ("kit/use.py", 16) not in found, kind  # Holder overrides it
        assert ("kit/use.py", 16) in usage_lines(workspace, "kit/use.py:7", kind), kind


def test_implementations_reach_a_subclass_through_a_subscripted_base(workspace: Workspace
                                                                    ) -> None:
    result = workspace.search(SearchCall(query="kit/core.py:7", kind="implementations",
                                         limit=100))
    assert {(m.path, int(m.line or 0)) for m in result.matches} == {("kit/use.py", 7)}


def test_a_bare_call_returns_what_the_function_says_not_a_method(workspace: Workspace
                                                                ) -> None:
    # build() is the module's function (-> Pair), not Factory.build (-> Other)
    assert ("kit/use.py", 21) in usage_lines(workspace, "kit/core.py:7")
    assert ("kit/use.py", 21) not in usage_lines(workspace, "kit/core.py:16")
