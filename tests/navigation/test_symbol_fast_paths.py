"""The index workers' shortcuts give what the plain way gives, over real source files.

Symbol extraction reads each tags pattern's role once per query (the pattern's one
``@definition.*`` / ``@reference.*`` capture) instead of searching every match's captures
for it; these tests run both ways over every grammar's sample program and over real
Python modules (this package's and the standard library's) and compare every row.
"""

from __future__ import annotations

import dataclasses
import sysconfig
from pathlib import Path

import pytest
from test_languages import SAMPLES

from sari_core.engine.files.textfile import language_of
from sari_core.engine.index import symbols
from sari_core.engine.index.grammars import GRAMMARS

# Programs in the languages the samples of test_languages leave out.
OTHER_SOURCES: dict[str, str] = {
    "javascript": "function renderPage(items) {\n  return items.map(formatItem);\n}\n"
                  "class Widget extends Base {\n  draw() { renderPage([]); this.x.y(); }\n}\n"
                  "const make = () => new Widget();\n",
    "typescript": "interface Shape { area(): number }\ntype Id = string;\n"
                  "enum Mode { A, B }\nabstract class Square implements Shape {\n"
                  "  area(): number { return size(this); }\n}\n"
                  "function makeShape(size: number): Shape { return new Square(size); }\n",
    "tsx": "function View() { return <div>{makeShape(2)}</div>; }\n"
           "export const Panel = (p: Props) => <View {...p} />;\n",
    "go": "package main\n\nimport \"fmt\"\n\nvar count = 1\n\nconst limit = 2\n\n"
          "type Server struct{ n int }\n\ntype Runner interface{ Run() }\n\n"
          "// Serve serves.\nfunc Serve() {\n\tListen()\n\tfmt.Println(count)\n}\n\n"
          "func (s *Server) Run() { s.helper() }\n",
    "rust": "pub struct Engine;\n\npub trait Start { fn start(&self); }\n\n"
            "impl Start for Engine {\n    fn start(&self) { boot(); }\n}\n\n"
            "pub fn boot() { Engine.start(); let v = Vec::new(); }\nmacro_rules! m { () => {} }\n",
    "java": "interface Runner { void run(); }\nclass App implements Runner {\n"
            "  public void run() { launch(); new App(); }\n}\n",
    "c": "struct Point { int x; int y; };\ntypedef int number;\n"
         "int add_numbers(int a, int b)\n{\n  return helper(a) + b;\n}\n",
    "cpp": "namespace shop {\nclass Thing {\n public:\n  void spin();\n};\n}\n\n"
           "void shop::Thing::spin() {\n  turn(1);\n}\n",
}
PACKAGE = Path(symbols.__file__).resolve().parents[1]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _real_files() -> list[tuple[str, bytes]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    for folder in ("json", "asyncio", "email", "importlib", "unittest"):
        paths += sorted((STDLIB / folder).rglob("*.py"))
    out = [(language, path.read_bytes()) for path in paths
           if (language := language_of(path.name)) is not None]
    out += [(language, source.encode()) for language, (_, source, _, _) in SAMPLES.items()]
    out += [(language, source.encode()) for language, source in OTHER_SOURCES.items()]
    return out


def _reading_every_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make extraction find each match's role among its captures (no per-pattern table)."""
    real = symbols.toolkit

    def without_roles(language: str) -> symbols.Toolkit | None:
        kit = real(language)
        return None if kit is None else dataclasses.replace(kit, roles=(None,) * len(kit.roles))

    monkeypatch.setattr(symbols, "toolkit", without_roles)


def test_each_pattern_names_one_role_read_from_its_text() -> None:
    for language in GRAMMARS:
        kit = symbols.toolkit(language)
        assert kit is not None, language
        assert len(kit.roles) == kit.query.pattern_count
        assert any(kit.roles), f"{language}: no pattern's role was read"
        for role in filter(None, kit.roles):
            capture, kind, is_definition = role
            assert capture == ("definition." if is_definition else "reference.") + kind


def test_rows_read_through_the_pattern_table_equal_those_read_match_by_match(
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = _real_files()
    assert len({language for language, _ in files}) == len(GRAMMARS)
    fast = [symbols.extract(language, data) for language, data in files]
    _reading_every_match(monkeypatch)
    plain = [symbols.extract(language, data) for language, data in files]
    assert sum(map(len, plain)) > 10_000  # a real corpus, not a handful of rows
    assert fast == plain


def test_a_name_over_200_characters_is_no_symbol_however_often_it_is_spelled() -> None:
    long, short = "f" * 201, "g" * 200
    source = f"def {long}(): pass\n{long}()\n{long}()\ndef {short}(): pass\n{short}()\n"
    rows = symbols.extract("python", source.encode())
    assert {row[0] for row in rows} == {short}
    assert [(row[2], row[3]) for row in rows] == [(1, 4), (0, 5)]
