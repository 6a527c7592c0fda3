"""A name's definition is found however many times its file mentions the name first."""

from __future__ import annotations

import pytest
from indexed_files import indexed

from sari_core.arguments import parse_search


def test_a_class_mentioned_many_times_before_its_definition_is_still_its_definition(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    mentions = "".join(f"# Widget note {n}: a Widget is drawn once.\n" for n in range(40))
    files = {
        "lib/widget.py": mentions + "\n\nclass Widget:\n    pass\n",
        "docs/conf.py": "widget = 'the docs widget'\n",
    }
    with indexed(tmp_path_factory.mktemp("mentions").resolve(), files) as engine:
        first = engine.search(parse_search({"query": "Widget"})).matches[0]
        assert (first.path, first.line, first.kind) == ("lib/widget.py", 43, "definition")
