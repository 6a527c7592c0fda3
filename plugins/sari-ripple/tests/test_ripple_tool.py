"""``context_tiers`` through the kernel: reads and edits make the round, the tool closes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ripple_workspace import DiskMemoryEngine

from sari_core import Kernel
from sari_core.kernel.manager import hookimpl
from sari_core.kernel.sessions import Session
from sari_core.models import FileChange, TierEntry
from sari_ripple.plugin import RipplePlugin

FILES = {
    "pkg/a.py": "def a():\n    return 1\n",
    "pkg/b.py": "def b():\n    return 2\n",
    "pkg/c.py": "def c():\n    return 3\n" * 100,
    "README.md": "# readme\n",
}
# These tests describe ripple promotion (gated by age): they pin that policy.
NO_REFS = {"ripple": {"policy": "gated", "initial_from_references": False}}


class TierObserver:
    """Records every on_tier_entry the kernel fires."""

    name = "test.tier_observer"

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, str | None, int, str, str]] = []

    @hookimpl
    def on_tier_entry(self, entry: TierEntry, session: Session) -> None:
        self.entries.append((entry.item, entry.tier, entry.previous_tier, entry.n_value,
                             entry.reason, session.session_id or ""))


def _tiers(response: dict[str, Any]) -> dict[str, dict[str, int]]:
    assert response["ok"], response
    return {tier: {entry["item"]: entry["n"] for entry in data["items"]}
            for tier, data in response["tiers"].items() if data["items"]}


def _round(kernel: Kernel, items: list[Any], session: str = "s1", **extra: Any
           ) -> dict[str, Any]:
    return kernel.execute_tool("context_tiers", {"items": items, "session_id": session, **extra})


def _read(kernel: Kernel, path: str, session: str = "s1") -> None:
    assert kernel.execute_read({"mode": "file", "target": path, "session_id": session})["ok"]


def test_reads_are_active_and_the_rest_of_the_context_is_cached(make_kernel) -> None:
    observer = TierObserver()
    kernel = make_kernel(FILES, RipplePlugin(), observer, settings=NO_REFS)
    _read(kernel, "pkg/a.py")
    first = _round(kernel, ["pkg/a.py", "pkg/b.py", "pkg/c.py"])
    assert _tiers(first) == {"L3": {"pkg/b.py": 3, "pkg/c.py": 3}, "active": {"pkg/a.py": 0}}
    assert first["round"] == 1 and first["tool"] == "context_tiers"
    assert [(m["item"], m["to"], m["reason"]) for m in first["moved"]] == [
        ("pkg/b.py", "L3", "initial"), ("pkg/c.py", "L3", "initial"),
        ("pkg/a.py", "active", "initial")]
    # Nothing read in round 2: a leaves Active and ripples into L3.
    second = _round(kernel, ["pkg/a.py", "pkg/b.py", "pkg/c.py"])
    assert _tiers(second) == {"L3": {"pkg/a.py": 3, "pkg/b.py": 4, "pkg/c.py": 4}}
    assert second["moved"] == [{"item": "pkg/a.py", "from": "active", "to": "L3", "n": 3,
                                "reason": "inactive"}]
    assert observer.entries[-1] == ("pkg/a.py", "L3", "active", 3, "inactive", "s1")
    assert len(observer.entries) == 4


def test_an_edit_demotes_at_once_and_fires_on_tier_entry(make_kernel) -> None:
    observer = TierObserver()
    kernel = make_kernel(FILES, RipplePlugin(), observer, settings=NO_REFS)
    _round(kernel, ["pkg/a.py", "pkg/b.py"])
    edit = kernel.execute_mutation("edit", {"path": "pkg/b.py", "old_string": "return 2",
                                            "new_string": "return 20", "session_id": "s1"})
    assert edit["ok"], edit
    assert observer.entries[-1] == ("pkg/b.py", "active", "L3", 0, "modified", "s1")
    response = _round(kernel, ["pkg/a.py", "pkg/b.py"])
    assert _tiers(response) == {"L3": {"pkg/a.py": 3}, "active": {"pkg/b.py": 0}}
    assert response["moved"][0] == {"item": "pkg/b.py", "from": "L3", "to": "active", "n": 0,
                                    "reason": "modified"}


def test_a_change_seen_on_disk_demotes_the_file(workspace_root: Path, state_folder: Path) -> None:
    engine = DiskMemoryEngine(FILES, workspace_root)
    with Kernel(engine, plugins=[RipplePlugin()], load_entry_points=False, settings=NO_REFS,
                analytics_sinks=[]) as kernel:
        _round(kernel, ["pkg/a.py", "pkg/b.py"])
        new_text = "def a():\n    return 100\n"
        (workspace_root / "pkg/a.py").write_text(new_text, encoding="utf-8")
        engine.external.append(FileChange(path="pkg/a.py", abs_path=str(workspace_root / "pkg/a.py"),
                                          old_text=FILES["pkg/a.py"], new_text=new_text))
        kernel.execute_search({"query": "def", "session_id": "s1"})  # notices the change
        response = _round(kernel, ["pkg/a.py", "pkg/b.py"])
    assert _tiers(response) == {"L3": {"pkg/b.py": 3}, "active": {"pkg/a.py": 0}}


def test_a_deleted_file_is_dropped_on_the_next_round(make_kernel, workspace_root: Path) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    _round(kernel, ["pkg/a.py", "pkg/b.py"])
    (workspace_root / "pkg/b.py").unlink()
    response = _round(kernel, ["pkg/a.py", "pkg/b.py"])
    assert response["dropped"] == ["pkg/b.py"] and response["missing"] == ["pkg/b.py"]
    assert _tiers(response) == {"L3": {"pkg/a.py": 3}}


def test_the_plan_has_a_breakpoint_after_each_non_empty_tier(make_kernel) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    _round(kernel, ["pkg/a.py"])
    _read(kernel, "README.md")
    response = _round(kernel, ["pkg/a.py", "README.md"], include_text=True)
    plan = response["plan"]
    assert plan["breakpoints"] == 1
    assert [(b["tier"], b["items"], "cache_control" in b) for b in plan["blocks"]] == [
        ("L3", ["pkg/a.py"], True), ("active", ["README.md"], False)]
    assert plan["content"] == [
        {"type": "text", "text": f'<file path="pkg/a.py">\n{FILES["pkg/a.py"]}</file>\n',
         "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": f'<file path="README.md">\n{FILES["README.md"]}</file>\n'},
    ]
    assert response["tiers"]["L3"]["tokens"] == (len(FILES["pkg/a.py"]) + 3) // 4


def test_token_aware_setting_merges_small_tiers(make_kernel) -> None:
    kernel = make_kernel(FILES, settings={"ripple": {"policy": "gated", "initial_from_references": False,
                                                     "token_aware": True,
                                                     "min_cache_tokens": 1024}})
    _read(kernel, "pkg/a.py")
    response = _round(kernel, ["pkg/a.py", "pkg/b.py"])
    assert response["token_aware"] is True
    assert [(b["tiers"], "cache_control" in b) for b in response["plan"]["blocks"]] == [
        (["L3", "active"], False)]


def test_non_file_items_carry_their_version_and_size(make_kernel) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    history = {"id": "history", "version": "v1", "tokens": 5000}
    first = _round(kernel, [history, "pkg/a.py"])
    assert _tiers(first) == {"L3": {"history": 3, "pkg/a.py": 3}}
    assert first["tiers"]["L3"]["tokens"] == 5000 + (len(FILES["pkg/a.py"]) + 3) // 4
    second = _round(kernel, [{**history, "version": "v2"}, "pkg/a.py"])
    assert _tiers(second) == {"L3": {"pkg/a.py": 3}, "active": {"history": 0}}


def test_client_declared_active_items_count(make_kernel) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    response = _round(kernel, ["pkg/a.py"], active=["pkg/b.py"])
    assert _tiers(response) == {"L3": {"pkg/a.py": 3}, "active": {"pkg/b.py": 0}}


def test_sessions_have_separate_tiers(make_kernel) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    _read(kernel, "pkg/a.py", session="one")
    one = _round(kernel, ["pkg/a.py"], session="one")
    two = _round(kernel, ["pkg/a.py"], session="two")
    assert _tiers(one) == {"active": {"pkg/a.py": 0}}
    assert _tiers(two) == {"L3": {"pkg/a.py": 3}}


def test_invalid_arguments_are_refused(make_kernel) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    response = kernel.execute_tool("context_tiers", {"items": "pkg/a.py", "bogus": 1})
    assert not response["ok"] and response["error"]["code"] == "INVALID_ARGS"


def test_context_tiers_exists_only_with_the_plugin(make_kernel) -> None:
    kernel = make_kernel(FILES, object())
    response = kernel.execute_tool("context_tiers", {"items": []})
    assert not response["ok"] and response["error"]["code"] == "UNKNOWN_TOOL"
    assert "context_tiers" in make_kernel(FILES).tools


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "pkg/\x00a.py"])
def test_paths_outside_the_workspace_are_never_read(make_kernel, path: str) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    response = _round(kernel, [path, "pkg/a.py"])
    assert path in response["missing"] or path.lstrip("/") in response["missing"]
    assert _tiers(response) == {"L3": {"pkg/a.py": 3}}


def test_a_symlink_out_of_the_workspace_is_never_read(make_kernel, workspace_root: Path,
                                                      tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n", encoding="utf-8")
    kernel = make_kernel(FILES, settings=NO_REFS)
    (workspace_root / "link.txt").symlink_to(outside)
    response = _round(kernel, ["link.txt", "pkg/a.py"])
    assert response["missing"] == ["link.txt"]


def test_absolute_and_dotted_paths_name_the_same_item(make_kernel, workspace_root: Path) -> None:
    kernel = make_kernel(FILES, settings=NO_REFS)
    response = _round(kernel, [str(workspace_root / "pkg" / "a.py"), "./pkg/b.py"])
    assert _tiers(response) == {"L3": {"pkg/a.py": 3, "pkg/b.py": 3}}
