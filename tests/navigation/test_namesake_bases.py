"""Index-only narrowing: a class's bases are resolved by file and import, so inheritance
runs between exact classes, not names. Two modules each define ``Stream``; one extends the
other through a module alias (``from pkg import abc`` / ``class Stream(abc.Stream)``), and
a third, unrelated ``Stream`` shares the name: a method defined above the abstract
``Stream`` is inherited by its subclasses, not by the namesakes' subclasses; a base the
workspace does not hold is still walked by its name."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.models import SearchCall

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": (
        "class Source:\n"                                        # 1
        "    def pull(self):\n"                                  # 2
        "        return 0\n"),                                   # 3
    "pkg/abc.py": (
        "from pkg.base import Source\n"                          # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Stream(Source):\n"                                # 4
        "    def shut(self):\n"                                  # 5
        "        raise NotImplementedError\n"                    # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Wire(Stream):\n"                                  # 9
        "    pass\n"),                                           # 10
    "pkg/impl.py": (
        "from pkg import abc\n"                                  # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Stream(abc.Stream):\n"                            # 4
        "    def pull(self):\n"                                  # 5
        "        return 1\n"                                     # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Cable(Stream):\n"                                 # 9
        "    pass\n"),                                           # 10
    "pkg/other.py": (
        "class Stream:\n"                                        # 1
        "    def pull(self):\n"                                  # 2
        "        return 2\n"                                     # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Hose(Stream):\n"                                  # 6
        "    def pull(self):\n"                                  # 7
        "        return 3\n"),                                   # 8
    "pkg/use.py": (
        "from pkg.abc import Wire\n"                             # 1
        "from pkg.impl import Cable\n"                           # 2
        "from pkg.other import Hose\n"                           # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "def first(w: Wire):\n"                                  # 6
        "    return w.pull()\n"                                  # 7
        "\n"                                                     # 8
        "\n"                                                     # 9
        "def second(c: Cable):\n"                                # 10
        "    return c.pull()\n"                                  # 11
        "\n"                                                     # 12
        "\n"                                                     # 13
        "def third(h: Hose):\n"                                  # 14
        "    return h.pull()\n"),                                # 15
    "pkg/star.py": (
        "from elsewhere import *\n"                              # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Deep(Source):\n"                                  # 4
        "    pass\n"),                                           # 5
    "pkg/deep.py": (
        "from pkg.star import Deep\n"                            # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def fourth(d: Deep):\n"                                 # 4
        "    return d.pull()\n"),                                # 5
}
USES = {7, 11, 15}

workspace = module_workspace(FILES)


def _uses(workspace: Workspace, query: str, kind: str) -> set[int]:
    found = usage_lines(workspace, query, kind)  # type: ignore[arg-type]
    return {line for path, line in found if path == "pkg/use.py"} & USES


def test_references_and_callers_follow_the_exact_classes(workspace: Workspace) -> None:
    for kind in ("references", "callers"):
        # Wire extends abc's Stream, which inherits Source.pull; Cable extends impl's Stream,
        # which overrides it; Hose is the unrelated namesake's
        assert _uses(workspace, "pkg/base.py:2", kind) == {7}, kind
        assert _uses(workspace, "pkg/impl.py:5", kind) == {11}, kind
        assert _uses(workspace, "pkg/other.py:2", kind) == set(), kind
        assert _uses(workspace, "pkg/other.py:7", kind) == {15}, kind


def test_implementations_are_the_overrides_in_the_exact_subclasses(workspace: Workspace
                                                                   ) -> None:
    def overriding(query: str) -> set[tuple[str, int]]:
        result = workspace.search(SearchCall(query=query, kind="implementations", limit=100))
        return {(m.path, int(m.line or 0)) for m in result.matches}

    assert overriding("pkg/base.py:2") == {("pkg/impl.py", 5)}
    assert overriding("pkg/other.py:2") == {("pkg/other.py", 7)}
    assert overriding("pkg/impl.py:5") == set()


def test_a_base_the_workspace_does_not_resolve_is_walked_by_its_name(workspace: Workspace
                                                                    ) -> None:
    # from elsewhere import *: Source may be anything; the name is all there is to go by
    assert ("pkg/deep.py", 5) in usage_lines(workspace, "pkg/base.py:2")
    assert ("pkg/deep.py", 5) not in usage_lines(workspace, "pkg/other.py:2")
