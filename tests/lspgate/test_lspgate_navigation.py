"""Exact navigation: with basedpyright running, callers and references are resolved names."""

from __future__ import annotations

import time
from typing import Any

from lspgate_workspace import KernelFactory

from sari_core import Kernel

FILES = {
    "shop/__init__.py": "",
    "shop/cart.py": '''class Cart:
    def total(self) -> int:
        return 1


class Invoice:
    def total(self) -> int:
        return 2


def checkout(cart: Cart) -> int:
    return cart.total()


def bill(invoice: Invoice) -> int:
    return invoice.total()


def get(key: str) -> int:
    return len(key)


def lookup(table: dict[str, int]) -> int:
    return table.get("a", 0) + get("a")
''',
}


def _exact(kernel: Kernel, **args: Any) -> dict[str, Any]:
    """The search once basedpyright (started in the background) answers it."""
    deadline = time.monotonic() + 120
    while True:
        response = kernel.execute_search(args)
        assert response["ok"], response
        if response["meta"]["precision"].startswith("exact:") or time.monotonic() > deadline:
            return response
        time.sleep(0.5)


def test_callers_of_a_method_are_the_calls_of_that_method_only(make_kernel: KernelFactory
                                                                ) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    # By name, both `total` methods' calls are callers of `Cart.total`...
    by_name = kernel.execute_search({"query": "Cart.total", "kind": "callers"})
    assert by_name["meta"]["precision"] == "name-based"
    assert [m["line"] for m in by_name["matches"]] == [12, 16]
    response = _exact(kernel, query="Cart.total", kind="callers")
    assert response["meta"]["precision"] == "exact:basedpyright"
    # ...the server resolves both definitions named total; each call site once, with its
    # enclosing function and lines.
    hits = [(m["path"], m["line"], m["scope"], m["scope_lines"]) for m in response["matches"]]
    assert hits == [("shop/cart.py", 12, "checkout", [11, 12]),
                    ("shop/cart.py", 16, "bill", [15, 16])]


def test_callers_of_get_leave_out_the_dict_get_calls(make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    by_name = kernel.execute_search({"query": "get", "kind": "callers"})
    assert by_name["total"] == 1 and by_name["matches"][0]["line"] == 24  # one row per line
    response = _exact(kernel, query="get", kind="callers")
    assert response["meta"]["precision"] == "exact:basedpyright"
    assert [(m["line"], m["scope"]) for m in response["matches"]] == [(24, "lookup")]
    references = _exact(kernel, query="get", kind="references")
    assert [m["line"] for m in references["matches"]] == [24]


def test_references_exclude_the_declaration_and_name_their_scope(make_kernel: KernelFactory
                                                                 ) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    response = _exact(kernel, query="Invoice", kind="references")
    assert response["meta"]["precision"] == "exact:basedpyright"
    assert [(m["line"], m.get("scope")) for m in response["matches"]] == [(15, "bill")]


def test_implementations_are_the_subclasses_not_the_class_itself(make_kernel: KernelFactory
                                                                 ) -> None:
    files = {"shapes.py": "class Shape:\n    pass\n\n\nclass Square(Shape):\n"
                          "    side = 1\n\n\n# Shape is drawn below\n"}
    kernel = make_kernel(files, prewarm=True, ruff=False)
    response = _exact(kernel, query="Shape", kind="implementations")
    assert response["meta"]["precision"] == "exact:basedpyright"
    assert [(m["line"], m["end_line"], m["symbol"]) for m in response["matches"]] \
        == [(5, 6, "Square")]


def test_navigation_off_answers_from_the_index(make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False, navigation=False)
    time.sleep(1)
    response = kernel.execute_search({"query": "Invoice", "kind": "references"})
    assert response["meta"]["precision"] == "name-based"
