"""Index-only narrowing by what the code writes of a receiver's class: annotations
(quoted too), constructors, attributes set in the class, return annotations, imports
under another name, a subclass's own override, and ``super()``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from indexed_files import indexed

from sari_core.engine import Workspace
from sari_core.models import SearchCall, SearchResult

FILES = {
    "pkg/__init__.py": "",
    "pkg/environment.py": (
        "import typing as t\n"                                          # 1
        "\n"                                                            # 2
        "\n"                                                            # 3
        "class Environment:\n"                                          # 4
        "    def get_template(self, name) -> \"Template\":\n"           # 5
        "        return Template()\n"                                   # 6
        "\n"                                                            # 7
        "    def load(self) -> t.Optional[\"Template\"]:\n"             # 8
        "        return None\n"                                         # 9
        "\n"                                                            # 10
        "\n"                                                            # 11
        "class Template:\n"                                             # 12
        "    def render(self):\n"                                       # 13
        "        return ''\n"),                                         # 14
    "pkg/loaders.py": (
        "class Loader:\n"                                               # 1
        "    def get_template(self, name):\n"                           # 2
        "        return name\n"                                         # 3
        "\n"                                                            # 4
        "    def render(self):\n"                                       # 5
        "        return 1\n"),                                          # 6
    "pkg/app.py": (
        "import typing as t\n"                                          # 1
        "\n"                                                            # 2
        "if t.TYPE_CHECKING:\n"                                         # 3
        "    from pkg.environment import Environment\n"                 # 4
        "    from pkg.loaders import Loader\n"                          # 5
        "\n"                                                            # 6
        "\n"                                                            # 7
        "def annotated(thing: \"t.Optional[Environment]\", other: \"Loader\"):\n"  # 8
        "    thing.get_template(1)\n"                                   # 9
        "    other.get_template(2)\n"                                   # 10
        "    made = thing.load()\n"                                     # 11
        "    made.render()\n"                                           # 12
        "    thing.load().render()\n"                                   # 13
        "    other.render()\n"                                          # 14
        "\n"                                                            # 15
        "\n"                                                            # 16
        "class App:\n"                                                  # 17
        "    def __init__(self, engine: \"Environment\", source: Loader) -> None:\n"  # 18
        "        self.engine = engine\n"                                # 19
        "        self.source = source\n"                                # 20
        "\n"                                                            # 21
        "    def run(self):\n"                                          # 22
        "        self.source.get_template(3)\n"                         # 23
        "        return self.engine.get_template(4)\n"                  # 24
        "\n"                                                            # 25
        "\n"                                                            # 26
        "names = {\"Environment\": 1}\n"                                # 27
        "first = names[\"Environment\"]\n"),                            # 28
    "pkg/base.py": (
        "class Base:\n"                                                 # 1
        "    def send(self):\n"                                         # 2
        "        return 1\n"                                            # 3
        "\n"                                                            # 4
        "\n"                                                            # 5
        "class Child(Base):\n"                                          # 6
        "    def send(self):\n"                                         # 7
        "        return super().send()\n"                               # 8
        "\n"                                                            # 9
        "\n"                                                            # 10
        "class GrandChild(Child):\n"                                    # 11
        "    def again(self):\n"                                        # 12
        "        return self.send()\n"                                  # 13
        "\n"                                                            # 14
        "\n"                                                            # 15
        "class Sibling(Base):\n"                                        # 16
        "    def again(self):\n"                                        # 17
        "        return self.send()\n"),                                # 18
    "pkg/guess.py": (
        "\n"
        "\n"
        "def fixture_user(environment):\n"
        "    return environment.get_template('x')\n"),
    "pkg/files.py": "def close(handle):\n    return handle\n",
    "pkg/sockets.py": "def close(sock):\n    return sock\n",
    "pkg/use_alias.py": "import pkg.files as f\nimport pkg.sockets as s\n\nf.close(1)\ns.close(2)\n",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with indexed(tmp_path_factory.mktemp("narrowing-by-type").resolve(), FILES) as engine:
        yield engine


def ask(workspace: Workspace, query: str, kind: str = "references") -> SearchResult:
    return workspace.search(SearchCall(query=query, kind=kind, limit=100))


def lines(result: SearchResult, path: str) -> set[int]:
    return {int(match.line or 0) for match in result.matches if match.path == path}


def test_a_quoted_annotation_is_a_reference_but_a_quoted_key_is_not(workspace: Workspace
                                                                     ) -> None:
    found = lines(ask(workspace, "pkg.environment.Template"), "pkg/environment.py")
    assert {5, 8} <= found  # -> "Template", t.Optional["Template"]
    assert 8 in lines(ask(workspace, "pkg.environment.Environment"), "pkg/app.py")
    app = lines(ask(workspace, "pkg.environment.Environment"), "pkg/app.py")
    assert 18 in app and not app & {27, 28}  # a dict's key is a string, not a type


def test_a_parameter_s_annotation_tells_the_receiver_s_class(workspace: Workspace) -> None:
    mine = lines(ask(workspace, "Environment.get_template", "callers"), "pkg/app.py")
    theirs = lines(ask(workspace, "Loader.get_template", "callers"), "pkg/app.py")
    assert 9 in mine and 10 not in mine
    assert 10 in theirs and 9 not in theirs


def test_an_attribute_set_from_an_annotated_parameter_has_its_class(workspace: Workspace
                                                                     ) -> None:
    mine = lines(ask(workspace, "Environment.get_template", "callers"), "pkg/app.py")
    theirs = lines(ask(workspace, "Loader.get_template", "callers"), "pkg/app.py")
    assert 24 in mine and 23 not in mine
    assert 23 in theirs and 24 not in theirs


def test_a_return_annotation_types_a_call_and_a_variable_assigned_from_it(
        workspace: Workspace) -> None:
    mine = lines(ask(workspace, "Template.render", "callers"), "pkg/app.py")
    theirs = lines(ask(workspace, "Loader.render", "callers"), "pkg/app.py")
    assert {12, 13} <= mine and 14 not in mine
    assert 14 in theirs and not theirs & {12, 13}


def test_self_in_a_subclass_that_inherits_an_override_is_the_override_s(workspace: Workspace
                                                                         ) -> None:
    base = lines(ask(workspace, "Base.send", "callers"), "pkg/base.py")
    child = lines(ask(workspace, "Child.send", "callers"), "pkg/base.py")
    assert 13 not in base and 13 in child  # GrandChild inherits Child's own send
    assert 18 in base and 18 not in child  # Sibling inherits Base's


def test_super_calls_the_method_of_the_class_extended(workspace: Workspace) -> None:
    assert 8 in lines(ask(workspace, "Base.send", "callers"), "pkg/base.py")
    assert 8 not in lines(ask(workspace, "Child.send", "callers"), "pkg/base.py")


def test_a_module_imported_under_another_name_is_followed(workspace: Workspace) -> None:
    files = lines(ask(workspace, "pkg.files.close", "callers"), "pkg/use_alias.py")
    sockets = lines(ask(workspace, "pkg.sockets.close", "callers"), "pkg/use_alias.py")
    assert files == {4} and sockets == {5}


def test_implementations_of_a_method_are_the_overrides_in_subclasses(workspace: Workspace
                                                                      ) -> None:
    found = ask(workspace, "Base.send", "implementations")
    assert {(m.path, m.line) for m in found.matches} == {("pkg/base.py", 7)}
    assert ask(workspace, "Child.send", "implementations").matches == []


def test_a_use_kept_only_by_the_receiver_s_name_is_counted_in_the_note(workspace: Workspace
                                                                        ) -> None:
    # environment.get_template(...) through an unannotated parameter: its class is written
    # nowhere; the answer keeps it and says it was judged by the name alone
    result = ask(workspace, "Environment.get_template", "callers")
    assert 4 in lines(result, "pkg/guess.py")
    assert "1 of them only because the receiver is named like the class" in result.notes[0]
