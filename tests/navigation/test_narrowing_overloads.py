"""Index-only narrowing: an ``@overload`` function's signatures and implementation are one
symbol; a module importing a name hands it on (``api.item``, ``import item as _item``);
a quote or ``#`` inside a one-line string opens no docstring, and a trailing comment
naming a function uses nothing; a data folder named like a standard module is no package."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace
from sari_core.engine.python.code_text import in_prose, prose_spans
from sari_core.engine.python.symbol_target import resolve
from sari_core.models import SearchCall

FILES = {
    "kit/__init__.py": "",
    "kit/items.py": (
        "from typing import overload\n"                          # 1
        "\n"                                                     # 2
        "QUOTES = '\"\"\"'\n"                                    # 3
        "\n"                                                     # 4
        "\n"                                                     # 5
        "@overload\n"                                            # 6
        "def item(value: int) -> int: ...\n"                     # 7
        "\n"                                                     # 8
        "\n"                                                     # 9
        "@overload\n"                                            # 10
        "def item(value: str) -> str: ...\n"                     # 11
        "\n"                                                     # 12
        "\n"                                                     # 13
        "def item(value):\n"                                     # 14
        "    return value\n"                                     # 15
        "\n"                                                     # 16
        "\n"                                                     # 17
        "class Item:\n"                                          # 18
        '    """An item of a document."""\n'                     # 19
        "\n"                                                     # 20
        "    def value(self):\n"                                 # 21
        "        return item(1)  # item is called here\n"       # 22
        "\n"                                                     # 23
        "\n"                                                     # 24
        "def timestamp():\n"                                     # 25
        "    return 0\n"),                                       # 26
    "kit/api.py": "from kit.items import item\nfrom kit.items import timestamp\n",
    "kit/container.py": (
        "from kit.items import item as _item\n"                  # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def wrap(value):\n"                                     # 4
        "    return _item(value)\n"),                            # 5
    "tests/test_items.py": (
        "from kit import api\n"                                  # 1
        "from timestamp import parse\n"                          # 2
        "\n"                                                     # 3
        "\n"                                                     # 4
        "def test_item():\n"                                     # 5
        "    assert api.item(3) == 3\n"                          # 6
        "    assert api.timestamp() == parse('0')\n"),           # 7
    "tests/data/timestamp/valid.toml": "a = 1979-05-27\n",
}


workspace = module_workspace(FILES)


def test_an_overload_asked_at_one_signature_is_the_whole_function(workspace: Workspace) -> None:
    for line in (7, 11, 14):
        target = resolve(workspace.store, f"kit/items.py:{line}")
        assert sorted(n.row.line for n in target.chosen) == [7, 11, 14]
    result = workspace.search(SearchCall(query="kit/items.py:7", kind="references", limit=50))
    lines = {(m.path, m.line, m.kind) for m in result.matches}
    # the other signatures are definitions of the same function, a type checker lists them
    assert {("kit/items.py", 11, "definition"), ("kit/items.py", 14, "definition"),
            ("kit/items.py", 22, "reference")} <= lines


def test_a_module_importing_a_function_hands_it_on(workspace: Workspace) -> None:
    found = usage_lines(workspace, "kit/items.py:14")
    assert ("tests/test_items.py", 6) in found  # api.item: api imports it from kit.items
    assert ("kit/container.py", 1) in found  # imported under another name
    assert ("kit/api.py", 1) in found
    assert usage_lines(workspace, "kit/items.py:14", "callers") >= {
        ("tests/test_items.py", 6), ("kit/items.py", 22)}


def test_docstrings_after_a_string_of_quotes_and_trailing_comments_are_prose(
        workspace: Workspace) -> None:
    found = usage_lines(workspace, "kit/items.py:14")
    assert ("kit/items.py", 19) not in found  # "An item of a document."
    text = FILES["kit/items.py"]
    spans = prose_spans(text)
    assert in_prose(spans, 19, text.split("\n")[18].index("item"))
    assert not in_prose(spans, 22, text.split("\n")[21].index("item"))
    assert in_prose(spans, 22, text.split("\n")[21].rindex("item"))
    assert not in_prose(spans, 3, 0)


def test_a_data_folder_named_like_a_module_is_no_package(workspace: Workspace) -> None:
    # ``from timestamp import parse`` imports an installed module: tests/data/timestamp/
    # holds no Python file, so it is not the workspace's
    found = usage_lines(workspace, "kit/items.py:25")
    assert ("tests/test_items.py", 2) not in found
    assert ("tests/test_items.py", 7) in found


def test_a_server_is_asked_at_the_signature_named_alone(workspace: Workspace) -> None:
    # at kit/items.py:7 a language server answers for the whole function; asked at the
    # other signatures as well, its answer would hold line 7 itself (no declaration)
    asked = workspace.navigator.definitions("kit/items.py:7", None)
    assert [d.line for d in asked] == [7]
    assert sorted(d.line for d in workspace.navigator.definitions("items.item", None)) \
        == [7, 11, 14]
