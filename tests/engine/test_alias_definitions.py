"""A name bound again from its own definition elsewhere (``x = wrap(x)``, ``x = mod.x``)
ranks after that definition: the agent asking for the name wants its body."""

from __future__ import annotations

import pytest
from indexed_files import indexed

from sari_core.arguments import parse_search


@pytest.mark.parametrize("alias", [
    "from lib import shapes\n\ndraw_polygon = shapes.traced(shapes.draw_polygon)\n",
    "from lib import shapes\n\ndraw_polygon = shapes.draw_polygon\n",
    "from lib import shapes as _shapes\n\ndraw_polygon: object = _shapes.draw_polygon\n",
])
def test_a_name_wrapped_in_another_module_finds_its_definition_first(
        tmp_path_factory: pytest.TempPathFactory, alias: str) -> None:
    files = {
        # The alias's path sorts first, so only the ranking can put the definition above it.
        "lib/a_wrapped.py": alias,
        "lib/shapes.py": "def traced(f):\n    return f\n\n\n"
                         "def draw_polygon(points):\n    return list(points)\n",
    }
    with indexed(tmp_path_factory.mktemp("alias").resolve(), files) as engine:
        matches = engine.search(parse_search({"query": "draw_polygon"})).matches
        assert (matches[0].path, matches[0].line) == ("lib/shapes.py", 5)
        assert matches[1].path == "lib/a_wrapped.py"


def test_a_name_defined_only_by_assignment_is_still_first(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    files = {
        "lib/a_settings.py": "LINE_WIDTH = settings_value('LINE_WIDTH', 2)\n",
        "lib/b_draw.py": "from lib.a_settings import LINE_WIDTH\n\n"
                         "def stroke():\n    return LINE_WIDTH\n",
    }
    with indexed(tmp_path_factory.mktemp("assigned").resolve(), files) as engine:
        first = engine.search(parse_search({"query": "LINE_WIDTH"})).matches[0]
        assert (first.path, first.line, first.kind) == ("lib/a_settings.py", 1, "definition")
