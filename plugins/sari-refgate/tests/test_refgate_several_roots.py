"""With several roots, a read spelled without its root's prefix still follows its search."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core import Kernel
from sari_core.testing import Kernels
from sari_refgate import RefgatePlugin

CART = "def total(items):\n    return sum(items)\n" + "".join(
    f"VALUE_{n} = {n}\n" for n in range(300))


@pytest.fixture
def kernel(tmp_path: Path, kernels: Kernels) -> Kernel:
    """A strict gate over a project "shop" holding a package "shop", served beside a second
    root: responses name its file shop/shop/cart.py, and a client working in the project
    reads shop/cart.py."""
    shop, other = tmp_path / "shop", tmp_path / "other"
    (shop / "shop").mkdir(parents=True)
    other.mkdir()
    (shop / "shop" / "cart.py").write_text(CART)
    (other / "notes.py").write_text("NOTE = 1\n")
    return kernels.build(None, [RefgatePlugin()], {"refgate": {"strict": True}},
                         roots=[shop, other])


def test_a_read_spelled_from_the_project_follows_the_search_that_named_it_with_the_prefix(
        kernel: Kernel) -> None:
    found = kernel.execute_search({"query": "def total"})
    assert [match["path"] for match in found["matches"]] == ["shop/shop/cart.py"]

    read = kernel.execute_read({"mode": "file", "target": "shop/cart.py"})
    assert read["ok"], read.get("error")
    assert read["target"] == "shop/shop/cart.py"  # the name the search used, for next time
    assert read["text"].startswith("def total(items):")


def test_a_file_no_search_returned_is_still_refused_under_either_spelling(
        kernel: Kernel) -> None:
    kernel.execute_search({"query": "NOTE"})  # a search that does not return the cart
    for spelling in ("shop/cart.py", "shop/shop/cart.py"):
        read = kernel.execute_read({"mode": "file", "target": spelling})
        assert not read["ok"]
        assert read["error"]["code"] == "SEARCH_REF_REQUIRED"
        assert "shop/shop/cart.py" in read["error"]["message"]
