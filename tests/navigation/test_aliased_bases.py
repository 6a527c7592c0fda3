"""Index-only narrowing: a base imported under another name (``from pkg.core import Scope
as BaseScope`` / ``class Scope(BaseScope)``, or ``import pkg.core as c`` / ``class
Loop(c.Scope)``) is the class it imports. A method inherited through the alias reaches the
subclass's uses, and an override behind the alias keeps its own uses apart from the
imported class's."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.models import SearchCall

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "class Scope:\n"                                         # 1
        "    def halt(self):\n"                                  # 2
        "        return 0\n"                                     # 3
        "\n"                                                     # 4
        "    def wait(self):\n"                                  # 5
        "        return 0\n"),                                   # 6
    "pkg/fast.py": (
        "from pkg.core import Scope as BaseScope\n"              # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Scope(BaseScope):\n"                              # 4
        "    def halt(self):\n"                                  # 5
        "        return 1\n"                                     # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Quick(BaseScope):\n"                              # 9
        "    pass\n"),                                           # 10
    "pkg/slow.py": (
        "import pkg.core as c\n"                                 # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Loop(c.Scope):\n"                                 # 4
        "    pass\n"),                                           # 5
    "pkg/use.py": (
        "from pkg.fast import Scope\n"                           # 1
        "from pkg.slow import Loop\n"                            # 2
        "from pkg.fast import Quick\n"                           # 3
        "\n"                                                     # 4
        "def first(s: Scope):\n"                                 # 5
        "    return s.halt()\n"                                  # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "def second(s: Scope):\n"                                # 9
        "    return s.wait()\n"                                  # 10
        "\n"                                                     # 11
        "\n"                                                     # 12
        "def third(s: Loop):\n"                                  # 13
        "    return s.halt()\n"                                  # 14
        "\n"                                                     # 15
        "\n"                                                     # 16
        "def fifth(q: Quick):\n"                                 # 17
        "    return q.wait()\n"),                                # 18
    "pkg/plain.py": (
        "from pkg.core import Scope\n"                           # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def fourth(s: Scope):\n"                                # 4
        "    return s.halt()\n"),                                # 5
}
USES = {("pkg/use.py", 6), ("pkg/use.py", 10), ("pkg/use.py", 14), ("pkg/use.py", 18),
        ("pkg/plain.py", 5)}

workspace = module_workspace(FILES)


def _uses(workspace: Workspace, query: str, kind: str) -> set[tuple[str, int]]:
    return usage_lines(workspace, query, kind) & USES  # type: ignore[arg-type]


def test_a_method_inherited_through_an_aliased_base_reaches_the_subclass(
        workspace: Workspace) -> None:
    for kind in ("references", "callers"):
        # fast's Scope and Quick extend core's Scope under the name BaseScope: wait is
        # core's, in both
        assert _uses(workspace, "pkg/core.py:5", kind) == {("pkg/use.py", 10),
                                                           ("pkg/use.py", 18)}, kind
        # fast's Scope overrides halt; Loop (through the module alias) does not
        assert _uses(workspace, "pkg/core.py:2", kind) == {("pkg/use.py", 14),
                                                           ("pkg/plain.py", 5)}, kind
        assert _uses(workspace, "pkg/fast.py:5", kind) == {("pkg/use.py", 6)}, kind


def test_an_override_behind_an_aliased_base_is_an_implementation(workspace: Workspace
                                                                 ) -> None:
    result = workspace.search(SearchCall(query="pkg/core.py:2", kind="implementations",
                                         limit=100))
    assert {(m.path, int(m.line or 0)) for m in result.matches} == {("pkg/fast.py", 5)}
