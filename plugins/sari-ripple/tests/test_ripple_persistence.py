"""Tier state survives restarts: its own file in the state folder, written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from ripple_workspace import Contents, tier_state

from sari_ripple import RippleTracker
from sari_ripple.store import load_state, save_state, slot_name, state_path

FILES = {"a.py": "A = 1\n", "b.py": "B = 2\n", "c.py": "C = 3\n"}
# These tests describe ripple promotion (gated by age): they pin that policy.
NO_REFS = {"ripple": {"policy": "gated", "initial_from_references": False}}


def test_tracker_state_round_trip_keeps_tiers_n_hashes_and_entry_order() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("x", "L1", contents("x"), n_value=10)
    tracker.update_after_response(["a", "b", "c"], contents)
    tracker.update_after_response(["c"], contents)
    data = json.loads(json.dumps(tracker.to_dict()))
    restored = RippleTracker.from_dict(data)
    assert tier_state(restored) == tier_state(tracker)
    assert restored.to_dict() == tracker.to_dict()
    # The restored tracker goes on exactly as the original would.
    for each in (tracker, restored):
        each.update_after_response(["d"], contents)
    assert tier_state(restored) == tier_state(tracker) == {
        "L1": {"x": 10}, "L3": {"a": 5, "b": 4, "c": 3}, "active": {"d": 0}}


def test_a_restored_item_keeps_its_hash_so_an_offline_edit_demotes_it() -> None:
    tracker, contents = RippleTracker(), Contents()
    tracker.place("a", "L2", contents("a"))
    restored = RippleTracker.from_dict(tracker.to_dict())
    contents.touch("a")
    assert restored.update_after_response([], contents) == {"a": "active"}


def test_save_state_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "slot.json"
    save_state(path, {"round": 1})
    save_state(path, {"round": 2})
    assert load_state(path) == {"round": 2}
    assert [p.name for p in path.parent.iterdir()] == ["slot.json"]


def test_unreadable_state_means_a_fresh_start(tmp_path: Path) -> None:
    path = tmp_path / "slot.json"
    path.write_text("{not json", encoding="utf-8")
    assert load_state(path) is None
    path.write_text("[1, 2]", encoding="utf-8")
    assert load_state(path) is None
    assert load_state(tmp_path / "missing.json") is None


def test_slots_are_per_session_id_and_shared_by_connections() -> None:
    assert slot_name(None) == "default"
    assert slot_name("abc") == slot_name("abc") != slot_name("abd")
    assert slot_name("../../etc").startswith("sid-") and "/" not in slot_name("../../etc")


def _round(kernel, items: list[str], session: str | None = "s1") -> dict:
    args = {"items": items}
    if session:
        args["session_id"] = session
    response = kernel.execute_tool("context_tiers", args)
    assert response["ok"], response
    return response


def _tiers(response: dict) -> dict[str, dict[str, int]]:
    return {tier: {e["item"]: e["n"] for e in data["items"]}
            for tier, data in response["tiers"].items() if data["items"]}


def test_state_survives_a_kernel_restart(make_kernel, state_folder: Path) -> None:
    first = make_kernel(FILES, settings=NO_REFS)
    first.execute_read({"mode": "file", "target": "a.py", "session_id": "s1"})
    _round(first, list(FILES))
    before = _tiers(_round(first, list(FILES)))
    first.close()
    path = state_path(first.workspace_hash, "s1")
    assert path.is_file() and path.is_relative_to(state_folder)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["round"] == 2 and set(saved["tracker"]["items"]) == set(FILES)

    second = make_kernel(FILES, settings=NO_REFS)
    after = _round(second, list(FILES))
    assert after["round"] == 3
    assert _tiers(after) == before == {"L3": {"a.py": 3, "b.py": 4, "c.py": 4}}
    assert after["moved"] == []


def test_connection_sessions_share_the_workspace_default_slot(make_kernel) -> None:
    first = make_kernel(FILES, settings=NO_REFS)
    first.execute_read({"mode": "file", "target": "b.py"})
    _round(first, list(FILES), session=None)
    first.close()
    second = make_kernel(FILES, settings=NO_REFS)
    response = _round(second, list(FILES), session=None)
    assert _tiers(response) == {"L3": {"a.py": 4, "b.py": 3, "c.py": 4}}


def test_persist_off_writes_nothing(make_kernel, state_folder: Path) -> None:
    kernel = make_kernel(FILES, settings={"ripple": {"policy": "gated", "persist": False,
                                                     "initial_from_references": False}})
    _round(kernel, list(FILES))
    kernel.close()
    assert not (state_folder / "ripple").exists()


def test_a_file_deleted_while_the_server_was_down_is_dropped(make_kernel,
                                                             workspace_root: Path) -> None:
    first = make_kernel(FILES, settings=NO_REFS)
    _round(first, list(FILES))
    first.close()
    (workspace_root / "c.py").unlink()
    second = make_kernel({k: v for k, v in FILES.items() if k != "c.py"}, settings=NO_REFS)
    response = _round(second, ["a.py", "b.py"])
    assert response["dropped"] == ["c.py"]
    assert _tiers(response) == {"L3": {"a.py": 3, "b.py": 3}}
