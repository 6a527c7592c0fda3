"""What the index stores: small beside the text it indexes, and still exact."""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

import sari_core
from sari_core.engine import Workspace
from sari_core.engine.index import indexer, symbol_jobs
from sari_core.engine.index.store import IndexStore
from sari_core.engine.search.text_match import MAX_TRIGRAMS, phrase
from sari_core.models import ReadCall, SearchCall


def _bytes(engine: Workspace, sql: str) -> int:
    return int(engine.store.reader.execute(sql).fetchone()[0] or 0)


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """A real tree of code: a copy of this package's engine."""
    target = tmp_path / "code"
    shutil.copytree(Path(sari_core.__file__).parent / "engine", target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_the_trigram_index_is_a_fraction_of_the_text(code: Path, tmp_path: Path) -> None:
    # Positions of every trigram (FTS5 detail 'full') took twice the text; the index
    # only selects candidates, which the engine checks against the text.
    with Workspace([code], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        text = _bytes(engine, "SELECT sum(size) FROM files WHERE kind = 'text'")
        trigrams = _bytes(engine, "SELECT sum(length(block)) FROM fts_data")
        assert text > 100_000
        assert trigrams < 0.8 * text


def test_the_text_is_stored_compressed_and_read_back_whole(code: Path, tmp_path: Path) -> None:
    # The stored text was the largest part of the index (1.05x the text); compressed, a
    # third of it. Every reader gets the text back as it was.
    with Workspace([code], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        text = _bytes(engine, "SELECT sum(size) FROM files WHERE kind = 'text'")
        stored = _bytes(engine, "SELECT sum(length(data)) FROM contents")
        assert stored < 0.5 * text
        rows = {row.path: row.id for row in engine.store.text_files()}
        on_disk = (code / "index/store.py").read_text(encoding="utf-8")
        assert engine.store.text_of(rows["index/store.py"]) == on_disk
        assert dict(engine.store.texts([rows["index/store.py"]])) == {rows["index/store.py"]: on_disk}
        assert dict(engine.store.utf8_texts([rows["index/store.py"]]))[rows["index/store.py"]] == \
            on_disk.encode("utf-8")
        assert sum(1 for _ in engine.store.all_texts()) == len(rows)
        result = engine.search(SearchCall(query="def put_symbols", kind="text"))
        assert [hit.path for hit in result.matches] == ["index/store.py"]


def test_the_word_index_keeps_no_copy_of_the_words(code: Path, tmp_path: Path) -> None:
    with Workspace([code], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        columns = {row[1] for row in engine.store.reader.execute(
            "PRAGMA table_info(word_chunks)")}
        assert {"name", "body", "path"}.isdisjoint(columns)
        assert engine.store.reader.execute("SELECT count(*) FROM words").fetchone()[0] > 100


def _vocabulary(engine: Workspace) -> set[str]:
    conn = engine.store.reader
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.word_vocab "
                 "USING fts5vocab(main, words, row)")
    return {str(row[0]) for row in conn.execute("SELECT term FROM temp.word_vocab")}


def test_a_changed_or_removed_file_leaves_no_word_behind(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Zebra:\n    def gallop(self):\n        pass\n",
                                   encoding="utf-8")
    (tmp_path / "notes.md").write_text("Platypus notes.\n", encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert {"zebra", "gallop", "platypu"} <= _vocabulary(engine)
        (tmp_path / "a.py").write_text("def trot():\n    pass\n", encoding="utf-8")
        (tmp_path / "notes.md").unlink()
        engine.indexer.sync([(0, "a.py"), (0, "notes.md")])
        vocabulary = _vocabulary(engine)
        assert "trot" in vocabulary
        assert not {"zebra", "gallop", "platypu", "note"} & vocabulary
        assert engine.store.get_meta("damaged") is None


def test_a_file_s_word_chunks_are_found_without_an_index_on_their_file(tmp_path: Path) -> None:
    # A file's chunks have consecutive ids from its first_chunk: no index on file_id (0.03x
    # the text). Files changed between others' keep the rest of the word index intact.
    for n, animal in enumerate(("zebra", "okapi", "tapir", "quokka")):
        (tmp_path / f"m{n}.py").write_text(
            f"class {animal.title()}:\n    def gallop_{n}(self):\n        pass\n\n\n"
            f"def trot_{n}():\n    pass\n", encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert not engine.store.reader.execute(
            "SELECT name FROM sqlite_master WHERE tbl_name = 'word_chunks' AND type = 'index'"
        ).fetchall()
        (tmp_path / "m1.py").write_text("def amble():\n    pass\n", encoding="utf-8")
        (tmp_path / "m2.py").unlink()
        engine.indexer.sync([(0, "m1.py"), (0, "m2.py")])
        (tmp_path / "m1.py").write_text("def canter():\n    pass\n", encoding="utf-8")
        engine.indexer.sync([(0, "m1.py")])
        vocabulary = _vocabulary(engine)
        assert {"zebra", "quokka", "canter"} <= vocabulary
        assert not {"okapi", "tapir", "amble"} & vocabulary
        assert engine.store.get_meta("damaged") is None


def test_a_word_index_out_of_step_is_rebuilt_on_the_next_open(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "a.py").write_text("def gallop():\n    pass\n", encoding="utf-8")
    index = tmp_path / "index.sqlite"
    with Workspace([tmp_path], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False)
        with engine.store.transaction() as conn:  # what the words were computed from
            conn.execute("UPDATE symbols SET end_line = end_line + 5")
        (tmp_path / "a.py").write_text("def trot():\n    pass\n", encoding="utf-8")
        with caplog.at_level(logging.WARNING):
            engine.indexer.sync([(0, "a.py")])
        assert engine.store.get_meta("damaged")
    with caplog.at_level(logging.WARNING), \
            Workspace([tmp_path], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False)
        assert "rebuilding it" in caplog.text
        assert engine.store.get_meta("damaged") is None
        assert "gallop" not in _vocabulary(engine)
        assert engine.search(SearchCall(query="trot", kind="symbol")).matches


@pytest.mark.parametrize(("query", "case_sensitive", "expected"), [
    ("abcd", False, ["both.txt"]),          # apart.txt holds abc and bcd, never abcd
    ("ABCD", True, []),
    ("abcd", True, ["both.txt"]),
    ("kelvin", False, ["kelvin.txt"]),      # the Kelvin sign folds to k
    ("\u212aelvin", False, ["kelvin.txt"]),
    ("x\"y", False, ["quote.txt"]),          # a double quote inside a trigram
])
def test_a_literal_is_exact_although_the_index_keeps_no_positions(
        tmp_path: Path, query: str, case_sensitive: bool, expected: list[str]) -> None:
    files = {"both.txt": "zz abcd zz\n", "apart.txt": "abc bcd\nbcd abc\n",
             "kelvin.txt": "\u212aELVIN scale\n", "quote.txt": 'a x"y b\n', "none.txt": "x y\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        result = engine.search(SearchCall(query=query, kind="text",
                                          case_sensitive=case_sensitive))
        assert sorted({hit.path for hit in result.matches}) == expected
        assert result.total == len(expected)


def test_a_literal_selects_its_candidates_by_all_its_trigrams() -> None:
    assert phrase("abcd") == '("abc" AND "bcd")'
    assert phrase('x"yx"y') == '("x""y" AND """yx" AND "yx""")'  # each trigram once
    long = phrase("".join(chr(0x4E00 + i) for i in range(200)))
    assert long.count(" AND ") == MAX_TRIGRAMS  # a long literal: a spread of its trigrams


def test_the_words_a_worker_splits_are_the_ones_removed_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Index workers parse and split a file's words; a change removes them by computing
    # them again in-process: both must give the same chunks, or words would be left behind.
    monkeypatch.setattr(symbol_jobs, "POOL_THRESHOLD_FILES", 1)
    monkeypatch.setenv("SARI_INDEX_WORKERS", "1")
    source = ("class Zebra{n}:\n    '''Stripes.'''\n    def gallop{n}(self, speed):\n"
              "        return speed * 2\n\n\ndef trot{n}():\n    return Zebra{n}()\n")
    for n in range(6):
        (tmp_path / f"m{n}.py").write_text(source.format(n=n), encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.store.count_symbols() > 0
        assert {"zebra", "gallop5", "stripe", "trot3"} <= _vocabulary(engine)
        for n in range(6):
            (tmp_path / f"m{n}.py").unlink()
        (tmp_path / "m0.py").write_text("def canter():\n    pass\n", encoding="utf-8")
        engine.indexer.sync([(0, f"m{n}.py") for n in range(6)])
        assert engine.store.get_meta("damaged") is None
        assert not {"zebra", "gallop5", "stripe", "trot3"} & _vocabulary(engine)
        assert "canter" in _vocabulary(engine)


@pytest.mark.parametrize("first_build", [False, True], ids=["refresh", "second-phase"])
def test_files_waiting_for_a_worker_are_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_build: bool) -> None:
    # The build reads files faster than workers parse them; the bytes sent and not yet
    # answered are held in memory, so past a bound the build stores results first. (A
    # first build parses in its second phase, from the stored texts.)
    monkeypatch.setattr(indexer, "BULK_FILES", 5 if first_build else 1_000)
    monkeypatch.setattr(symbol_jobs, "POOL_THRESHOLD_FILES", 1)
    monkeypatch.setattr(symbol_jobs, "BATCH_BYTES", 1_000)
    monkeypatch.setattr(symbol_jobs, "BACKLOG_BYTES", 3_000)
    monkeypatch.setattr(indexer, "BACKLOG_BYTES", 3_000)
    monkeypatch.setenv("SARI_INDEX_WORKERS", "1")
    for n in range(60):
        (tmp_path / f"m{n}.py").write_text(f"def f{n}(x):\n    return x\n" * 20,
                                           encoding="utf-8")
    seen: list[int] = []
    add = symbol_jobs.SymbolJobs.add

    def counting(self: symbol_jobs.SymbolJobs, *args: object) -> None:
        seen.append(self.backlog)
        add(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(symbol_jobs.SymbolJobs, "add", counting)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.store.pending_symbols() == 0
        assert engine.search(SearchCall(query="f59", kind="symbol")).matches
    assert len(seen) == 60
    assert max(seen) <= 3_000 + 1_000 + 600  # the bound, one batch, one file


def _name_indexes(conn: sqlite3.Connection) -> set[str]:
    return {str(row[0]) for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'symbols' "
        "AND name != 'symbols_file'")}


def test_every_look_up_of_a_name_uses_the_one_name_index(tmp_path: Path) -> None:
    # One index on folded names serves every exact, any-case and prefix look-up (a second
    # index on the names as spelled cost a fifth of the text's size): none scans the rows.
    (tmp_path / "m.py").write_text("class HttpClient:\n    def send_request(self):\n"
                                   "        return parse_reply()\n\n\ndef parse_reply():\n"
                                   "    pass\n", encoding="utf-8")
    (tmp_path / "use.py").write_text("from m import HttpClient\n\nHttpClient().send_request()\n",
                                     encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        statements: list[str] = []
        engine.store.reader.set_trace_callback(statements.append)
        engine.search(SearchCall(query="HttpClient", kind="text"))
        engine.search(SearchCall(query="send_request", kind="text", literal=False))
        engine.search(SearchCall(query="send_request", kind="references"))
        engine.search(SearchCall(query="parse", kind="callers", match="prefix"))
        engine.search(SearchCall(query="parse_reply", kind="symbol", match="exact"))
        engine.read(ReadCall(mode="symbol", target="HttpClient.send_request"))
        engine.store.reader.set_trace_callback(None)
        assert _name_indexes(engine.store.reader) == {"symbols_folded"}
        looked_up = [sql for sql in statements if "symbols" in sql and "name" in sql
                     and "file_id =" not in sql and "file_id IN" not in sql]
        assert looked_up
        for sql in looked_up:
            plan = " ".join(str(row[3]) for row in engine.store.reader.execute(
                f"EXPLAIN QUERY PLAN {sql}"))
            assert "SCAN s " not in f"{plan} " and "SCAN symbols" not in plan, (sql, plan)


def test_symbols_are_kept_in_file_order_with_folded_names_stored_only_when_apart(
        tmp_path: Path) -> None:
    # A file's symbols are one range of the table (no index on file_id, 0.16x the text),
    # and a folded name equal to the name in lower case (most names) is not stored twice.
    (tmp_path / "m.py").write_text("class HTTPAdapter:\n    def send(self):\n"
                                   "        return get_user()\n\n\ndef get_name():\n"
                                   "    pass\n", encoding="utf-8")
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        conn = engine.store.reader
        assert not conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND "
                                "sql LIKE '%symbols (file_id)%'").fetchall()
        plan = " ".join(str(row[3]) for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT name FROM symbols WHERE file_id = 1 AND is_def = 1"))
        assert "PRIMARY KEY" in plan
        rows = dict(conn.execute("SELECT name, folded FROM symbols"))
        assert rows == {"HTTPAdapter": "httpadapter", "send": "send", "get_name": "getname"}
        apart = dict(conn.execute("SELECT name, folded_apart FROM symbols"))
        assert apart == {"HTTPAdapter": None, "send": None, "get_name": "getname"}
        assert engine.search(SearchCall(query="get-user", kind="symbol", match="exact")
                             ).total == 0  # a reference, not a definition
        assert [hit.symbol for hit in engine.search(SearchCall(
            query="http_adapter", kind="symbol", match="exact")).matches] == ["HTTPAdapter"]


def test_a_first_build_indexes_symbol_names_after_storing_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Growing two name indexes row by row costs the first build of a large tree about
    # as much as storing the rows; built at once afterwards, half (and they are smaller).
    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    for n in range(8):
        (tmp_path / f"m{n}.py").write_text(f"def f{n}():\n    return g{n}()\n",
                                           encoding="utf-8")
    # (The first phase's rows are its definition lines'; the second phase's parses replace
    # them under the index, which searches between the phases use.)
    during: list[set[str]] = []
    put_symbols = IndexStore.put_symbols
    put_definition_lines = IndexStore.put_definition_lines

    def watching(self: IndexStore, conn: sqlite3.Connection, *args: object) -> None:
        during.append(_name_indexes(conn))
        put_symbols(self, conn, *args)  # type: ignore[arg-type]

    def watching_lines(self: IndexStore, conn: sqlite3.Connection, *args: object) -> None:
        during.append(_name_indexes(conn))
        put_definition_lines(self, conn, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexStore, "put_definition_lines", watching_lines)
    with Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert len(during) == 8 and all(not names for names in during)
        monkeypatch.setattr(IndexStore, "put_symbols", watching)
        assert _name_indexes(engine.store.reader) == {"symbols_folded"}
        plan = " ".join(str(row) for row in engine.store.reader.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM symbols WHERE folded = 'f3' AND is_def = 1"))
        assert "symbols_folded" in plan
        assert engine.search(SearchCall(query="f3", kind="symbol")).matches
        during.clear()
        for n in range(8):  # a later large refresh keeps them
            (tmp_path / f"m{n}.py").write_text(f"def h{n}():\n    pass\n", encoding="utf-8")
        engine.indexer.refresh()
        assert during and all(names == {"symbols_folded"} for names in during)


def test_name_indexes_a_cancelled_first_build_left_out_come_with_the_next_refresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    for n in range(8):
        (tmp_path / f"m{n}.py").write_text(f"def f{n}():\n    pass\n", encoding="utf-8")
    index = tmp_path / "index.sqlite"
    with Workspace([tmp_path], index_path=index, watch=False) as engine:
        engine.indexer.cancelled.set()  # as close() does while a build runs
        engine.indexer.refresh()
        assert not _name_indexes(engine.store.reader)
    with Workspace([tmp_path], index_path=index, watch=False) as engine:
        engine.ensure_index(progress=False)
        assert _name_indexes(engine.store.reader) == {"symbols_folded"}
        assert engine.store.pending_symbols() == 0


def test_an_index_worker_runs_this_sari_whatever_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A build started in a folder holding another sari_core (a checkout of another
    # version) ran that folder's worker: python -m puts the working folder first.
    other = tmp_path / "other"
    marker = tmp_path / "wrong-worker-ran"
    (other / "sari_core" / "engine" / "index").mkdir(parents=True)
    (other / "sari_core" / "__init__.py").write_text("", encoding="utf-8")
    (other / "sari_core" / "engine" / "__init__.py").write_text("", encoding="utf-8")
    (other / "sari_core" / "engine" / "index" / "__init__.py").write_text("", encoding="utf-8")
    (other / "sari_core" / "engine" / "index" / "symbol_worker.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    monkeypatch.chdir(other)
    monkeypatch.setattr(symbol_jobs, "POOL_THRESHOLD_FILES", 1)
    monkeypatch.setenv("SARI_INDEX_WORKERS", "1")
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(4):
        (tree / f"m{n}.py").write_text(f"def f{n}():\n    pass\n", encoding="utf-8")
    with Workspace([tree], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
        assert engine.search(SearchCall(query="f3", kind="symbol")).matches
    assert not marker.exists()


def test_a_build_and_its_closing_keep_their_memory_small(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Resident memory after a large build: the name index was sorted in memory (124 MB at
    # 1.8M symbols), the writer mapped the index it read, and closing analysed every row.
    monkeypatch.setattr(indexer, "BULK_FILES", 5)
    for n in range(8):
        (tmp_path / f"m{n}.py").write_text(f"def f{n}():\n    pass\n", encoding="utf-8")
    statements: list[str] = []
    engine = Workspace([tmp_path], index_path=tmp_path / "index.sqlite", watch=False)
    writer = engine.store._writer  # what the writer connection was told
    writer.set_trace_callback(statements.append)
    try:
        engine.ensure_index(progress=False)
        assert writer.execute("PRAGMA mmap_size").fetchone()[0] == 0
    finally:
        engine.close()
    created = next(i for i, sql in enumerate(statements) if "CREATE INDEX" in sql)
    assert "PRAGMA temp_store = FILE" in statements[:created]
    optimized = statements.index("PRAGMA optimize")
    assert any(sql.startswith("PRAGMA analysis_limit") for sql in statements[:optimized])
