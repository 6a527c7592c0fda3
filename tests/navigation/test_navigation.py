"""Outline, references, callers and implementations through the kernel, on a real index."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from git_workspace import engine_over

from sari_core.engine.index.names import matches, words
from sari_core.kernel import Kernel

FILES = {
    "shop/cart.py": '''"""Carts."""


class Store:
    def count(self) -> int:
        return 0


class Cart(Store):
    """A cart."""

    def count(self) -> int:
        return total(self.items())

    def items(self) -> list[int]:
        return []


def total(values: list[int]) -> int:
    return sum(values)
''',
    "shop/report.py": '''from shop.cart import Cart, total


def print_report(cart: Cart) -> str:
    # total is what we print
    return str(total([cart.count()]))


class Refund(Cart):
    pass
''',
    "shop/checks.py": '''from shop.cart import total


@total
def audited(values: list[int]) -> int:
    return total_of(values)
''',
    "README.md": "Call total() to add up a cart.\n",
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    engine = engine_over(tmp_path_factory.mktemp("nav") / "repo", FILES)
    engine.ensure_index(progress=False)
    with Kernel(engine, load_entry_points=False, analytics_sinks=[]) as served:
        yield served


def _search(kernel: Kernel, **args: Any) -> dict[str, Any]:
    response = kernel.execute_search(args)
    assert response["ok"], response
    return response


def test_outline_of_a_file_nests_methods_in_their_class_with_line_ranges(kernel: Kernel
                                                                           ) -> None:
    response = kernel.execute_read({"mode": "outline", "target": "shop/cart.py"})
    assert response["ok"], response
    assert response["text"].splitlines() == [
        "class Store 4-6", "  method count 5-6",
        "class Cart 9-16", "  method count 12-13", "  method items 15-16",
        "function total 19-20"]
    assert response["meta"]["precision"] == "name-based"


def test_outline_of_a_folder_lists_every_file_with_its_symbols(kernel: Kernel) -> None:
    response = kernel.execute_read({"mode": "outline", "target": "shop"})
    text = response["text"].splitlines()
    assert text[0] == "shop/cart.py" and "shop/report.py" in text
    assert "  function print_report 4-6" in text
    paged = kernel.execute_read({"mode": "outline", "target": "shop", "limit": 2})
    assert paged["text"].splitlines() == text[:2] and paged["meta"]["next_offset"] == 3


def test_callers_name_the_enclosing_definition_and_its_lines(kernel: Kernel) -> None:
    response = _search(kernel, query="total", kind="callers")
    hits = [(m["path"], m["line"], m.get("scope"), m.get("scope_lines"))
            for m in response["matches"]]
    assert hits == [("shop/cart.py", 13, "Cart.count", [12, 13]),
                    ("shop/checks.py", 4, None, None),  # decorating runs at module level
                    ("shop/report.py", 6, "print_report", [4, 6])]
    assert response["meta"]["precision"] == "narrowed-by-index"  # one definition: judged as its line is


def test_references_include_imports_not_comments_and_mark_the_definition(kernel: Kernel
                                                                          ) -> None:
    response = _search(kernel, query="total", kind="references")
    lines = {(m["path"], m["line"], m["kind"]) for m in response["matches"]}
    assert lines == {("shop/cart.py", 13, "reference"), ("shop/cart.py", 19, "definition"),
                     ("shop/checks.py", 1, "reference"), ("shop/checks.py", 4, "reference"),
                     ("shop/report.py", 1, "reference"),  # line 5 is a comment
                     ("shop/report.py", 6, "reference")}  # README.md is not source


def test_implementations_point_at_the_whole_extending_class(kernel: Kernel) -> None:
    response = _search(kernel, query="Cart", kind="implementations")
    assert [(m["path"], m["line"], m["end_line"], m["symbol"]) for m in response["matches"]] \
        == [("shop/report.py", 9, 10, "Refund")]
    store = _search(kernel, query="shop.cart.Store", kind="implementations")
    assert [m["symbol"] for m in store["matches"]] == ["Cart"]


def test_symbol_matching_is_case_and_naming_style_blind(kernel: Kernel) -> None:
    exact = _search(kernel, query="PrintReport", kind="symbol", match="exact")
    assert [m["symbol"] for m in exact["matches"]] == ["print_report"]
    prefix = _search(kernel, query="print", kind="symbol", match="prefix")
    assert [m["symbol"] for m in prefix["matches"]] == ["print_report"]
    fuzzy = _search(kernel, query="pRep", kind="symbol", match="fuzzy")
    assert [m["symbol"] for m in fuzzy["matches"]] == ["print_report"]
    assert _search(kernel, query="Report", kind="symbol", match="exact")["matches"] == []


def test_an_unknown_match_mode_is_refused_with_the_valid_ones(kernel: Kernel) -> None:
    response = kernel.execute_search({"query": "total", "kind": "callers", "match": "regex"})
    assert not response["ok"] and response["error"]["code"] == "INVALID_ARGS"
    assert "match" in response["error"]["message"]
    text = kernel.execute_search({"query": "total", "match": "prefix"})
    assert not text["ok"] and text["error"]["code"] == "INVALID_ARGS"
    assert "kind='symbol'" in text["error"]["hint"]


def test_name_words() -> None:
    assert words("parseHTTPRequest_v2") == ["parse", "http", "request", "v2"]
    assert matches("get_user", "getUser", "exact") and matches("GetUser", "get_user", "exact")
    assert matches("gUser", "get_user_name", "fuzzy")
    assert not matches("getusr", "get_user", "fuzzy")
    assert not matches("get", "getUser", "exact") and matches("get", "getUser", "prefix")


def test_outline_of_a_missing_path_is_not_found_with_a_hint(kernel: Kernel) -> None:
    response = kernel.execute_read({"mode": "outline", "target": "shop/nope.py"})
    assert not response["ok"] and response["error"]["code"] == "NOT_FOUND"
    assert response["error"]["hint"]




def test_outline_of_a_file_the_index_skips_is_parsed_on_demand(kernel: Kernel) -> None:
    root = kernel.engine.roots[0]
    (root / ".gitignore").write_text("scratch.py\n", encoding="utf-8")
    (root / "scratch.py").write_text("def draft():\n    return 1\n", encoding="utf-8")
    try:
        response = kernel.execute_read({"mode": "outline", "target": "scratch.py"})
        assert response["ok"], response
        assert response["text"] == "function draft 1-2\n"
        assert kernel.engine.store.file(0, "scratch.py") is None  # not from the index
    finally:
        (root / "scratch.py").unlink()
        (root / ".gitignore").unlink()


def test_definitions_of_a_name_are_every_indexed_definition_with_its_file(kernel: Kernel
                                                                          ) -> None:
    navigator = kernel.engine.navigator  # type: ignore[attr-defined]
    root = kernel.engine.roots[0]
    found = navigator.definitions("count", None)
    assert [(d.path, d.line, d.end_line, d.name, d.kind) for d in found] == [
        (root / "shop/cart.py", 5, 6, "count", "method"),
        (root / "shop/cart.py", 12, 13, "count", "method")]
    # a dotted name or a location names one of them
    assert [d.line for d in navigator.definitions("Cart.count", None)] == [12]
    assert [d.line for d in navigator.definitions("shop/cart.py:6", None)] == [5]
    assert {d.path.is_absolute() for d in found} == {True}
    # a match mode expands the name as search does; a name used but never defined has none
    assert [d.name for d in navigator.definitions("Tot", "prefix")] == ["total"]
    assert navigator.definitions("total_of", None) == []


HANDED_ON = '''from app.urls import url_for  # url_for is imported, not called


class View:
    def render(self, helpers):
        helpers.update(url_for=self.url_for)
        callback = self.url_for
        run_later(self.url_for, 3)
        return url_for

    def url_for(self, name):
        return name


def url_for(name):
    """Build a URL: see url_for, the helper."""
    return name
'''


def test_callers_include_a_function_handed_on_as_a_value(tmp_path) -> None:
    """A function passed or stored is called from where it lands: a language server's call
    hierarchy counts those lines, so the name-based answer must hold them too."""
    engine = engine_over(tmp_path / "repo", {"app/views.py": HANDED_ON})
    engine.ensure_index(progress=False)
    with Kernel(engine, load_entry_points=False, analytics_sinks=[]) as kernel:
        response = _search(kernel, query="url_for", kind="callers")
    assert [m["line"] for m in response["matches"]][:4] == [6, 7, 8, 9]
    assert {m.get("scope") for m in response["matches"][:4]} == {"View.render"}
