"""Symbol search by name: the definitions of that name first, then names that start with it;
names that merely contain it only when nothing is or starts with it, and then said so."""

from __future__ import annotations

from pathlib import Path

import pytest
from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.kernel import Kernel
from sari_core.models import SearchCall
from sari_core.rendering import render

FILES = {
    "src/attr/_make.py": "def fields(cls):\n    return cls\n\n\n"
                         "def fields_dict(cls):\n    return {}\n",
    "src/attr/filters.py": "def include_fields(*what):\n    return what\n",
    "tests/test_make.py": "class TestFields:\n    def test_fields(self):\n        pass\n\n\n"
                          "def fields(cls):\n    return cls\n\n\n"
                          "def test_fields_properties():\n    pass\n",
    "lib/site-packages/other/api.py": "def fields(obj):\n    return obj\n",
}


workspace = module_workspace(FILES)


def found(workspace: Workspace, query: str, **args: object) -> list[tuple[str, str]]:
    result = workspace.search(SearchCall(query=query, kind="symbol", **args))
    return [(str(match.symbol), match.path) for match in result.matches]


@pytest.mark.parametrize("query", ["def fields", "fields", "fields(", "attr.fields"])
def test_a_name_finds_its_definitions_then_names_starting_with_it(workspace: Workspace,
                                                                  query: str) -> None:
    assert found(workspace, query) == [
        ("fields", "src/attr/_make.py"),  # own code first
        ("fields", "tests/test_make.py"),  # then tests
        ("fields", "lib/site-packages/other/api.py"),  # then third-party code
        ("fields_dict", "src/attr/_make.py"),  # a name starting with it, after every exact one
    ]
    result = workspace.search(SearchCall(query=query, kind="symbol"))
    assert result.total == 4 and not result.truncated and result.notes == []


def test_names_only_containing_the_query_come_when_nothing_else_does(workspace: Workspace
                                                                     ) -> None:
    result = workspace.search(SearchCall(query="def ields", kind="symbol"))
    assert {match.symbol for match in result.matches} == {
        "fields", "fields_dict", "include_fields", "TestFields", "test_fields",
        "test_fields_properties"}
    assert result.notes == ["Nothing is named or starts with ields; these names resemble it."]
    assert workspace.search(SearchCall(query="nothing_like_it", kind="symbol")).notes == []


def test_explicit_match_modes_keep_their_meaning(workspace: Workspace) -> None:
    assert {name for name, _ in found(workspace, "fields", match="exact")} == {"fields"}
    assert {name for name, _ in found(workspace, "fields", match="prefix")} == \
        {"fields", "fields_dict"}
    fuzzy = {name for name, _ in found(workspace, "fields", match="fuzzy", limit=20)}
    assert {"include_fields", "TestFields", "test_fields_properties"} <= fuzzy
    # an explicit mode never falls back, and says nothing
    exact = workspace.search(SearchCall(query="ields", kind="symbol", match="exact"))
    assert exact.matches == [] and exact.notes == []


def test_the_model_is_told_in_one_phrase_when_names_only_resemble(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def get_fields():\n    pass\n", encoding="utf-8")
    with Kernel(Workspace([tmp_path]), plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        similar = render(kernel.execute_search({"query": "def fields", "kind": "symbol"}))
        named = render(kernel.execute_search({"query": "def get_fields", "kind": "symbol"}))
    assert similar.splitlines()[0] == ('1 match for "def fields" (symbol). Nothing is named or '
                                       "starts with fields; these names resemble it.")
    assert "a.py" in similar and "resemble" not in named


def test_an_implementation_ranks_before_its_type_stub(tmp_path: Path) -> None:
    """The agent that searched for a definition wants its body, not the stub's signature."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.pyi").write_text(
        "def fields(cls: type) -> tuple: ...\n", encoding="utf-8")
    (tmp_path / "pkg" / "_make.py").write_text(
        "def fields(cls):\n    return cls.__attrs_attrs__\n", encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], plugins=[], load_entry_points=False, analytics_sinks=[])
    try:
        for kind in ("text", "symbol"):
            found = kernel.execute_search({"query": "def fields", "kind": kind})
            assert [m["path"] for m in found["matches"]] == [
                "pkg/_make.py", "pkg/__init__.pyi"], kind
    finally:
        kernel.close()


def test_the_stored_folded_names_take_shortcuts_to_the_same_answer() -> None:
    # Most names are ASCII letters, digits and underscores: their folded form is found
    # without splitting them into words, and must be the one the words give.
    from sari_core.engine.index.names import folded_name
    from sari_core.engine.index.store import _folded_apart  # pyright: ignore[reportPrivateUsage]

    names = ["get_user", "HTTPAdapter", "parse", "__init__", "_", "__", "x1", "A_B_c2",
             "snake_case_9", "café", "naïve_name", "$scope", "a-b", "get$", "ÄÖ", "Straße",
             "Ǆx", "K_elvin", "__version__", "v2_HTTPRequest_Builder", "ﬁle", "x·y"]
    names += [name for name in dir(__builtins__) if isinstance(name, str)]
    for name in names:
        folded = folded_name(name)
        expected = None if name.isascii() and folded == name.lower() else folded
        assert _folded_apart(name) == expected, name


def test_a_name_nothing_defines_is_answered_without_reading_every_definition(
        tmp_path: Path) -> None:
    """The fallback to resembling names first asks the trigram index which files hold the
    query's first word: a name nothing defines reads no definition, and a resembling name
    spelled another way (snake_case against camelCase) is still found."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for number in range(60):
        (tree / f"mod{number}.py").write_text("".join(
            f"def handler_{number}_{index}(value):\n    return value\n\n" for index in range(50)))
    (tree / "users.py").write_text("def getUserNameFor(user):\n    return user\n")
    with Workspace([tree], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        steps = [0]

        def count() -> int:
            steps[0] += 1
            return 0

        engine.store.reader.set_progress_handler(count, 100)
        missing = engine.search(SearchCall(query="FrobnicateWidgetFactory", kind="symbol"))
        missing_steps, steps[0] = steps[0], 0
        engine.search(SearchCall(query="handler", kind="symbol", match="prefix"))
        prefix_steps = steps[0]
        found = engine.search(SearchCall(query="user_name", kind="symbol"))
    assert missing.total == 0 and [match.path for match in found.matches] == ["users.py"]
    # (the prefix search reads its 3,000 definitions; the missing name none of them)
    assert missing_steps * 10 < prefix_steps
