"""Kept navigation answers: served only while their generation and files are unchanged."""

from __future__ import annotations

import os
from pathlib import Path

from sari_lspgate.answers import AnswerCache, stamps


def _cache_with_answer(tmp_path: Path) -> tuple[AnswerCache[str], Path]:
    path = tmp_path / "cart.py"
    path.write_text("def total(): ...\n", encoding="utf-8")
    cache: AnswerCache[str] = AnswerCache()
    cache.put("who calls total", (1, 1), stamps([path]), "line 12")
    return cache, path


def test_an_answer_is_served_again_while_nothing_changed(tmp_path: Path) -> None:
    cache, _ = _cache_with_answer(tmp_path)
    assert cache.get("who calls total", (1, 1)) == (True, "line 12")
    assert cache.get("who calls other", (1, 1)) == (False, None)


def test_a_new_generation_drops_the_answer(tmp_path: Path) -> None:
    cache, _ = _cache_with_answer(tmp_path)
    assert cache.get("who calls total", (2, 1)) == (False, None)
    # dropped, not kept for the old generation either
    assert cache.get("who calls total", (1, 1)) == (False, None)


def test_a_file_of_the_answer_changed_or_gone_drops_it(tmp_path: Path) -> None:
    cache, path = _cache_with_answer(tmp_path)
    path.write_text("def total(): ...\ntotal()\n", encoding="utf-8")  # another size
    assert cache.get("who calls total", (1, 1)) == (False, None)
    cache, path = _cache_with_answer(tmp_path)
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))  # same size
    assert cache.get("who calls total", (1, 1)) == (False, None)
    cache, path = _cache_with_answer(tmp_path)
    path.unlink()
    assert cache.get("who calls total", (1, 1)) == (False, None)


def test_the_least_recently_used_answer_leaves_first(tmp_path: Path) -> None:
    cache: AnswerCache[int] = AnswerCache(max_entries=2)
    for number in range(2):
        cache.put(number, 0, {}, number)
    assert cache.get(0, 0) == (True, 0)  # 0 is now the most recently used
    cache.put(2, 0, {}, 2)
    assert [cache.get(key, 0)[0] for key in range(3)] == [True, False, True]
