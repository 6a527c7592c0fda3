"""Lines a search answer showed (the definition shown with a hit) are not sent again by a
later read of them: they become a reference to the search, and a client rebuilds them."""

from __future__ import annotations

from pathlib import Path

from git_workspace import engine_over

from sari_aggregation import AggregationPlugin, Reconstructor
from sari_core import Kernel
from sari_core.rendering import numbered_lines
from sari_core.testing import Kernels

HELPER = "".join(f"    total = total + {n}  # step {n} of the running total\n"
                 for n in range(1, 21))
SOURCE = ("import os\n\n\n"
          "def running_total(values):\n"
          "    total = 0\n"
          f"{HELPER}"
          "    return total\n\n\n"
          "def unrelated():\n"
          "    return os.sep\n")
FILES = {"pkg/totals.py": SOURCE}
DEFINITION = (4, 26)  # running_total, its lines


def _kernels(root: Path, kernels: Kernels) -> tuple[Kernel, Kernel]:
    policed = kernels.build(engine_over(root / "a", FILES), (AggregationPlugin(),), None)
    core = kernels.build(engine_over(root / "b", FILES), (), None)
    return policed, core


def _note(response: dict) -> dict:
    return response["meta"]["stabilization"]["annotations"]["aggregation"]


def test_a_read_after_a_search_references_the_definition_the_search_showed(
        tmp_path: Path, kernels: Kernels) -> None:
    kernel, core = _kernels(tmp_path, kernels)
    found = kernel.execute_search({"query": "def running_total", "session_id": "s"})
    assert found["ok"] and "4 | def running_total(values):" in found["matches"][0]["context"]
    items = _note(found)["search_items"]
    assert items == [{"item": 1, "path": "pkg/totals.py",
                      "lines": list(range(DEFINITION[0], DEFINITION[1] + 1))}]

    read = kernel.execute_read({"mode": "file", "target": "pkg/totals.py", "session_id": "s"})
    segments = _note(read)["segments"]
    assert {"lines": list(DEFINITION), "item": 1, "search": True} in segments
    assert "running_total" not in read["text"]  # not sent a second time
    shown = numbered_lines(read["text"], read["meta"]["start_line"], segments)
    assert "4-26\t(unchanged; shown in an earlier search)" in shown

    rebuild = Reconstructor()
    assert rebuild.feed(found) is None
    truth = core.execute_read({"mode": "file", "target": "pkg/totals.py"})["text"]
    assert rebuild.feed(read) == truth == SOURCE


def test_a_search_showing_nothing_verbatim_delivers_nothing(
        tmp_path: Path, kernels: Kernels) -> None:
    kernel, _ = _kernels(tmp_path, kernels)
    found = kernel.execute_search({"query": "zzz_not_there", "session_id": "s"})
    assert "aggregation" not in found["meta"]["stabilization"].get("annotations", {})
    read = kernel.execute_read({"mode": "file", "target": "pkg/totals.py", "session_id": "s"})
    assert read["text"] == SOURCE


def test_a_file_changed_after_the_search_is_sent_whole(tmp_path: Path,
                                                        kernels: Kernels) -> None:
    kernel, _ = _kernels(tmp_path, kernels)
    kernel.execute_search({"query": "def running_total", "session_id": "s"})
    changed = SOURCE.replace("    return total\n", "    return total * 2\n")
    (tmp_path / "a" / "pkg" / "totals.py").write_text(changed, encoding="utf-8")
    read = kernel.execute_read({"mode": "file", "target": "pkg/totals.py", "session_id": "s"})
    assert read["text"] == changed


def test_a_search_reads_no_file_to_remember_what_it_showed(
        tmp_path: Path, kernels: Kernels, monkeypatch) -> None:
    kernel, _ = _kernels(tmp_path, kernels)
    probes: list[object] = []
    original = kernel.engine.read
    monkeypatch.setattr(kernel.engine, "read", lambda call: probes.append(call) or original(call))
    found = kernel.execute_search({"query": "def running_total", "session_id": "s"})
    assert _note(found)["search_items"] and probes == []
