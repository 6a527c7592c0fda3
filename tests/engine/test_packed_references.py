"""A file's references are stored as one packed value, found by name through the trigram
index: callers, implementations and the names a prefix query lists read them there."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.engine.index.references import count, entries, lines, names, pack, split
from sari_core.engine.index.store import IndexStore
from sari_core.models import SearchCall

BASE = "class Base:\n    def go(self):\n        pass\n"
USES = ("from base import Base\nfrom more import render_page\n\nclass Child(Base):\n"
        "    def run(self):\n        self.go()\n        render_page(1)\n        go()\n")
MORE = "def render_page(n):\n    return n\n\n\nrender_page(2)\n"


def _project(root: Path) -> None:
    (root / "base.py").write_text(BASE, encoding="utf-8")
    (root / "uses.py").write_text(USES, encoding="utf-8")
    (root / "more.py").write_text(MORE, encoding="utf-8")


@contextmanager
def _one_file(root: Path, name: str) -> Iterator[tuple[IndexStore, int]]:
    """The store of an index over ``root`` holding one small file, and that file's id."""
    (root / name).write_text("x = 1\n", encoding="utf-8")
    with Workspace([root], index_path=root / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        yield engine.store, engine.store.text_file_ids([(0, name)])[(0, name)]


def _found(engine: Workspace, kind: str, query: str) -> list[tuple[str, int]]:
    result = engine.search(SearchCall(query=query, kind=kind))  # type: ignore[arg-type]
    return [(match.path, match.line) for match in result.matches]


def test_a_value_gives_back_every_reference_it_packed() -> None:
    rows = [("go", "call", 0, 7, 7), ("render_page", "call", 0, 8, 8), ("go", "call", 0, 3, 3),
            ("Base", "implementation", 0, 4, 4), ("Ünïcode", "type", 0, 9, 9),
            ("Base", "class", 1, 1, 3)]
    definitions, packed = split(rows)
    assert definitions == [("Base", "class", 1, 1, 3)]
    assert count(packed) == 5
    assert sorted(names(packed)) == ["Base", "go", "render_page", "Ünïcode"]
    assert lines(packed, "go") == [("call", 3), ("call", 7)]
    assert lines(packed, "Base", frozenset(("call",))) == []
    assert lines(packed, "Base", frozenset(("implementation",))) == [("implementation", 4)]
    assert lines(packed, "Ünïcode") == [("type", 9)]
    assert lines(packed, "g") == [] and lines(packed, "go\x00render_page") == []
    assert sorted(entries(packed)) == sorted((name, kind, line)
                                             for name, kind, _, line, _ in rows[:5])
    assert split([("Base", "class", 1, 1, 3)]) == ([("Base", "class", 1, 1, 3)], b"")
    assert pack([]) == b"" and lines(b"", "go") == [] and count(b"") == 0


def test_callers_and_implementations_come_from_the_packed_references(tmp_path: Path) -> None:
    _project(tmp_path)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        # the symbols table holds the definitions, each file's references one value
        assert {row[0] for row in engine.store.reader.execute(
            "SELECT DISTINCT is_def FROM symbols")} == {1}
        assert engine.store.reader.execute(
            "SELECT count(*) FROM file_references").fetchone()[0] == 2
        assert _found(engine, "callers", "render_page") == [("more.py", 5), ("uses.py", 7)]
        # a name too short for a trigram is looked for in every file's references
        assert _found(engine, "callers", "go") == [("uses.py", 6)]
        assert _found(engine, "implementations", "Base") == [("uses.py", 4)]


def test_an_edit_or_a_removal_changes_what_the_references_answer(tmp_path: Path) -> None:
    _project(tmp_path)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        (tmp_path / "more.py").write_text("def render_page(n):\n    return n\n\n\n\n"
                                          "render_page(3)\n", encoding="utf-8")
        engine.indexer.refresh()
        assert _found(engine, "callers", "render_page") == [("more.py", 6), ("uses.py", 7)]
        (tmp_path / "uses.py").unlink()
        engine.indexer.refresh()
        assert _found(engine, "callers", "render_page") == [("more.py", 6)]
        assert _found(engine, "implementations", "Base") == []


def test_a_name_no_file_uses_any_more_is_not_listed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("frobnicate_alpha()\nfrobnicate_beta()\n", encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        call = SearchCall(query="frobnicate", kind="callers", match="prefix")
        assert engine.search(call).extra["names"] == ["frobnicate_beta", "frobnicate_alpha"]
        (tmp_path / "a.py").write_text("frobnicate_beta()\n", encoding="utf-8")
        engine.indexer.refresh()
        assert engine.search(call).extra["names"] == ["frobnicate_beta"]


def test_definitions_stored_again_are_exactly_the_new_ones_in_their_order(
        tmp_path: Path) -> None:
    # Rows that stay the same are not written again; the file's rows must still be the new
    # definitions, in their order, and every one found by its name.
    with _one_file(tmp_path, "m.py") as (store, file_id):
        first = [("alpha", "function", 1, 1, 2), ("Beta", "class", 1, 4, 9),
                 ("gamma_ray", "method", 1, 5, 6), ("delta", "constant", 1, 11, 11)]
        shapes = [
            first,
            [("alpha", "function", 1, 1, 3), ("Beta", "class", 1, 4, 9),  # a row moved
             ("gamma_ray", "method", 1, 5, 6), ("delta", "macro", 1, 11, 11)],  # a kind apart
            [("alpha", "function", 1, 1, 2), ("epsilon", "class", 1, 4, 9)],  # renamed, fewer
            [("zeta", "function", 1, 1, 2), ("epsilon", "class", 1, 4, 9),
             ("eta_one", "method", 1, 5, 6), ("theta", "constant", 1, 11, 11),
             ("iota", "constant", 1, 12, 12)],  # more
            [],
        ]
        for rows in shapes:
            with store.transaction() as conn:
                store.put_symbols(conn, file_id, (rows, b""))
            stored = store.reader.execute(
                "SELECT name, kind, is_def, line, end_line FROM symbols WHERE file_id = ? "
                "ORDER BY seq", (file_id,)).fetchall()
            assert stored == rows
            for name, kind, _, line, _ in rows:
                assert [(hit.kind, hit.line) for hit in store.symbols(
                    "s.folded = ? AND s.name = ?", (name.lower().replace("_", ""), name))
                        ] == [(kind, line)]
        assert store.definitions_named(["alpha", "Beta", "gamma_ray"], 10) == []
        assert store.get_meta("damaged") is None


def test_a_name_stored_by_a_transaction_rolled_back_is_listed_once_stored_again(
        tmp_path: Path) -> None:
    with _one_file(tmp_path, "a.py") as (store, file_id):
        used = split([("frobnicate_gamma", "call", 0, 1, 1)])
        try:
            with store.transaction() as conn:
                store.put_symbols(conn, file_id, used)
                raise RuntimeError("cut short")
        except RuntimeError:
            pass
        assert store.used_names(folded_from="frobnicate", folded_to="frobnicate\x7f") == []
        with store.transaction() as conn:
            store.put_symbols(conn, file_id, used)
        assert store.used_names(folded_from="frobnicate", folded_to="frobnicate\x7f") == [
            "frobnicate_gamma"]
