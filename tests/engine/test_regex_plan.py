"""Regex search narrows its candidates with the trigram index, or hands the pattern to rg."""

from __future__ import annotations

import heapq
import random
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.scan import rg_command, scan
from sari_core.engine.search.regex import compile_query
from sari_core.engine.search.regex_plan import candidate_query, regex_files
from sari_core.engine.search.search import first_in_order, order_key
from sari_core.engine.search.text_match import FileHit, phrase
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


@pytest.mark.parametrize("pattern", [r"\d+", r"abc|x", r"(?i)hello", r"(abc)?def?",
                                     r"[A-Z]{3,}_[A-Z]{3,}",
                                     r"\w+_\w+", r"a.c", r"[!-\/]ab", r"[^a-z]{3}", r"\d?\.\d"])
def test_a_pattern_without_a_required_literal_is_not_narrowed(pattern: str) -> None:
    assert candidate_query(pattern) is None


@pytest.mark.parametrize(("pattern", "windows"), [
    (r"\d+\.\d+", [("0123456789", ".", "0123456789")]),
    (r"\d{4}-\d{2}", [("-", "0123456789", "0123456789"), ("0123456789", "-", "0123456789"),
                       ("0123456789", "0123456789", "-")]),
    (r"x[0-3]{2,}y", [("0123", "0123", "y"), ("x", "0123", "0123")]),
])
def test_a_pattern_without_a_literal_is_narrowed_by_its_character_sets(
        pattern: str, windows: list[tuple[str, str, str]]) -> None:
    # Three positions in a row, each a small set of characters: the OR of their trigrams.
    assert candidate_query(pattern) == "(" + " AND ".join(
        "(" + " OR ".join(phrase(a + b + c) for a in first for b in second for c in third)
        + ")" for first, second, third in windows) + ")"


def test_a_letter_class_takes_the_long_s_and_the_kelvin_sign(tmp_path: Path) -> None:
    # Case-insensitive, [A-Z] matches the long s and the Kelvin sign as RE2 folds them; the
    # trigram index folds them to s and k, so those files stay candidates.
    for name, text in {"s.py": "x = 1_\u017f\u017f\u017f\n", "k.py": "x = 1_\u212a\u212a\u212a\n",
                       "no.py": "x = 1_123\n"}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    call = SearchCall(query=r"\d_[A-Z]{3,}", kind="regex")
    assert candidate_query(call.query) is not None
    with Workspace([tmp_path], index_path=tmp_path.parent / "folds.sqlite",
                   watch=False) as engine:
        engine.ensure_index(progress=False)
        assert _every(engine, call.query) == ["k.py", "s.py"]
        assert engine.matching_files(call) == ["k.py", "s.py"]
        assert sorted(hit.path for hit in regex_files(
            engine.store, compile_query(call.query, case_sensitive=False))) == ["k.py", "s.py"]


PATTERNS = [r"def \w+_\w+\(self", r"import (os|sys)$", r"execute_read|renderPage",
            r"class \w+", r"\d+", r"[A-Z][a-z]+[A-Z]", r"e.e", r"^\s+return", r"\d+\.\d+",
            r"[a-z]{2,}_[a-z]+", r"[A-Z]{3,}", r"\d{4}-\d{2}|[a-z]\(\)",
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
            if kwargs.get("among") is None:  # rg over every text, not the candidates
                handed.append(pattern)
            return real(pattern, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(engine.scan, "indexed_matches", spy)
        assert engine.search(SearchCall(query=r"import \w+$", kind="regex")).total == 12
        assert handed == []
        assert engine.search(SearchCall(query=r"value_\d+", kind="regex")).total == 12
        assert engine.search(SearchCall(query=r"\w+_\d+", kind="regex")).total == 12
        assert handed == [r"\w+_\d+"]  # no literal, no three small sets in a row: rg


def _every(engine: Workspace, pattern: str, case_sensitive: bool = False) -> list[str]:
    rx = compile_query(pattern, case_sensitive=case_sensitive)
    paths = {row.id: row.path for row in engine.store.text_files()}
    return sorted(paths[file_id] for file_id, data in engine.store.utf8_texts(list(paths))
                  if rx.lines(data, limit=1))


@pytest.mark.parametrize("glob", [None, "src/**"])
def test_a_regex_handed_to_rg_is_one_walk_whose_files_are_a_scan_s_of_every_text(
        shared: Workspace, monkeypatch: pytest.MonkeyPatch, glob: str | None) -> None:
    # rg walks the tree once (a walk follows no link); the files it finds, path_glob
    # applied, are a scan's of every text the index holds.
    runs: list[int] = []
    real = rg_command.run

    def counting(command, timeout):  # type: ignore[no-untyped-def]
        runs.append(len(command))
        return real(command, timeout)

    monkeypatch.setattr(rg_command, "run", counting)
    call = SearchCall(query=r"\w+_\w+", kind="regex", path_glob=glob)
    every = [path for path in _every(shared, call.query)
             if glob is None or path.startswith("src/")]
    assert every and shared.matching_files(call) == every
    assert len(runs) == 1


def test_a_regex_over_candidates_reads_them_a_batch_at_a_time(
        shared: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # A narrowed pattern's candidates are given to rg by path, a batch per rg: the files
    # found over several batches are a scan's of every text.
    runs: list[int] = []
    real = rg_command.run

    def counting(command, timeout):  # type: ignore[no-untyped-def]
        runs.append(len(command))
        return real(command, timeout)

    monkeypatch.setattr(scan, "RG_PATHS_PER_CALL", 2)
    monkeypatch.setattr(rg_command, "run", counting)
    call = SearchCall(query=r"import \w+", kind="regex")
    every = _every(shared, call.query)
    assert len(every) > 2 and shared.matching_files(call) == every
    assert len(runs) > 1


def test_a_regex_handed_to_rg_past_its_deadline_says_its_answer_is_partial(
        shared: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # rg runs out of time after printing one whole path and part of another: the answer
    # holds the file found by then, says so, and counts just it.
    real = rg_command.run

    def stopped(command, timeout):  # type: ignore[no-untyped-def]
        stdout, status = real(command, timeout)
        first, _, rest = stdout.partition(b"\0")
        return first + b"\0" + rest[:5], None

    monkeypatch.setattr(rg_command, "run", stopped)
    call = SearchCall(query=r"\w+", kind="regex", limit=50)
    every = set(_every(shared, call.query))
    assert len(every) > 2
    result = shared.search(call)
    assert result.total == 1
    assert {match.path for match in result.matches} <= every
    assert result.truncated and any(note.startswith("Partial search: it stopped at its "
                                                    "deadline") for note in result.notes)


def test_a_regex_handed_to_rg_finds_what_the_index_holds_now(tmp_path: Path) -> None:
    # Only the index's text files count (not a binary file, not an ignored one), and a
    # file written or deleted since the last search counts at once.
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".gitignore").write_text("ignored.py\n")
    (tree / "a.py").write_text("MAX_SIZE = 1\n")
    (tree / "ignored.py").write_text("MAX_SIZE = 2\n")
    (tree / "blob.bin").write_bytes(b"\0\1MAX_SIZE = 3\n")
    call = SearchCall(query=r"[A-Z]+_[A-Z]+", kind="regex", case_sensitive=True)
    with Workspace([tree], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.matching_files(call) == ["a.py"]
        assert engine.search(call).total == 1
        (tree / "b.py").write_text("MIN_SIZE = 0\n")
        engine.indexer.sync([(0, "b.py")])
        assert engine.matching_files(call) == ["a.py", "b.py"]
        (tree / "a.py").unlink()
        engine.indexer.sync([(0, "a.py")])
        assert engine.matching_files(call) == ["b.py"]
        assert [match.path for match in engine.search(call).matches] == ["b.py"]


@pytest.mark.parametrize("pattern", [r"[A-Z]+_[A-Z]+", r"SECRET_[A-Z]+"])
def test_a_file_that_became_a_link_out_of_the_workspace_decides_no_regex_answer(
        tmp_path: Path, pattern: str) -> None:
    # rg opens a path it is given even when it is a link. A file the index holds as text
    # that became a link since the last refresh (or whose folder did) must not let the
    # text outside the workspace make it match: every text rg reads, none that the tree
    # walk alone would read (handed over) and one the trigram index picks (narrowed).
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "sub").mkdir(parents=True)
    outside.mkdir()
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.py").write_text("y = 'SECRET_' + 'x'\n")
    (outside / "secret.txt").write_text("SECRET_TOKEN = 1\n")
    (outside / "b.py").write_text("SECRET_TOKEN = 2\n")
    call = SearchCall(query=pattern, kind="regex", case_sensitive=True)
    with Workspace([tree], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.matching_files(call) == []
        (tree / "a.py").unlink()
        (tree / "a.py").symlink_to(outside / "secret.txt")
        (tree / "sub" / "b.py").unlink()
        (tree / "sub").rmdir()
        (tree / "sub").symlink_to(outside, target_is_directory=True)
        assert engine.matching_files(call) == []
        assert engine.search(call).total == 0


def test_broad_file_sets_are_read_for_hits_in_the_ranking_s_order() -> None:
    # Thousands of files match a broad regex: they are ordered apart from the few that
    # define a name of the query or hold it in their path, as one ordering would.
    rng = random.Random(7)
    parts = ["src", "tests", "lib", "vendor", "site-packages", "foo", "x", "test_a.py",
             "a.py", "foo.py", "b.pyi", "Foo.py"]
    for _ in range(2000):
        files = [FileHit(number, rng.randint(0, 1), "/".join(
            rng.choice(parts) for _ in range(rng.randint(1, 4)))) for number in range(
            rng.randint(0, 50))]
        defines = {hit.id for hit in files if rng.random() < 0.1}
        needle, case_sensitive = rng.choice(["foo", "x", "zzz", "a.py"]), rng.random() < 0.5
        count = rng.randint(1, 30)
        assert first_in_order(files, count, defines, needle, case_sensitive) == heapq.nsmallest(
            count, files, key=lambda hit: order_key(hit, hit.id in defines, needle,
                                                    case_sensitive))


def test_rg_is_given_as_many_paths_as_one_command_line_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [f"/tree/{number:04}.py" for number in range(10)]  # 13 characters each
    monkeypatch.setattr(scan, "RG_PATHS_PER_CALL", 4)
    assert [len(batch) for batch in scan._batches(paths)] == [4, 4, 2]
    monkeypatch.setattr(scan, "RG_ARGUMENT_CHARS", 3 * 14)
    assert [len(batch) for batch in scan._batches(paths)] == [3, 3, 3, 1]
    monkeypatch.setattr(scan, "RG_ARGUMENT_CHARS", 5)  # a path longer than that goes alone
    assert [len(batch) for batch in scan._batches(paths)] == [1] * 10
    assert [path for batch in scan._batches(paths) for path in batch] == paths


@pytest.mark.parametrize("pattern", [r"\Qzz{2}\E", r"\Q\d+\.\d+\E", r"\pN\.\d\d[a-z]",
                                     r"\p{Greek}ing", r"\PLing"])
def test_escapes_that_are_not_their_letters_are_not_read_as_literals(
        tmp_path: Path, pattern: str) -> None:
    # \Q...\E quotes its text: "zz{2}" holds no "zzz", "\d+\.\d+" no digit; \pN is a
    # digit, not an "N", \p{Greek} a Greek letter, \PL no letter.
    (tmp_path / "quoted.py").write_text("a = 'zz{2}'\nb = r'\\d+\\.\\d+'\nc = '5.25x'\n"
                                        "d = '\u03b1ing'\ne = '_ing'\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("c = 'zzz 1.5 Greeking'\n")
    assert candidate_query(pattern) is None
    with Workspace([tmp_path], index_path=tmp_path.parent / "quoted.sqlite",
                   watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.matching_files(SearchCall(query=pattern, kind="regex")) == ["quoted.py"]
        assert [hit.path for hit in regex_files(engine.store, compile_query(
            pattern, case_sensitive=False))] == ["quoted.py"]
