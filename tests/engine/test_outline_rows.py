"""Outline rows, both ways: what the engine writes is what a policy reads back."""

from __future__ import annotations

from sari_core.engine import Workspace
from sari_core.models import ReadCall
from sari_core.outline_rows import OutlineRow, parse_row, row_text


def test_a_row_reads_back_as_the_definition_it_was_written_from() -> None:
    for row in (OutlineRow("function", "dumps", 183, 238), OutlineRow("method", "get", 7, 7, 2),
                OutlineRow("constant", "__all__", 12, 15, 0)):
        assert parse_row(row_text(row.kind, row.name, row.first, row.last, row.depth)) == row
    assert row_text("method", "get", 7, 7, 2) == "    method get 7"


def test_rows_that_name_no_definition_read_as_none() -> None:
    for row in ("pkg/module.py", "", "  ", "function broken 10-x"):
        assert parse_row(row) is None


def test_an_engine_outline_parses_row_by_row(tmp_path) -> None:
    (tmp_path / "a.py").write_text(
        "X = 1\n\n\nclass Box:\n    def open(self):\n        return 1\n", encoding="utf-8")
    engine = Workspace([tmp_path])
    try:
        text = engine.read(ReadCall(mode="outline", target="a.py")).text
    finally:
        engine.close()
    assert [parse_row(row) for row in text.splitlines()] == [
        OutlineRow("constant", "X", 1, 1), OutlineRow("class", "Box", 4, 6),
        OutlineRow("method", "open", 5, 6, 1)]
