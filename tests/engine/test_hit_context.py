"""What a search shows with its first hits: the definition each is in, short ones whole."""

from __future__ import annotations

from pathlib import Path

from sari_core.engine.search.hit_context import SHORT_CHARS
from sari_core.kernel import Kernel

# A function of 40 lines, most of them its docstring: short in what the model pays for.
DOCUMENTED = ('def fields(cls):\n    """\n' + "".join(f"    Line {n} of the docs.\n" for n in range(34))
              + '    """\n    if cls is None:\n        raise TypeError("no class")\n    return cls\n')
# A function whose body alone is past what is shown whole.
LONG = "def build(spec):\n" + "".join(f"    step_{n} = spec.apply({n}, 'a value to spend')\n"
                                      for n in range(100)) + "    return spec\n"


def _search(tmp_path: Path, arguments: dict) -> list[dict]:
    (tmp_path / "make.py").write_text(DOCUMENTED + "\n\n" + LONG, encoding="utf-8")
    with Kernel(roots=[tmp_path], plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        response = kernel.execute_search(arguments)
    assert response["ok"], response
    return response["matches"]


def test_a_short_definition_is_measured_in_characters_not_lines(tmp_path: Path) -> None:
    assert len(DOCUMENTED.splitlines()) == 40
    [match] = [m for m in _search(tmp_path, {"query": "fields"}) if m["line"] == 1]
    assert len(match["context"]) <= SHORT_CHARS
    assert match["context"].split("\n")[-1] == "40 |     return cls"


def test_a_symbol_search_shows_the_definitions_it_found(tmp_path: Path) -> None:
    matches = {m["line"]: m for m in _search(tmp_path, {"query": "fields", "kind": "symbol"})}
    assert matches[1]["context"].startswith("1 | def fields(cls):")
    assert matches[1]["context"].endswith("40 |     return cls")
    long = {m["line"]: m for m in _search(tmp_path, {"query": "build", "kind": "symbol"})}[43]
    assert long["context"].split("\n") == ["43 | def build(spec):",
                                           "  (function build: lines 43-144)"]


def test_a_definition_of_under_a_thousand_tokens_is_shown_whole(tmp_path: Path) -> None:
    """Shown whole, a definition saves the read that would follow it, a turn that reads the
    whole conversation again: worth up to about 1,000 tokens of it."""
    medium = "def apply(spec):\n" + "".join(
        f"    step_{n} = spec.apply({n}, 'a value to spend')\n" for n in range(60))
    (tmp_path / "make.py").write_text(medium + "    return spec\n", encoding="utf-8")
    with Kernel(roots=[tmp_path], plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        [match] = kernel.execute_search({"query": "def apply"})["matches"]
    assert 3000 < len(match["context"]) <= SHORT_CHARS
    assert match["context"].split("\n")[-1] == "62 |     return spec"


def test_a_later_hit_s_definition_is_shown_whole_only_when_short(tmp_path: Path) -> None:
    """The hits after the first are needed far less often: their definitions are shown
    whole up to the shorter bound, else as their signature."""
    body = "".join(f"    step_{n} = spec.apply({n}, 'a value to spend')\n" for n in range(60))
    (tmp_path / "a.py").write_text(f"def apply(spec):\n{body}    return spec\n", encoding="utf-8")
    (tmp_path / "b.py").write_text(f"def apply(spec):\n{body}    return spec\n", encoding="utf-8")
    with Kernel(roots=[tmp_path], plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        first, second = kernel.execute_search({"query": "def apply"})["matches"][:2]
    assert first["context"].split("\n")[-1] == "62 |     return spec"
    assert second["context"].split("\n") == ["1 | def apply(spec):",
                                             "  (function apply: lines 1-62)"]
