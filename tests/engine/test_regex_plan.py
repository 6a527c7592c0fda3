"""Regex search narrows its candidates with the trigram index, or hands the pattern to rg."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.search.regex import compile_query
from sari_core.engine.search.regex_plan import candidate_query, regex_files
from sari_core.engine.search.text_match import phrase
from sari_core.models import SearchCall


@pytest.mark.parametrize(("pattern", "branches"), [
    (r"def \w+_\w+\(self", [["def ", "(self"]]),
    (r"import (os|sys)$", [["import "]]),
    (r"foo|barbaz", [["foo"], ["barbaz"]]),
    (r"ab+cde", [["cde"]]),
    (r"say \"hi\"", [['say "hi"']]),
])
def test_the_literals_a_pattern_requires_become_a_trigram_query(pattern: str,
                                                                branches: list[list[str]]
                                                                ) -> None:
    assert candidate_query(pattern) == " OR ".join(
        "(" + " AND ".join(phrase(run) for run in runs) + ")" for runs in branches)


@pytest.mark.parametrize("pattern", [r"\d{4}-\d{2}", r"abc|x", r"(?i)hello", r"(abc)?def?",
                                     r"[A-Z]{3,}_[A-Z]{3,}", r"a.c"])
def test_a_pattern_without_a_required_literal_is_not_narrowed(pattern: str) -> None:
    assert candidate_query(pattern) is None


PATTERNS = [r"def \w+_\w+\(self", r"import (os|sys)$", r"execute_read|renderPage",
            r"class \w+", r"\d+", r"[A-Z][a-z]+[A-Z]", r"e.e", r"^\s+return",
            r"helper\(\'x"]  # the last: RE2 takes \', rg's syntax refuses it


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_narrowed_and_handed_over_answers_equal_a_scan_of_every_text(
        shared: Workspace, pattern: str, case_sensitive: bool) -> None:
    rx = compile_query(pattern, case_sensitive=case_sensitive)
    paths = {row.id: row.path for row in shared.store.text_files()}
    every = sorted(paths[file_id] for file_id, data in shared.store.utf8_texts(list(paths))
                   if rx.lines(data, limit=1))
    assert [hit.path for hit in regex_files(shared.store, rx)] == every
    call = SearchCall(query=pattern, kind="regex", case_sensitive=case_sensitive)
    assert shared.matching_files(call) == every
    result = shared.search(call)
    assert result.total == len(every) and result.index_ready and not result.notes


def test_a_narrowable_pattern_reads_only_its_candidates(shared: Workspace,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    original = shared.store.utf8_texts

    def counting(ids):  # type: ignore[no-untyped-def]
        read.extend(ids)
        return original(ids)

    monkeypatch.setattr(shared.store, "utf8_texts", counting)
    found = regex_files(shared.store, compile_query(r"import (os|sys)$", case_sensitive=True))
    assert [hit.path for hit in found] == ["src/app.py"]
    assert len(read) < shared.store.count_files()[1] // 2


def test_a_pattern_with_a_required_literal_stays_with_the_index_however_common(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every file holds the literal "import ": its candidates are the whole tree, and the
    # index still answers (ripgrep only gets patterns without a required literal).
    for number in range(12):
        (tmp_path / f"m{number}.py").write_text(f"import os\nvalue_{number} = {number}\n")
    with Workspace([tmp_path], index_path=tmp_path.parent / "common.sqlite",
                   watch=False) as engine:
        engine.ensure_index(progress=False)
        handed: list[str] = []
        real = engine.scan.indexed_matches

        def spy(pattern: str, *args: object, **kwargs: object) -> object:
            handed.append(pattern)
            return real(pattern, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(engine.scan, "indexed_matches", spy)
        assert engine.search(SearchCall(query=r"import \w+$", kind="regex")).total == 12
        assert handed == []
        assert engine.search(SearchCall(query=r"value_\d+", kind="regex")).total == 12
        assert engine.search(SearchCall(query=r"[a-z]+_\d+", kind="regex")).total == 12
        assert handed == [r"[a-z]+_\d+"]  # no literal of three characters: rg
