"""A literal in very many files: its best matches and a bounded count, said plainly."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.search import search
from sari_core.engine.search.hit_ranking import file_order
from sari_core.engine.search.text_match import FileHit
from sari_core.models import SearchCall


def _tree(root: Path) -> None:
    for n in range(30):
        folder = root / ("tests" if n % 3 == 0 else "pkg") / f"m{n:02d}"
        folder.mkdir(parents=True)
        (folder / "mod.py").write_text(f"from typing import Any\n\n\ndef f{n}(x: Any):\n"
                                       "    return x\n", encoding="utf-8")
    (root / "pkg" / "nothing.py").write_text("from typing_extensions import Self\n",
                                             encoding="utf-8")
    (root / "README.md").write_text("Uses from typing import a lot.\n", encoding="utf-8")


@pytest.mark.parametrize(("literal", "bound"), [
    (True, "COUNT_FILES_AT_MOST"), (False, "COUNT_FILES_AT_MOST"), (True, "COUNT_BYTES_AT_MOST")])
def test_a_common_literal_is_counted_up_to_a_bound_and_its_best_matches_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, literal: bool, bound: str) -> None:
    _tree(tmp_path)
    call = SearchCall(query="from typing import", literal=literal, limit=3)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        full = engine.search(call)
        assert full.total == 31 and not full.extra.get("total_at_least")
        monkeypatch.setattr(search, bound, 8 if bound == "COUNT_FILES_AT_MOST" else 400)
        bounded = engine.search(call)
    assert [(m.path, m.line) for m in bounded.matches] == [(m.path, m.line)
                                                           for m in full.matches]
    # the bound reached, then on until enough files for the hits were found
    assert 6 <= bounded.total < 31
    assert bounded.extra["total_at_least"] is True
    assert any(f"At least {bounded.total:,} files contain" in note and "of the 31 files that may"
               in note for note in bounded.notes)
    assert bounded.truncated


def test_an_uncommon_literal_is_counted_exactly(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.setattr(search, "COUNT_FILES_AT_MOST", 8)
    monkeypatch.setattr(search, "COUNT_BYTES_AT_MOST", 400)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        result = engine.search(SearchCall(query="typing_extensions", literal=True))
    assert result.total == 1 and not result.notes and "total_at_least" not in result.extra


@pytest.mark.parametrize("path", ["pkg/mod.py", "tests/test_x.py", "a/b/c/site-packages/x.py",
                                  "node_modules/q/index.d.ts", "FROM_TYPING.md"])
def test_the_remembered_file_order_is_file_order(path: str) -> None:
    hit = FileHit(1, 0, path)
    for defines in (True, False):
        for needle, case_sensitive in (("from_typing", False), ("FROM", True), ("x", False)):
            assert search.order_key(hit, defines, needle, case_sensitive) == \
                file_order(hit, defines, needle, case_sensitive)
