"""``bench/scratch.py``: a bench run's cache and state folders go when it ends (an index of
the standard library is about 800 MB; one left per run fills a disk), a caller's stay."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench_modules import load_bench

scratch = load_bench("scratch")
NAMES = ("SARI_CACHE_DIR", "SARI_STATE_DIR")


def test_the_folders_a_run_makes_are_removed_when_it_ends(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    with scratch.scratch_folders():
        made = [Path(os.environ[name]) for name in NAMES]
        for folder in made:
            (folder / "index.sqlite").write_bytes(b"x" * 1024)
    assert made and not any(folder.exists() for folder in made)
    assert not any(name in os.environ for name in NAMES)


def test_a_folder_the_caller_names_is_kept(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setenv("SARI_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SARI_STATE_DIR", raising=False)
    with scratch.scratch_folders():
        assert os.environ["SARI_CACHE_DIR"] == str(tmp_path)
        state = Path(os.environ["SARI_STATE_DIR"])
        (tmp_path / "index.sqlite").write_text("kept", encoding="utf-8")
    assert (tmp_path / "index.sqlite").read_text(encoding="utf-8") == "kept"
    assert os.environ["SARI_CACHE_DIR"] == str(tmp_path) and not state.exists()
