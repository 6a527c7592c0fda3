"""A case-insensitive literal search finds an ASCII query however its letters are cased,
including where a text spells a letter with a non-ASCII sign that folds to it."""

from __future__ import annotations

from pathlib import Path

from sari_core.engine import Workspace
from sari_core.models import SearchCall


def test_an_ascii_literal_is_found_in_any_case_and_through_letters_that_fold_to_it(
        tmp_path: Path) -> None:
    (tmp_path / "upper.py").write_text("HANDLER_KIND = 1\n", encoding="utf-8")
    (tmp_path / "kelvin.py").write_text("handler_\u212aind = 2\n", encoding="utf-8")  # Kelvin sign
    (tmp_path / "other.py").write_text("handler = 3\n", encoding="utf-8")
    with Workspace([tmp_path]) as engine:
        engine.ensure_index(progress=False)
        found = engine.search(SearchCall(query="handler_kind", kind="text"))
        paths = sorted({match.path for match in found.matches})
    assert paths == ["kelvin.py", "upper.py"]
