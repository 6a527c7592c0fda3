"""A definition comes first in the default search however many mentions precede it."""

from __future__ import annotations

from pathlib import Path

from sari_core.engine import Workspace
from sari_core.models import SearchCall


def test_a_definition_after_many_mentions_is_the_first_answer(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    mentions = "".join(f"    // relay to TreeNode methods, case {n}\n" for n in range(40))
    (root / "HashMap.java").write_text(
        "public class HashMap {\n" + mentions
        + "    static final class TreeNode {\n        int hash;\n    }\n}\n", encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as workspace:
        workspace.ensure_index(progress=False)
        first = workspace.search(SearchCall(query="TreeNode")).matches[0]
    assert (first.path, first.line, first.kind) == ("HashMap.java", 42, "definition")
