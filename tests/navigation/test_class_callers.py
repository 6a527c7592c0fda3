"""A class's callers construct it; a base-class list or an argument handing it on does not
call it, whether the class is asked by name, by ``module.Class`` or by ``path:line``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.models import SearchCall

PYTHON = """class Cart:
    pass


class Refund(Cart):
    pass


register(Cart)
items = Cart()
kinds = [Cart, Refund]
"""

JAVASCRIPT = """class Base {}
class Child extends Base {}
use(Base);
const made = new Base();
"""


@pytest.fixture
def workspace(tmp_path: Path):
    root = tmp_path / "src"
    root.mkdir()
    (root / "shop.py").write_text(PYTHON, encoding="utf-8")
    (root / "shapes.js").write_text(JAVASCRIPT, encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as opened:
        opened.ensure_index(progress=False)
        yield opened


@pytest.mark.parametrize(("queries", "expected"), [
    (("Cart", "shop.Cart", "shop.py:1"), [("shop.py", 10)]),
    (("Base", "shapes.js:1"), [("shapes.js", 4)]),
])
def test_a_class_is_called_where_it_is_constructed(workspace: Workspace,
                                                   queries: tuple[str, ...],
                                                   expected: list[tuple[str, int]]) -> None:
    for query in queries:
        result = workspace.search(SearchCall(query=query, kind="callers"))
        assert [(m.path, m.line) for m in result.matches] == expected, query
