"""Reading a stored text only as far as needed gives what reading all of it gives.

A definition's line is read from the start of its file's text up to that line, and a
common literal's counted candidates are checked on their first bytes before the rest:
every answer must equal the one the whole texts give.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.index import liblz4
from sari_core.engine.index.schema import pack_text
from sari_core.engine.index.stored_texts import leading_lines, text_prefix
from sari_core.engine.search import text_match
from sari_core.models import SearchCall

TEXTS = [
    "",
    "one line, no newline",
    "a\nb\n",
    "\n\n\n",
    "short\n" * 5000,  # many short lines: the start suffices
    ("x = '" + "é" * 3000 + "'\n") * 40,  # long lines of two-byte characters: whole text
    "".join(f"line {n} ☃ {'k' * (n % 97)}\n" for n in range(3000)),
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_prefix_is_the_start_of_the_whole_text(text: str) -> None:
    data = text.encode("utf-8")
    stored = pack_text(text)
    for length in (0, 1, 5, 4095, 4096, 8191, 8192, 8193, len(data) - 1, len(data),
                   len(data) + 10):
        if length >= 0:
            assert text_prefix(stored, length) == data[:length], length


@pytest.mark.parametrize("text", TEXTS)
def test_leading_lines_are_the_first_lines_of_the_whole_text(text: str) -> None:
    lines = text.encode("utf-8").split(b"\n")
    stored = pack_text(text)
    for count in (0, 1, 2, 3, 4, 63, 64, 65, 1000, 2999, 3000, 3001, 5000, 5001, 9999):
        assert leading_lines(stored, count) == lines[:count], count


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="a shared liblz4 ships with every Linux distribution, not elsewhere")
def test_texts_are_decoded_only_as_far_as_asked_here() -> None:
    """On Linux the partial decoder is reachable (else every test above passes by
    decoding whole texts, and none of them shows the partial reads are right)."""
    assert liblz4.partial_decoder() is not None


def test_a_liblz4_the_decoder_was_not_written_for_is_said_and_decoded_whole(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(liblz4, "WRITTEN_FOR", ((0, 1),))
    liblz4.partial_decoder.cache_clear()
    try:
        with caplog.at_level("INFO", logger=liblz4.__name__):
            decoder = liblz4.partial_decoder()
        assert decoder is None
        said = " ".join(record.getMessage() for record in caplog.records)
        assert "decoded whole" in said
        stored = pack_text(TEXTS[-1])
        assert text_prefix(stored, 100)[:100] == TEXTS[-1].encode("utf-8")[:100]
    finally:
        liblz4.partial_decoder.cache_clear()


def test_liblz4_versions_are_read_as_major_minor_release() -> None:
    assert liblz4.version_text(10904) == "1.9.4"
    assert liblz4.supported(10904) and liblz4.supported(11000)
    assert not liblz4.supported(10803) and not liblz4.supported(20000)


def _deep_definitions_tree(root: Path) -> dict[str, int]:
    """Files whose definitions lie past the first lines, some behind long lines, some
    with much text after them, one at the very end."""
    lines: dict[str, int] = {}
    for n in range(6):
        filler = "".join(f"# {'é' * (n * 60)} filler {k}\n" for k in range(200 * (n + 1)))
        tail = "".join(f"y_{k} = {k}\n" for k in range(0 if n == 5 else 3000))
        text = filler + f"def deep_target_{n}(x):\n    return x\n" + tail
        (root / f"mod{n}.py").write_text(text, encoding="utf-8")
        lines[f"mod{n}.py"] = filler.count("\n") + 1
    return lines


def test_a_definition_deep_in_a_file_shows_its_own_line(tmp_path: Path) -> None:
    lines = _deep_definitions_tree(tmp_path)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        result = engine.search(SearchCall(query="deep_target", kind="symbol", limit=10))
    shown = {m.path: (m.line, m.snippet) for m in result.matches}
    assert len(shown) == 6
    for n in range(6):
        line, snippet = shown[f"mod{n}.py"]
        assert line == lines[f"mod{n}.py"]
        assert snippet == f"def deep_target_{n}(x):"


def _common_literal_tree(root: Path) -> None:
    """Forty large files (over twice the prefix checked first): the query at the top, deep,
    across the prefix's end, in another case or in a non-ASCII line, or absent."""
    filler = "".join(f"value_{k} = compute({k})  # ÿ ſ\n" for k in range(900))  # ~30 KiB
    cut = text_match.PREFIX_BYTES - len("From Typing Import") // 2
    for n in range(40):
        kind = n % 5
        if kind == 0:
            text = "from typing import Any\n" + filler
        elif kind == 1:
            text = filler + "FROM TYPING IMPORT Any\n"
        elif kind == 2:  # straddling the end of the prefix
            head = filler.encode("utf-8")[:cut].decode("utf-8", "ignore")
            text = head + "From Typing Import" + filler
        elif kind == 3:
            text = filler + "from typing_extensions import Self\n"  # a candidate, no match
        else:
            text = "ſ from typing import ſ\n" + filler
        (root / f"m{n:02d}.py").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_counted_candidates_checked_on_their_start_count_what_a_scan_counts(
        tmp_path: Path, case_sensitive: bool) -> None:
    _common_literal_tree(tmp_path)
    query = "from typing import"
    expected = sorted(
        path.name for path in tmp_path.glob("*.py")
        if (query in path.read_text(encoding="utf-8") if case_sensitive
            else query in path.read_text(encoding="utf-8").lower()))
    call = SearchCall(query=query, literal=True, limit=1, case_sensitive=case_sensitive)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        result = engine.search(call)
        files = sorted(Path(name).name for name in engine.matching_files(call))
    assert files == expected
    assert result.total == len(expected) and "total_at_least" not in result.extra
    assert result.matches and result.matches[0].path.endswith(".py")
