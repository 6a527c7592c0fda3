"""Index-only narrowing reads the code around a use: f-string fields are code, a
docstring on a line of code hides only itself, imports may span lines, a module is no
instance, a name bound by unpacking or ``as`` is a local, a class is called only where
it is constructed, and types come through base classes, returns and continued lines."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.models import SearchKind

FILES = {
    "pkg/__init__.py": "",
    "pkg/gen.py": (
        "import re\n"                                                   # 1
        "import threading\n"                                            # 2
        "\n"                                                            # 3
        "\n"                                                            # 4
        "class Generator:\n"                                            # 5
        "    def choose(self, x=''):\n"                                 # 6
        "        return x\n"                                            # 7
        "\n"                                                            # 8
        "    def compile(self, text):\n"                                # 9
        "        line = f\"{self.choose('a')}def {text}\"\n"            # 10
        "        pattern = re.compile(text)\n"                          # 11
        "        return line, pattern\n"                                # 12
        "\n"                                                            # 13
        "    def set(self, value):\n"                                   # 14
        "        event = threading.Event()\n"                           # 15
        "        event.set()\n"                                         # 16
        "        return self.compile(\"\"\"compile\"\"\")\n"            # 17
        "\n"                                                            # 18
        "\n"                                                            # 19
        "class Jar:\n"                                                  # 20
        "    def set(self, value):\n"                                   # 21
        "        return super().set(value)\n"),                         # 22
    "pkg/tools.py": (
        "def patch(x):\n"                                               # 1
        "    return x\n"                                                # 2
        "\n"                                                            # 3
        "\n"                                                            # 4
        "def versions(text):\n"                                         # 5
        "    major, patch = text.split('.')\n"                          # 6
        "    return patch\n"),                                          # 7
    "pkg/use_tools.py": (
        "from pkg.tools import (\n"                                     # 1
        "    patch,  # the one\n"                                       # 2
        "    versions,\n"                                               # 3
        ")\n"                                                           # 4
        "\n"                                                            # 5
        "patch(versions('1.2'))\n"),                                    # 6
    "pkg/nodes.py": (
        "class Expr:\n"                                                 # 1
        "    def as_const(self):\n"                                     # 2
        "        return 1\n"                                            # 3
        "\n"                                                            # 4
        "\n"                                                            # 5
        "class Helper:\n"                                               # 6
        "    def as_const(self):\n"                                     # 7
        "        return 2\n"                                            # 8
        "\n"                                                            # 9
        "\n"                                                            # 10
        "class BinExpr(Expr):\n"                                        # 11
        "    left: Expr\n"                                              # 12
        "    helper: Helper\n"                                          # 13
        "\n"                                                            # 14
        "\n"                                                            # 15
        "class Add(BinExpr):\n"                                         # 16
        "    def as_const(self):\n"                                     # 17
        "        return self.left.as_const() + self.helper.as_const()\n"),  # 18
    "pkg/models.py": (
        "class Request:\n"                                              # 1
        "    def prepare(self):\n"                                      # 2
        "        return Prepared()\n"                                   # 3
        "\n"                                                            # 4
        "\n"                                                            # 5
        "class Prepared:\n"                                             # 6
        "    def prepare(self):\n"                                      # 7
        "        return self\n"                                         # 8
        "\n"                                                            # 9
        "\n"                                                            # 10
        "def make():\n"                                                 # 11
        "    return Request()\n"                                        # 12
        "\n"                                                            # 13
        "\n"                                                            # 14
        "class Holder:\n"                                               # 15
        "    def __init__(self):\n"                                     # 16
        "        self.request = None\n"                                 # 17
        "\n"                                                            # 18
        "    def fill(self):\n"                                         # 19
        "        self.request = Request()\n"                            # 20
        "        return self.request.prepare()\n"),                     # 21
    "pkg/use_models.py": (
        "from pkg.models import Prepared, Request, make\n"              # 1
        "\n"                                                            # 2
        "\n"                                                            # 3
        "def build(value: Request) -> Prepared:\n"                      # 4
        "    first = Request(\n"                                        # 5
        "        1,\n"                                                  # 6
        "    ).prepare()\n"                                             # 7
        "    r = Request()\n"                                           # 8
        "    r = send(r.prepare())\n"                                   # 9
        "    return make().prepare()\n"                                 # 10
        "\n"                                                            # 11
        "\n"                                                            # 12
        "class Custom(Request):\n"                                      # 13
        "    pass\n"),                                                  # 14
    "lib/__init__.py": "from .env import Page\n",
    "lib/env.py": "class Page:\n    pass\n",
    "lib/other.py": "class Page:\n    pass\n",
    "lib/sub.py": "from lib.other import Page\n\n\nclass Mine(Page):\n    pass\n",
    "lib/use_lib.py": (
        "from lib import Page\n"                                        # 1
        "from pkg.models import Prepared, Request\n"                    # 2
        "\n"                                                            # 3
        "shared = Request()\n"                                          # 4
        "\n"                                                            # 5
        "\n"                                                            # 6
        "def run():\n"                                                  # 7
        "    shared.prepare()\n"                                        # 8
        "    for each in Request(), Request():\n"                       # 9
        "        each.prepare()\n"                                      # 10
        "    return Page()\n"),                                         # 11
}


workspace = module_workspace(FILES)


def lines(workspace: Workspace, query: str, path: str, kind: SearchKind = "references"
          ) -> set[int]:
    return {line for found, line in usage_lines(workspace, query, kind) if found == path}

def test_an_f_string_s_field_is_code(workspace: Workspace) -> None:
    assert 10 in lines(workspace, "Generator.choose", "pkg/gen.py", "callers")


def test_a_triple_quoted_string_hides_only_what_is_inside_it(workspace: Workspace) -> None:
    # self.compile(...) is a call; the word "compile" inside the quotes is not
    assert 17 in lines(workspace, "Generator.compile", "pkg/gen.py", "callers")


def test_a_module_s_function_is_no_instance_s_method(workspace: Workspace) -> None:
    assert 11 not in lines(workspace, "Generator.compile", "pkg/gen.py")


def test_a_capwords_call_makes_an_instance_of_a_class_outside_the_index(
        workspace: Workspace) -> None:
    assert 16 not in lines(workspace, "Generator.set", "pkg/gen.py")


def test_super_in_the_chosen_class_calls_the_class_above(workspace: Workspace) -> None:
    assert 22 not in lines(workspace, "Jar.set", "pkg/gen.py", "callers")


def test_an_import_over_several_lines_brings_the_name(workspace: Workspace) -> None:
    assert {2, 6} <= lines(workspace, "pkg.tools.patch", "pkg/use_tools.py")


def test_a_name_bound_by_unpacking_is_a_local(workspace: Workspace) -> None:
    assert not lines(workspace, "pkg.tools.patch", "pkg/tools.py") & {6, 7}


def test_an_attribute_declared_in_a_base_class_has_that_class(workspace: Workspace) -> None:
    assert 18 in lines(workspace, "Expr.as_const", "pkg/nodes.py", "callers")
    assert 18 in lines(workspace, "Helper.as_const", "pkg/nodes.py", "callers")
    # both on the line: each is a use of its own; a third class's method is neither
    assert 18 not in lines(workspace, "Prepared.prepare", "pkg/nodes.py", "callers")


def test_a_receiver_is_typed_across_lines_returns_and_reassignments(workspace: Workspace
                                                                     ) -> None:
    mine = lines(workspace, "Request.prepare", "pkg/use_models.py", "callers")
    theirs = lines(workspace, "Prepared.prepare", "pkg/use_models.py", "callers")
    assert {7, 9, 10} <= mine and not theirs & {7, 9, 10}
    assert 21 in lines(workspace, "Request.prepare", "pkg/models.py", "callers")
    assert 21 not in lines(workspace, "Prepared.prepare", "pkg/models.py", "callers")


def test_a_class_is_called_where_it_is_constructed_only(workspace: Workspace) -> None:
    called = lines(workspace, "pkg.models.Request", "pkg/use_models.py", "callers")
    assert {5, 8} <= called and not called & {4, 13}
    assert {4, 13} <= lines(workspace, "pkg.models.Request", "pkg/use_models.py")


def test_a_module_s_one_assignment_types_its_name_in_functions(workspace: Workspace) -> None:
    mine = lines(workspace, "Request.prepare", "lib/use_lib.py", "callers")
    assert {8, 10} <= mine  # shared = Request(); for each in Request(), Request()
    assert not lines(workspace, "Prepared.prepare", "lib/use_lib.py", "callers") & {8, 10}


def test_an_import_from_a_package_is_followed_to_the_module_defining_it(
        workspace: Workspace) -> None:
    assert {1, 11} <= lines(workspace, "lib.env.Page", "lib/use_lib.py")
    assert not lines(workspace, "lib.other.Page", "lib/use_lib.py") & {1, 11}


def test_implementations_of_a_class_are_narrowed_by_what_the_subclass_imports(
        workspace: Workspace) -> None:
    assert 4 in lines(workspace, "lib.other.Page", "lib/sub.py", "implementations")
    assert 4 not in lines(workspace, "lib.env.Page", "lib/sub.py", "implementations")
