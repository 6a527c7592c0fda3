"""A folder swapped for a symlink to outside while Sari works never leads outside.

A process swaps ``sub`` (a real folder of the workspace) with a symlink to a folder
outside, as fast as it can, while the engine reads, writes, edits and indexes below
``sub``. Each call may succeed (it met the real folder) or be refused (it met the
symlink), but nothing outside is read, created or overwritten, and nothing from
outside reaches the index. The loops are bounded by a count; the swapper by a
stop file (and a time limit of its own).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path

import folder_swapper
import pytest

from sari_core.engine import Workspace
from sari_core.errors import SariError
from sari_core.models import MutationCall, ReadCall, SearchCall

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symlink swaps need POSIX")

INSIDE = "inside text\n"
OUTSIDE = "OUTSIDE-SECRET text\n"
READS = 10000
WRITES = 600
REFRESHES = 200


def _snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    return {path.name: (hashlib.sha1(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
            for path in folder.iterdir()}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text(INSIDE, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text(OUTSIDE, encoding="utf-8")
    return root, outside


def _swapping(root: Path, outside: Path, tmp_path: Path,
              hold: float = folder_swapper.HOLD_SECONDS) -> subprocess.Popen[str]:
    return folder_swapper.start(root / "sub", outside, tmp_path / "stop", hold)


def _count(outcomes: dict[str, int], attempt: Callable[[], str]) -> None:
    """Count what one attempt came to: its result, its refusal's code, or a crash's type."""
    try:
        outcome = attempt()
    except SariError as refused:
        outcome = refused.code
    except Exception as crash:  # noqa: BLE001 - counted, then asserted absent
        outcome = type(crash).__name__
    outcomes[outcome] = outcomes.get(outcome, 0) + 1


def _applied(engine: Workspace, call: MutationCall) -> str:
    engine.apply_mutation(engine.plan_mutation(call))
    return "ok"


def test_reads_never_return_outside_content(layout: tuple[Path, Path], tmp_path: Path) -> None:
    root, outside = layout
    seen: dict[str, int] = {}
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        swapper = _swapping(root, outside, tmp_path)
        try:
            for _ in range(READS):
                _count(seen, lambda: engine.read(ReadCall(mode="file", target="sub/f.txt")).text)
        finally:
            swaps = folder_swapper.finish(swapper, tmp_path / "stop")
    assert swaps > 0
    assert OUTSIDE not in seen, seen
    assert seen.get(INSIDE, 0) > 0
    assert set(seen) <= {INSIDE, "NOT_FOUND", "PATH_OUTSIDE_WORKSPACE", "NOT_A_FILE"}, seen


def test_writes_and_edits_never_touch_outside(layout: tuple[Path, Path], tmp_path: Path) -> None:
    root, outside = layout
    before = _snapshot(outside)
    outcomes: dict[str, int] = {}
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        swapper = _swapping(root, outside, tmp_path)
        try:
            for number in range(WRITES):
                calls = [MutationCall(tool="write", path=f"sub/new-{number}.txt",
                                      content="written\n"),
                         MutationCall(tool="write", path="sub/f.txt", content=INSIDE),
                         MutationCall(tool="edit", path="sub/f.txt", old_string="inside",
                                      new_string="inside")]
                for call in calls:
                    _count(outcomes, partial(_applied, engine, call))
        finally:
            swaps = folder_swapper.finish(swapper, tmp_path / "stop")
    assert swaps > 0
    assert _snapshot(outside) == before, outcomes
    assert outcomes.get("ok", 0) > 0
    assert set(outcomes) <= {"ok", "NOT_FOUND", "PATH_OUTSIDE_WORKSPACE", "NOT_A_FILE",
                             "EDIT_NO_MATCH"}, outcomes
    assert (root / "sub" / "f.txt").read_text(encoding="utf-8") == INSIDE


def test_the_index_never_holds_outside_content(layout: tuple[Path, Path], tmp_path: Path) -> None:
    root, outside = layout
    for number in range(30):
        (root / "sub" / f"inside-{number}.txt").write_text(INSIDE, encoding="utf-8")
        (outside / f"inside-{number}.txt").write_text(OUTSIDE, encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        # States held for milliseconds: a walk lists the folder, then reads its files.
        swapper = _swapping(root, outside, tmp_path, hold=0.002)
        try:
            for _ in range(REFRESHES):
                engine.ensure_index(progress=False)
                for file_id, text in engine.store.all_texts():
                    assert "OUTSIDE-SECRET" not in text, file_id
        finally:
            swaps = folder_swapper.finish(swapper, tmp_path / "stop")
        engine.ensure_index(progress=False)
        found = engine.search(SearchCall(query="OUTSIDE-SECRET"))
        assert found.matches == [] and found.total == 0
        assert engine.search(SearchCall(query="inside text")).total > 0
    assert swaps > 0
