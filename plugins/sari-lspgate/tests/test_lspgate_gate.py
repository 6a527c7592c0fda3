"""The gate through the kernel, with the real ruff and basedpyright servers (shared, warm).

One kernel serves the module; each test uses its own session and its own files, so the
gate state of one test never reaches another.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lspgate_workspace import edit, external_write, gate_note, lspgate_kernel, stabilization

from sari_core import Kernel
from sari_core.models import CompactionEvent

CALC = ("def add(a: int, b: int) -> int:\n    return a + b\n\n\n"
        "def double(x: int) -> int:\n    return add(x, x)\n")
REPORT = ("from pkg.calc import add\n\n\ndef total(values: list[int]) -> int:\n"
          "    result = 0\n    for value in values:\n        result = add(result, value)\n"
          "    return result\n")
# A type error that was there before any edit: returning an int as str.
LEGACY = ("def label(count: int) -> str:\n    return count\n\n\n"
          "def shout(text: str) -> str:\n    return text.upper()\n")
TYPED = "def parse(text: str) -> int:\n    return int(text)\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/calc.py": CALC,
    "pkg/report.py": REPORT,
    "pkg/legacy.py": LEGACY,
    "pkg/typed.py": TYPED,
    "pkg/twice.py": "def one() -> int:\n    return 1\n\n\ndef two() -> int:\n    return 2\n",
    "pkg/watched.py": "VALUE = 1\n",
    "pkg/bystander.py": "NAME = 'x'\n",
    "notes.md": "# notes\n",
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    root = tmp_path_factory.mktemp("gate-ws")
    kernel = lspgate_kernel(root, FILES)
    yield kernel
    kernel.close()


def root_of(kernel: Kernel) -> Path:
    return kernel.roots[0]


def test_syntax_error_gates_and_a_mutation_of_another_file_is_refused(kernel: Kernel) -> None:
    session = "syntax"
    broken = edit(kernel, "pkg/calc.py", "return a + b", "return a + (b", session)

    # The edit itself is written (ok) and reports the gate.
    assert broken["ok"] is True
    assert (root_of(kernel) / "pkg/calc.py").read_text().count("(b") == 1
    assert broken["meta"]["gated"]["code"] == "LSP_GATE_BLOCKED"
    assert "LSP_GATE_BLOCKED" in stabilization(broken)["reason_codes"]
    note = gate_note(broken)
    assert note["gate"] == "gated"
    assert note["gated_files"] == ["pkg/calc.py"]
    assert note["summary"]["count"] >= 1
    assert all(example.startswith("pkg/calc.py:") for example in note["summary"]["examples"])
    assert len(note["summary"]["examples"]) <= 5
    introduced = note["changes"][0]["introduced"]
    assert {d["source"] for d in introduced} >= {"ruff"}
    assert {d["severity"] for d in introduced} == {"error"}

    # Another file: refused, untouched, with the summary and reads of the failing lines.
    refused = edit(kernel, "pkg/report.py", "result = 0", "result = 1", session)
    assert refused["ok"] is False
    assert refused["error"]["code"] == "LSP_GATE_BLOCKED"
    assert "pkg/calc.py:" in refused["error"]["message"]
    assert "result = 0" in (root_of(kernel) / "pkg/report.py").read_text()
    calls = stabilization(refused)["next_calls"]
    assert calls and calls[0]["tool"] == "read"
    assert calls[0]["arguments"]["target"] == "pkg/calc.py"
    assert calls[0]["arguments"]["mode"] == "snippet"
    assert calls[0]["arguments"]["session_id"] == session
    # Any other file, validated or not, is refused while gated.
    notes = kernel.execute_mutation("write", {"path": "notes.md", "content": "# changed\n",
                                              "session_id": session})
    assert notes["ok"] is False and notes["error"]["code"] == "LSP_GATE_BLOCKED"

    # Reads and searches are served, with a warning.
    read = kernel.execute_read({"mode": "file", "target": "pkg/report.py",
                                "session_id": session})
    assert read["ok"] is True
    assert "LSP_GATE_ACTIVE" in stabilization(read)["reason_codes"]
    assert any("pkg/calc.py" in warning for warning in stabilization(read)["warnings"])
    search = kernel.execute_search({"query": "def total", "session_id": session})
    assert search["ok"] is True
    assert "LSP_GATE_ACTIVE" in stabilization(search)["reason_codes"]

    # Another session is not gated.
    other = edit(kernel, "pkg/bystander.py", "'x'", "'y'", "bystander")
    assert other["ok"] is True and "gated" not in other["meta"]

    # The gated file may be edited: the fix is validated and lifts the gate.
    fixed = edit(kernel, "pkg/calc.py", "return a + (b", "return a + b", session)
    assert fixed["ok"] is True
    assert "gated" not in fixed["meta"]
    assert "LSP_GATE_LIFTED" in stabilization(fixed)["reason_codes"]
    assert gate_note(fixed)["gate"] == "lifted"
    allowed = edit(kernel, "pkg/report.py", "result = 0", "result = 1", session)
    assert allowed["ok"] is True and "gated" not in allowed["meta"]
    read = kernel.execute_read({"mode": "file", "target": "pkg/report.py",
                                "session_id": session})
    assert "LSP_GATE_ACTIVE" not in stabilization(read)["reason_codes"]


def test_editing_a_file_with_an_old_type_error_without_adding_one_does_not_gate(
        kernel: Kernel) -> None:
    session = "legacy"
    # Lines inserted above the old error move it: it is matched by code and message.
    response = edit(kernel, "pkg/legacy.py", "def label(count: int) -> str:",
                    "# Labels.\n# Shouted.\n\n\ndef label(count: int) -> str:", session)
    assert response["ok"] is True
    assert "gated" not in response["meta"]
    assert "LSP_GATE_BLOCKED" not in stabilization(response)["reason_codes"]
    assert "LSP_PREEXISTING_ERRORS" in stabilization(response)["reason_codes"]
    change = gate_note(response)["changes"][0]
    assert change["introduced"] == []
    assert change["preexisting_errors"] >= 1

    second = edit(kernel, "pkg/legacy.py", "text.upper()", "text.lower()", session)
    assert "gated" not in second["meta"]
    assert gate_note(second)["changes"][0]["introduced"] == []


def test_a_type_error_introduced_gates_through_basedpyright(kernel: Kernel) -> None:
    session = "typed"
    response = edit(kernel, "pkg/typed.py", "return int(text)", "return text", session)
    assert response["ok"] is True
    assert response["meta"]["gated"]["code"] == "LSP_GATE_BLOCKED"
    introduced = gate_note(response)["changes"][0]["introduced"]
    assert [(d["source"], d["code"], d["line"]) for d in introduced] == [
        ("basedpyright", "reportReturnType", 2)]
    assert "pkg/typed.py:2 - " in response["meta"]["gated"]["message"]

    fixed = edit(kernel, "pkg/typed.py", "return text", "return int(text)", session)
    assert "gated" not in fixed["meta"]
    assert "LSP_GATE_LIFTED" in stabilization(fixed)["reason_codes"]


def test_the_gate_stays_until_every_introduced_error_is_gone(kernel: Kernel) -> None:
    session = "twice"
    first = edit(kernel, "pkg/twice.py", "return 1", "return 'one'", session)
    assert first["meta"]["gated"]
    second = edit(kernel, "pkg/twice.py", "return 2", "return 'two'", session)
    assert gate_note(second)["summary"]["count"] == 2
    half = edit(kernel, "pkg/twice.py", "return 'one'", "return 1", session)
    assert half["meta"]["gated"]
    assert gate_note(half)["summary"]["count"] == 1
    assert "pkg/twice.py:6 - " in gate_note(half)["summary"]["examples"][0]
    done = edit(kernel, "pkg/twice.py", "return 'two'", "return 2", session)
    assert "gated" not in done["meta"]
    assert "LSP_GATE_LIFTED" in stabilization(done)["reason_codes"]


def test_a_change_outside_sari_is_validated_and_gates_the_next_mutation(
        kernel: Kernel) -> None:
    session = "external"
    root = root_of(kernel)
    kernel.execute_read({"mode": "file", "target": "pkg/watched.py", "session_id": session})
    external_write(kernel.engine, root, "pkg/watched.py", "VALUE = (1\n")

    read = kernel.execute_read({"mode": "file", "target": "pkg/bystander.py",
                                "session_id": session})
    assert read["ok"] is True  # the call that noticed the change is served
    codes = stabilization(read)["reason_codes"]
    assert "EXTERNAL_CHANGE" in codes and "LSP_GATE_ACTIVE" in codes
    refused = edit(kernel, "pkg/bystander.py", "NAME", "OTHER_NAME", session)
    assert refused["ok"] is False and refused["error"]["code"] == "LSP_GATE_BLOCKED"
    assert "pkg/watched.py" in refused["error"]["message"]

    fixed = edit(kernel, "pkg/watched.py", "VALUE = (1", "VALUE = 1", session)
    assert fixed["ok"] is True and "LSP_GATE_LIFTED" in stabilization(fixed)["reason_codes"]


def test_compaction_summary_lists_the_open_errors(kernel: Kernel) -> None:
    session = "compaction"
    edit(kernel, "pkg/typed.py", "return int(text)", "return text", session)
    summary = kernel.compact(CompactionEvent(chat_session_id="chat-1"), session_id=session)
    assert "LSP gate: OPEN" in summary
    assert "pkg/typed.py:2 - " in summary
    edit(kernel, "pkg/typed.py", "return text", "return int(text)", session)
    assert "LSP gate" not in kernel.compact(CompactionEvent(chat_session_id="chat-1"),
                                            session_id=session)
