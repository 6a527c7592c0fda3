"""Index-only narrowing: ``api.table().x`` is typed by the return annotation of the
workspace module's function (not an installed module's function of the same name), and a
one-letter variable is not taken for a class by the letters of its name; an f-string's
field after ``return`` is code."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "kit/__init__.py": "",
    "kit/items.py": (
        "class AoT:\n"                                           # 1
        "    def as_string(self):\n"                             # 2
        "        return ''\n"                                    # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "class Table:\n"                                         # 6
        "    def as_string(self):\n"                             # 7
        "        return ''\n"                                    # 8
        "\n"                                                     # 9
        "    def __repr__(self):\n"                              # 10
        "        return f\"<Table {self.as_string()}>\"\n"),      # 11
    "kit/api.py": (
        "from kit.items import Table\n"                          # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def table() -> Table:\n"                                # 4
        "    return Table()\n"                                   # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "def loads(text) -> Table:\n"                            # 8
        "    return Table()\n"),                                 # 9
    "tests/test_api.py": (
        "import pickle\n"                                        # 1
        "\n"                                                     # 2
        "from kit import api\n"                                  # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "def test_table(t):\n"                                   # 6
        "    assert t.as_string() == ''\n"                       # 7
        "    table = api.table()\n"                              # 8
        "    assert table.as_string() == ''\n"                   # 9
        "    assert api.loads('').as_string() == ''\n"           # 10
        "    assert pickle.loads(b'').as_string() == ''\n"),     # 11
}


workspace = module_workspace(FILES)


def test_a_workspace_module_s_function_types_what_it_returns(workspace: Workspace) -> None:
    table = usage_lines(workspace, "kit/items.py:7")
    assert {("tests/test_api.py", 9), ("tests/test_api.py", 10)} <= table
    assert ("tests/test_api.py", 11) not in table  # pickle's loads, not kit.api's
    assert not usage_lines(workspace, "kit/items.py:2") & {
        ("tests/test_api.py", 9), ("tests/test_api.py", 10)}


def test_a_one_letter_variable_is_named_like_no_class(workspace: Workspace) -> None:
    # ``t`` shares a letter with ``AoT``: no more a sign of its class than of any other
    assert ("tests/test_api.py", 7) not in usage_lines(workspace, "kit/items.py:2")


def test_an_f_string_s_field_after_a_keyword_is_code(workspace: Workspace) -> None:
    # return f"...": the f is the string's prefix, though a word ends just before it
    assert ("kit/items.py", 11) in usage_lines(workspace, "kit/items.py:7")
