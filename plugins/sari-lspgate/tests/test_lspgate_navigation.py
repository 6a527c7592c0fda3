"""Exact navigation: with basedpyright running, callers and references are resolved names."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from lspgate_workspace import DiskEngine, KernelFactory, external_write, write_files

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
        precision = response["meta"].get("precision", "")
        if precision.startswith("exact:") or time.monotonic() > deadline:
            return response
        time.sleep(0.5)


def test_callers_of_a_method_are_the_calls_of_that_method_only(make_kernel: KernelFactory
                                                                ) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    # The index narrows Cart.total by what the call is made through (cart: a Cart)...
    narrowed = kernel.execute_search({"query": "Cart.total", "kind": "callers"})
    assert narrowed["meta"]["precision"] == "narrowed-by-index"
    assert [m["line"] for m in narrowed["matches"]] == [12]
    # ...and by name both `total` methods' calls are callers of `total`
    by_name = kernel.execute_search({"query": "total", "kind": "callers"})
    assert by_name["meta"]["precision"] == "narrowed-by-index"  # pooled: each judged by its class
    assert [m["line"] for m in by_name["matches"]] == [12, 16]
    response = _exact(kernel, query="Cart.total", kind="callers")
    assert response["meta"]["precision"] == "exact:basedpyright"
    # the server is asked at Cart.total alone: its call site, with its enclosing function
    hits = [(m["path"], m["line"], m["scope"], m["scope_lines"]) for m in response["matches"]]
    assert hits == [("shop/cart.py", 12, "checkout", [11, 12])]
    both = _exact(kernel, query="total", kind="callers")
    assert [m["line"] for m in both["matches"]] == [12, 16]


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
    assert response["meta"]["precision"] == "narrowed-by-index"  # defined once: as at its line


def _lines(response: dict[str, Any]) -> list[tuple[str, int]]:
    return [(m["path"], m["line"]) for m in response["matches"]]


def test_a_repeated_question_is_answered_again_until_an_edit_adds_a_caller(
        make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    first = _exact(kernel, query="total", kind="callers")
    assert _lines(first) == [("shop/cart.py", 12), ("shop/cart.py", 16)]
    assert kernel.execute_search({"query": "total", "kind": "callers"})["matches"] \
        == first["matches"]
    added = kernel.execute_mutation("edit", {
        "path": "shop/cart.py", "old_string": "def get(key",
        "new_string": "def refund(invoice: Invoice) -> int:\n    return -invoice.total()\n\n\n"
                      "def get(key"})
    assert added["ok"], added
    after = kernel.execute_search({"query": "total", "kind": "callers"})
    assert after["meta"]["precision"] == "exact:basedpyright"
    assert [(m["line"], m["scope"]) for m in after["matches"]] \
        == [(12, "checkout"), (16, "bill"), (20, "refund")]


def test_a_caller_written_outside_sari_shows_in_the_next_answer(make_kernel: KernelFactory
                                                                ) -> None:
    kernel = make_kernel(FILES, prewarm=True, ruff=False)
    assert _lines(_exact(kernel, query="total", kind="callers")) \
        == [("shop/cart.py", 12), ("shop/cart.py", 16)]
    external_write(kernel.engine, kernel.roots[0], "shop/refund.py",
                   "from shop.cart import Invoice\n\n\ndef refund(invoice: Invoice) -> int:\n"
                   "    return -invoice.total()\n")
    deadline = time.monotonic() + 60
    while True:  # the watcher reports the new file within its latency
        found = _lines(kernel.execute_search({"query": "total", "kind": "callers"}))
        if ("shop/refund.py", 5) in found or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert found == [("shop/cart.py", 12), ("shop/cart.py", 16), ("shop/refund.py", 5)]


def test_exact_answers_keep_to_the_path_glob(make_kernel: KernelFactory) -> None:
    files = {**FILES, "billing/run.py": "from shop.cart import Invoice, bill\n\n\n"
                                        "def run(invoice: Invoice) -> int:\n"
                                        "    return bill(invoice) + invoice.total()\n"}
    kernel = make_kernel(files, prewarm=True, ruff=False)
    every = _exact(kernel, query="total", kind="callers")
    assert _lines(every) == [("billing/run.py", 5), ("shop/cart.py", 12), ("shop/cart.py", 16)]
    only = kernel.execute_search({"query": "total", "kind": "callers",
                                  "path_glob": "billing/**"})
    assert only["meta"]["precision"] == "exact:basedpyright"
    assert _lines(only) == [("billing/run.py", 5)] and only["total"] == 1


def test_references_of_an_overloaded_function_are_asked_at_every_definition(
        make_kernel: KernelFactory) -> None:
    files = {"conv.py": "from typing import overload\n\n\n"
                        "@overload\ndef parse(value: int) -> int: ...\n"
                        "@overload\ndef parse(value: str) -> str: ...\n"
                        "def parse(value: int | str) -> int | str:\n    return value\n\n\n"
                        "def use() -> None:\n    parse(1)\n    parse('a')\n"}
    kernel = make_kernel(files, prewarm=True, ruff=False)
    response = _exact(kernel, query="parse", kind="references")
    # each overload and the implementation declare the same function: every declaration
    # the others are asked about is a reference, and so is each call
    assert [m["line"] for m in response["matches"]] == [5, 7, 8, 13, 14]
    assert [m.get("scope") for m in response["matches"]][-2:] == ["use", "use"]


def test_an_engine_without_an_index_has_the_server_find_the_definitions(tmp_path: Path
                                                                        ) -> None:
    from sari_lspgate import LspGatePlugin

    write_files(tmp_path, FILES)
    with Kernel(DiskEngine(tmp_path), plugins=[LspGatePlugin()], load_entry_points=False,
                settings={"lspgate": {"prewarm": True, "ruff": False}},
                analytics_sinks=[]) as kernel:
        response = _exact(kernel, query="get", kind="callers")
        assert response["meta"]["precision"] == "exact:basedpyright"
        assert [(m["line"], m["scope"]) for m in response["matches"]] == [(24, "lookup")]
