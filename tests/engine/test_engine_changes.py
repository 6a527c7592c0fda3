"""Files changed on disk outside Sari: re-indexed before the next answer, and reported once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_repo import watcher_of, write

from sari_core.engine import Workspace
from sari_core.engine.changes.changes import StatSweep
from sari_core.kernel import Kernel
from sari_core.models import MutationCall, SearchCall


@pytest.fixture(params=["watchfiles", "sweep"])
def engine(request: pytest.FixtureRequest, repo: Path,
           monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """Each test runs with the file-system watcher and with the fallback stat sweep forced
    (not rate-limited here, so that it too must see every change before the next call)."""
    watch = request.param == "watchfiles"
    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "0")
    workspace = Workspace([repo], watch=watch)
    workspace.ensure_index(progress=False)  # (a watched tree is watched from its first build)
    if watch:
        watcher_of(workspace)
    if not watch:
        assert isinstance(workspace._changes, StatSweep)
    request.addfinalizer(workspace.close)
    return workspace


def paths(engine: Workspace, query: str) -> set[str]:
    return {match.path for match in engine.search(SearchCall(query=query, limit=50)).matches}


def test_a_file_edited_on_disk_is_searched_again_at_once(engine: Workspace, repo: Path) -> None:
    assert paths(engine, "freshly_added_name") == set()
    with open(repo / "src" / "other.py", "a", encoding="utf-8") as handle:
        handle.write("freshly_added_name = 1\n")
    assert paths(engine, "freshly_added_name") == {"src/other.py"}  # no sleep, no poll first
    changes = engine.poll_changes()
    assert [change.path for change in changes] == ["src/other.py"]
    assert changes[0].old_text is not None and "freshly_added_name" not in changes[0].old_text
    assert changes[0].new_text is not None and changes[0].new_text.endswith(
        "freshly_added_name = 1\n")
    assert engine.poll_changes() == []  # reported once


def test_a_file_edited_twice_in_the_same_instant_is_seen(engine: Workspace, repo: Path) -> None:
    target = repo / "src" / "other.py"
    original = target.read_text()
    target.write_text(original.replace("Writer", "Writex"))
    assert paths(engine, "class Writex") == {"src/other.py"}
    stat = target.stat()
    target.write_text(original.replace("Writer", "Writey"))  # same size
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    assert paths(engine, "class Writey") == {"src/other.py"}
    assert paths(engine, "class Writex") == set()


def test_a_deleted_file_leaves_the_index(engine: Workspace, repo: Path) -> None:
    assert "web/types.ts" in paths(engine, "makeShape")
    (repo / "web" / "types.ts").unlink()
    assert paths(engine, "makeShape") == {"web/view.tsx"}
    changes = engine.poll_changes()
    assert [(c.path, c.new_text) for c in changes] == [("web/types.ts", None)]
    assert "makeShape" in (changes[0].old_text or "")
    assert engine.search(SearchCall(query="makeShape", kind="symbol")).total == 0


def test_new_files_and_folders_are_picked_up(engine: Workspace, repo: Path) -> None:
    write(repo, "fresh/deep/module.py", "def brand_new_function():\n    pass\n")
    assert paths(engine, "brand_new_function") == {"fresh/deep/module.py"}
    write(repo, "fresh/deep/later.py", "brand_new_function()\n")  # inside the new folder
    assert paths(engine, "brand_new_function") == {"fresh/deep/module.py", "fresh/deep/later.py"}
    created = {c.path: c.old_text for c in engine.poll_changes()}
    assert created == {"fresh/deep/module.py": None, "fresh/deep/later.py": None}


def test_folders_removed_and_renamed(engine: Workspace, repo: Path) -> None:
    shutil.move(str(repo / "web"), str(repo / "frontend"))
    assert paths(engine, "renderPage") == {"frontend/index.js"}
    shutil.rmtree(repo / "frontend")
    assert paths(engine, "renderPage") == set()
    write(repo, "frontend/again.js", "renderPage()\n")
    assert paths(engine, "renderPage") == {"frontend/again.js"}


def test_ignored_files_stay_out(engine: Workspace, repo: Path) -> None:
    write(repo, "notes.log", "ignored_marker\n")
    write(repo, "node_modules/other/x.js", "ignored_marker\n")
    assert paths(engine, "ignored_marker") == set()
    assert engine.poll_changes() == []


def test_a_gitignore_change_applies(engine: Workspace, repo: Path) -> None:
    assert paths(engine, "kept nested text") == {"sub/kept.txt"}
    (repo / "sub" / ".gitignore").write_text("local.txt\nkept.txt\n")
    assert paths(engine, "kept nested text") == set()
    # The rules file itself changed; the file it now ignores was not deleted: not reported.
    assert [c.path for c in engine.poll_changes()] == ["sub/.gitignore"]
    (repo / "sub" / ".gitignore").write_text("kept.txt\n")
    assert paths(engine, "execute_read local") == {"sub/local.txt"}


def test_sari_writes_are_not_reported_as_external(engine: Workspace, repo: Path) -> None:
    changes = engine.plan_mutation(MutationCall(tool="edit", path="src/other.py",
                                                old_string="Writer", new_string="Author"))
    engine.apply_mutation(changes)
    assert paths(engine, "class Author") == {"src/other.py"}  # re-indexed immediately
    assert engine.poll_changes() == []
    write(repo, "src/other.py", "external = True\n")
    assert [c.old_text for c in engine.poll_changes()] == [changes[0].new_text]


def test_a_git_checkout_is_seen(engine: Workspace, repo: Path) -> None:
    write(repo, "src/app.py", "checkout_marker = 1\n")
    assert paths(engine, "checkout_marker") == {"src/app.py"}
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--", "src/app.py"], check=True)
    assert paths(engine, "checkout_marker") == set()
    assert "src/app.py" in paths(engine, "def helper")


def test_changes_reach_the_kernel_as_external_mutations(engine: Workspace, repo: Path) -> None:
    from sari_core.kernel.manager import hookimpl
    from sari_core.models import MutationEvent

    seen: list[MutationEvent] = []

    class Recorder:
        @hookimpl
        def on_mutation(self, event: MutationEvent, session: object) -> None:
            seen.append(event)

    with Kernel(engine, plugins=[Recorder()], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        write(repo, "src/other.py", "rewritten_outside = 1\n")
        response = kernel.execute_search({"query": "rewritten_outside"})
    assert response["matches"][0]["path"] == "src/other.py"
    assert "EXTERNAL_CHANGE" in response["meta"]["stabilization"]["reason_codes"]
    assert [(e.source, e.paths) for e in seen] == [("external", ["src/other.py"])]


def test_the_fallback_sweep_is_rate_limited(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "3600")
    with Workspace([repo], watch=False) as workspace:
        workspace.ensure_index(progress=False)
        assert workspace.poll_changes() == []  # the one sweep of this interval
        swept: list[bool] = []
        original = workspace.indexer.refresh

        def counting_refresh(**kwargs: object) -> object:
            swept.append(True)
            return original(**kwargs)

        monkeypatch.setattr(workspace.indexer, "refresh", counting_refresh)
        for _ in range(20):
            workspace.poll_changes()
        assert swept == []  # twenty calls, no walk of the tree


def test_the_fallback_rechecks_the_paths_a_call_touches() -> None:
    sweep = StatSweep(interval=3600)
    assert sweep.drain() == (set(), True)
    assert sweep.drain(touching=[(0, "src/app.py")]) == ({(0, "src/app.py")}, False)


def test_watching_impossible_falls_back_to_the_sweep(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    import watchfiles

    def no_watches(*paths: object, **options: object) -> Iterator[set[tuple[object, str]]]:
        raise OSError(28, "inotify watch limit reached")  # as the watcher starts
        yield set()

    monkeypatch.setattr(watchfiles, "watch", no_watches)
    with caplog.at_level("INFO"), Workspace([repo], watch=True) as workspace:
        workspace.ensure_index(progress=False)
        assert isinstance(workspace._changes, StatSweep)
    said = [record for record in caplog.records if "no file watcher" in record.getMessage()]
    assert said and "watch limit reached" in said[0].getMessage()
    if sys.platform.startswith("linux"):  # inotify is always there: losing it is a warning
        assert said[0].levelname == "WARNING"


def test_the_watcher_leaves_no_marker_folder_behind(repo: Path) -> None:
    workspace = Workspace([repo], watch=True)
    workspace.ensure_index(progress=False)
    source = watcher_of(workspace)
    marker_dir = Path(source._marker_dir)
    assert marker_dir.is_dir() and not marker_dir.is_relative_to(repo)
    workspace.close()
    assert not marker_dir.exists()


def test_between_rate_limited_sweeps_a_read_rechecks_its_file(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sari_core.models import ReadCall

    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "3600")
    with Workspace([repo], watch=False) as workspace:
        workspace.ensure_index(progress=False)
        assert workspace.poll_changes() == []  # this interval's sweep
        write(repo, "src/other.py", "edited_between_sweeps = 1\n")
        result = workspace.read(ReadCall(mode="file", target="src/other.py"))
        assert "edited_between_sweeps" in result.text
        assert [c.path for c in workspace.poll_changes()] == ["src/other.py"]
        assert paths(workspace, "edited_between_sweeps") == {"src/other.py"}


def test_between_rate_limited_sweeps_an_edit_rechecks_its_file(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "3600")
    with Workspace([repo], watch=False) as workspace:
        workspace.ensure_index(progress=False)
        assert workspace.poll_changes() == []
        write(repo, "src/other.py", "class Edited:\n    pass\n")
        changes = workspace.plan_mutation(MutationCall(
            tool="edit", path="src/other.py", old_string="Edited", new_string="Renamed"))
        reported = workspace.poll_changes()
        assert [(c.path, c.new_text) for c in reported] == [
            ("src/other.py", "class Edited:\n    pass\n")]
        workspace.apply_mutation(changes)
        assert paths(workspace, "class Renamed") == {"src/other.py"}


def test_a_watcher_without_ordered_events_rechecks_the_touched_paths(repo: Path) -> None:
    with Workspace([repo], watch=True) as workspace:
        workspace.ensure_index(progress=False)
        source = watcher_of(workspace)
        assert source.drain(touching=[(0, "src/app.py")]) == (set(), False)  # ordered: exact
        source.ordered = False  # as on a backend that delivers folders independently
        assert source.drain(touching=[(0, "src/app.py")]) == ({(0, "src/app.py")}, False)


def test_without_a_watcher_changes_are_found_without_walking_the_tree(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edits, new files (in old and new folders) and deletions are seen by a stat check;
    the tree is not walked again while the full-walk interval lasts."""
    import time

    monkeypatch.setenv("SARI_SWEEP_INTERVAL", "0.05")
    with Workspace([repo], watch=False) as workspace:
        workspace.ensure_index(progress=False)
        walks: list[bool] = []
        original = workspace.indexer.refresh

        def counting_refresh(**kwargs: object) -> object:
            walks.append(True)
            return original(**kwargs)

        monkeypatch.setattr(workspace.indexer, "refresh", counting_refresh)
        time.sleep(0.06)
        assert workspace.poll_changes() == []
        write(repo, "src/other.py", "edited_in_place = 1\n")
        write(repo, "src/brand_new.py", "brand_new_name = 2\n")
        (repo / "src" / "test_app.py").unlink()
        time.sleep(0.06)
        changed = sorted(change.path for change in workspace.poll_changes())
        assert changed == ["src/brand_new.py", "src/other.py", "src/test_app.py"]
        assert walks == []
        write(repo, "fresh/deep/mod.py", "deep_name = 3\n")
        time.sleep(0.06)
        assert [c.path for c in workspace.poll_changes()] == ["fresh/deep/mod.py"]
        found = workspace.search(SearchCall(query="deep_name"))
        assert [m.path for m in found.matches] == ["fresh/deep/mod.py"]
