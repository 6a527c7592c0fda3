"""A navigation search that runs out of its work budget says its answer is partial, as a
text search does, instead of answering with fewer uses in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.search import work_budget
from sari_core.models import SearchCall


def _tree(root: Path) -> None:
    (root / "model.py").write_text(
        "class Item:\n    @property\n    def label(self):\n        return 'x'\n",
        encoding="utf-8")
    for n in range(6):
        (root / f"use{n}.py").write_text(
            f"from model import Item\n\n\ndef show_{n}(item: Item):\n"
            f"    return item.label + Item().label\n", encoding="utf-8")


def test_a_navigation_search_stopped_by_its_budget_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    _tree(root)
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        whole = engine.search(SearchCall(query="Item.label", kind="callers"))
        assert whole.total >= 6
        assert not any(note.startswith("Partial") for note in whole.notes)

        def stingy(budget: work_budget.WorkBudget, scanned: int = 0) -> bool:
            budget.stopped = "its deadline"
            return False

        monkeypatch.setattr(work_budget.WorkBudget, "spend", stingy)
        cut = engine.search(SearchCall(query="Item.label", kind="callers"))
        assert cut.total < whole.total
        assert any(note.startswith("Partial callers") for note in cut.notes)
        assert cut.truncated
