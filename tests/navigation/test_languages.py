"""Every grammar's tags find the definitions and the calls of a small, real program."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import language_of
from sari_core.engine.index.grammars import GRAMMARS
from sari_core.engine.index.symbols import extract
from sari_core.models import SearchCall

# file name, source, definitions (name, kind, first line, last line), names referenced
SAMPLES: dict[str, tuple[str, str, set[tuple[str, str, int, int]], set[str]]] = {
    "ruby": ("cart.rb", """module Shop
  class Cart
    def total(items)
      items.sum { |item| price(item) }
    end
  end
end
""", {("Shop", "module", 1, 7), ("Cart", "class", 2, 6), ("total", "method", 3, 5)},
        {"price", "sum"}),
    "php": ("cart.php", """<?php
interface Store { public function count(): int; }
class Cart implements Store {
    public function count(): int { return total(3); }
}
function total($x) { return $x; }
""", {("Store", "interface", 2, 2), ("Cart", "class", 3, 5), ("total", "function", 6, 6)},
        {"total", "Store"}),
    "csharp": ("Cart.cs", """namespace Shop {
  public interface IStore { int Count(); }
  public class Store : IStore {
    public int Count() { return Helper.Total(3); }
  }
}
""", {("IStore", "interface", 2, 2), ("Store", "class", 3, 5), ("Count", "method", 4, 4)},
        {"Total", "IStore"}),
    "kotlin": ("Cart.kt", """package shop

interface Store {
    fun count(): Int
}

class Cart(val n: Int) : Store {
    override fun count(): Int = total(n)
}

fun total(x: Int): Int = x
""", {("Store", "class", 3, 5), ("Cart", "class", 7, 9), ("count", "function", 8, 8),
      ("total", "function", 11, 11)}, {"total", "Store"}),
    "swift": ("Cart.swift", """protocol Store { func count() -> Int }
class Cart: Store {
  func count() -> Int { return total(3) }
}
func total(_ x: Int) -> Int { return x.advanced(by: 0) }
""", {("Store", "interface", 1, 1), ("Cart", "class", 2, 4), ("count", "method", 3, 3),
      ("total", "function", 5, 5)}, {"total", "advanced", "Store"}),
    "scala": ("Cart.scala", """trait Store { def count(): Int }
class Cart extends Store {
  def count(): Int = total(3)
}
object Registry { def total(x: Int): Int = x }
""", {("Store", "interface", 1, 1), ("Cart", "class", 2, 4), ("count", "function", 3, 3),
      ("Registry", "object", 5, 5)}, {"total", "Store"}),
    "lua": ("cart.lua", """local function total(x)
  return x
end
function Cart:count()
  return total(3)
end
""", {("total", "function", 1, 3), ("count", "method", 4, 6)}, {"total"}),
    "shell": ("deploy.sh", """build() {
  echo building
}
function deploy {
  build
}
deploy "$@"
""", {("build", "function", 1, 3), ("deploy", "function", 4, 6)}, {"build", "deploy"}),
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_tags_find_definitions_with_their_lines_and_references(language: str) -> None:
    file_name, source, definitions, references = SAMPLES[language]
    assert language_of(file_name) == language
    rows = extract(language, source.encode())
    found = {(name, kind, line, end) for name, kind, is_def, line, end in rows if is_def}
    assert definitions <= found, f"missing: {definitions - found}"
    referenced = {name for name, _, is_def, _, _ in rows if not is_def}
    assert references <= referenced, f"missing references: {references - referenced}"


def test_every_grammar_loads_with_its_queries() -> None:
    for language in GRAMMARS:
        assert extract(language, b"\n") == [], language  # parses; no symbols in a blank file


def test_new_languages_are_searchable_symbols_in_a_workspace(tmp_path: Path) -> None:
    for file_name, source, _, _ in SAMPLES.values():
        (tmp_path / file_name).write_text(source, encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path.parent / "index.sqlite") as workspace:
        workspace.ensure_index(progress=False)
        result = workspace.search(SearchCall(query="deploy", kind="symbol"))
        assert [(m.path, m.line, m.end_line) for m in result.matches] == [("deploy.sh", 4, 6)]
        kotlin = workspace.search(SearchCall(query="Cart", kind="symbol", path_glob="*.kt"))
        assert [(m.path, m.line) for m in kotlin.matches] == [("Cart.kt", 7)]
