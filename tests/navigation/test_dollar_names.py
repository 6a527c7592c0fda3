"""Names spelled with `$` are names in every search kind, and a definition asked by
name or by `path:line` outside Python gets the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.models import SearchCall

CORE = """export function $constructor(name: string, init: unknown) {
  return { name, init };
}
"""

SCHEMAS = """import { $constructor } from "./core";

// $constructor builds every schema class below.
export const $ZodString = $constructor("$ZodString", (inst) => inst);
export const $ZodNumber = $constructor("$ZodNumber", (inst) => inst);
export const $ZodDiscriminatedUnion = $constructor("$ZodDiscriminatedUnion", (inst) => inst);

export function wrap() {
  return $ZodDiscriminatedUnion;
}
"""


@pytest.fixture
def workspace(tmp_path: Path):
    root = tmp_path / "zod"
    root.mkdir()
    (root / "core.ts").write_text(CORE, encoding="utf-8")
    (root / "schemas.ts").write_text(SCHEMAS, encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as opened:
        opened.ensure_index(progress=False)
        yield opened


@pytest.mark.parametrize(("query", "where"), [("$constructor", ("core.ts", 1)),
                                              ("$ZodDiscriminatedUnion", ("schemas.ts", 6))])
def test_the_default_search_answers_a_dollar_name_with_its_definition(
        workspace: Workspace, query: str, where: tuple[str, int]) -> None:
    result = workspace.search(SearchCall(query=query))
    first = result.matches[0]
    assert ((first.path, first.line), first.kind) == (where, "definition")
    assert not any("Nothing here defines" in note for note in result.notes)


def test_symbol_and_navigation_kinds_take_dollar_names(workspace: Workspace) -> None:
    symbol = workspace.search(SearchCall(query="$constructor", kind="symbol"))
    assert [(m.path, m.line) for m in symbol.matches] == [("core.ts", 1)]
    callers = workspace.search(SearchCall(query="$constructor", kind="callers"))
    assert [(m.path, m.line) for m in callers.matches] == [
        ("schemas.ts", 4), ("schemas.ts", 5), ("schemas.ts", 6)]
    by_place = workspace.search(SearchCall(query="core.ts:1", kind="references"))
    by_name = workspace.search(SearchCall(query="$constructor", kind="references"))
    assert [(m.path, m.line) for m in by_place.matches] \
        == [(m.path, m.line) for m in by_name.matches] \
        == [("core.ts", 1), ("schemas.ts", 1), ("schemas.ts", 4), ("schemas.ts", 5),
            ("schemas.ts", 6)]


def test_a_go_method_asked_at_its_line_keeps_the_calls_its_name_keeps(tmp_path: Path) -> None:
    root = tmp_path / "go"
    root.mkdir()
    (root / "reader.go").write_text(
        "package p\n\ntype Reader struct{}\n\nfunc (r *Reader) Close() error { return nil }\n\n"
        "func use(r *Reader) { r.Close() }\n", encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as workspace:
        workspace.ensure_index(progress=False)
        for kind in ("references", "callers"):
            by_place = workspace.search(SearchCall(query="reader.go:5", kind=kind))
            by_name = workspace.search(SearchCall(query="Close", kind=kind))
            assert [(m.path, m.line) for m in by_place.matches] \
                == [(m.path, m.line) for m in by_name.matches], kind
            assert ("reader.go", 7) in [(m.path, m.line) for m in by_place.matches]
