"""A watched tree never fully indexed is watched from the end of its first build.

Until then it is answered from scans, and every file rg opens was an event for the watcher's
thread to handle (tens of ms of CPU beside rg's scan). A change made during the first build
is found by a second walk once the watcher runs, and an index built before is watched from
the moment the workspace opens.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from engine_repo import watcher_of, write

from sari_core.engine import Workspace
from sari_core.engine.changes.changes import WatchAfterFirstBuild
from sari_core.engine.index.build_priority import BUILD_NICENESS, run_lowered
from sari_core.engine.index.indexer import IndexStats
from sari_core.kernel import Kernel
from sari_core.models import SearchCall


def test_a_tree_answered_from_scans_starts_watching_after_its_first_build(
        repo: Path, tmp_path: Path) -> None:
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=True)
    try:
        assert isinstance(engine._changes, WatchAfterFirstBuild)
        engine.scan_before_build = True  # the first answers come from scans, no watcher yet
        with Kernel(engine) as kernel:
            assert kernel.execute_search({"query": "execute_read"})["matches"]
            assert isinstance(engine._changes, WatchAfterFirstBuild)
            engine.ensure_index(progress=False)
            watcher_of(engine)
            write(repo, "src/other.py", "watched_after_the_build = 1\n")  # seen at once now
            assert {m.path for m in engine.search(SearchCall(query="watched_after_the_build")
                                                  ).matches} == {"src/other.py"}
    finally:
        engine.close()


def test_a_change_made_during_the_first_build_is_found_and_reported(
        repo: Path, tmp_path: Path) -> None:
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=True)
    real_refresh = engine.indexer.refresh
    builds: list[str] = []

    def refresh_then_edit(**kwargs: object) -> IndexStats:
        stats = real_refresh(**kwargs)  # type: ignore[arg-type]
        if not builds:  # the file was indexed; it changes before the build ends
            write(repo, "src/other.py", "changed_during_the_build = 1\n")
        builds.append("walked")
        return stats

    engine.indexer.refresh = refresh_then_edit  # type: ignore[method-assign]
    try:
        engine.ensure_index(progress=False)
        watcher_of(engine)
        assert builds == ["walked", "walked"]
        assert {m.path for m in engine.search(SearchCall(query="changed_during_the_build")
                                              ).matches} == {"src/other.py"}
        assert [change.path for change in engine.poll_changes()] == ["src/other.py"]
    finally:
        engine.close()


def test_an_index_built_before_is_watched_from_the_open(repo: Path, tmp_path: Path) -> None:
    with Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", watch=True)
    try:
        watcher_of(engine)
    finally:
        engine.close()


@pytest.mark.skipif(not hasattr(os, "getpriority") or not os.path.isdir("/proc/self/task"),
                    reason="per-thread nice values are Linux's")
def test_lowered_work_runs_on_its_own_thread_and_the_caller_keeps_its_priority() -> None:
    def nice_of_this_thread() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = nice_of_this_thread()
    assert run_lowered(nice_of_this_thread) == min(before + BUILD_NICENESS, 19)
    assert nice_of_this_thread() == before  # a watcher started here is not lowered

    def fails() -> None:
        raise ValueError("raised in the waiting thread")

    with pytest.raises(ValueError, match="waiting thread"):
        run_lowered(fails)


@pytest.mark.skipif(not hasattr(os, "getpriority") or not os.path.isdir("/proc/self/task"),
                    reason="per-thread nice values are Linux's")
def test_a_build_started_by_a_lowered_caller_runs_below_it() -> None:
    # A server started under `nice` ran its build at the build's own nice value, no lower
    # than the calls it answered meanwhile.
    def nice_of_this_thread() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    seen: dict[str, int] = {}

    def lowered_caller() -> None:  # a thread of its own: its nice value goes with it
        caller = min(nice_of_this_thread() + 3, 19)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), caller)
        seen["caller"] = nice_of_this_thread()
        seen["build"] = run_lowered(nice_of_this_thread)

    thread = threading.Thread(target=lowered_caller)
    thread.start()
    thread.join()
    assert seen["build"] == min(seen["caller"] + BUILD_NICENESS, 19)


def test_a_one_call_workspace_walks_its_tree_once_per_call(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line opens the index, walks the tree for changes and makes one call: no
    watcher, no folder snapshot for sweeps that will never come, no second walk."""
    from sari_core.engine.changes.changes import StatSweep
    from sari_core.engine.files.ignore import IgnoreRules

    with Workspace([repo], index_path=tmp_path / "index.sqlite", watch=False) as engine:
        engine.ensure_index(progress=False)
    folder_walks: list[str] = []
    real_walk_dirs = IgnoreRules.walk_dirs

    def counted(self: IgnoreRules, *args: object, **kwargs: object) -> object:
        folder_walks.append(str(self.root))
        return real_walk_dirs(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IgnoreRules, "walk_dirs", counted)
    engine = Workspace([repo], index_path=tmp_path / "index.sqlite", one_call=True)
    assert isinstance(engine._changes, StatSweep)
    walks: list[str] = []
    real_refresh = engine.indexer.refresh

    def refresh(**kwargs: object) -> IndexStats:
        walks.append("walk")
        return real_refresh(**kwargs)  # type: ignore[arg-type]

    engine.indexer.refresh = refresh  # type: ignore[method-assign]
    write(repo, "src/other.py", "edited_before_the_call = 1\n")
    engine.ensure_index(progress=False)
    with Kernel(engine) as kernel:
        found = kernel.execute_search({"query": "edited_before_the_call"})["matches"]
        assert {match["path"] for match in found} == {"src/other.py"}
    assert walks == ["walk"]
    assert folder_walks == []
