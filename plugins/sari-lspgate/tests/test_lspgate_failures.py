"""Validators that crash, hang or are missing: restart, timeouts, fail-open and fail-closed."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from lspgate_workspace import KernelFactory, edit, gate_note, stabilization

from sari_core import Kernel
from sari_lspgate import navigation

FILES = {"app.py": "def value() -> int:\n    return 1\n", "other.py": "NAME = 'x'\n"}
SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
# A "language server" that reads its input and never answers initialize.
MUTE_SERVER = [sys.executable, "-c", "import sys\nfor _ in sys.stdin.buffer: pass"]


def plugin_of(kernel: Kernel) -> object:
    return kernel.pm.get_plugin("lspgate")


def wait_gone(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} is still running")


def test_a_killed_language_server_is_restarted_and_the_next_edit_is_validated(
        make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES)
    first = edit(kernel, "app.py", "return 1", "return 2", "restart")
    assert "gated" not in first["meta"]
    runner = plugin_of(kernel)._get_runner()  # type: ignore[attr-defined]
    runner.prewarm()
    pids = runner.server_pids()
    assert set(pids) == {"ruff", "basedpyright"}
    for pid in pids.values():
        os.kill(pid, signal.SIGKILL)
    for pid in pids.values():
        wait_gone(pid)

    # A type error (basedpyright) and a syntax error (ruff): both servers must be back.
    response = edit(kernel, "app.py", "return 2", "return 'two' +", "restart")
    assert response["ok"] is True
    assert response["meta"]["gated"]["code"] == "LSP_GATE_BLOCKED"
    validators = {v["name"]: v for v in gate_note(response)["changes"][0]["validators"]}
    assert validators["ruff"]["status"] == "ok" and validators["ruff"]["restarted"] is True
    assert validators["basedpyright"]["status"] == "ok"
    assert validators["basedpyright"]["restarted"] is True
    sources = {d["source"] for d in gate_note(response)["changes"][0]["introduced"]}
    assert sources == {"ruff", "basedpyright"}
    new_pids = runner.server_pids()
    assert set(new_pids) == {"ruff", "basedpyright"}
    assert not set(new_pids.values()) & set(pids.values())


def hanging_settings(mode: str) -> dict[str, object]:
    return {"ruff": False, "basedpyright": False, "failure_mode": mode,
            "command_timeout_seconds": 1.0,
            "command_validators": [{"name": "sleeper", "command": SLEEPER,
                                    "patterns": ["*.py"], "parser": "gnu"}]}


def test_a_hanging_validator_times_out_and_fails_open(make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, **hanging_settings("open"))
    started = time.monotonic()
    response = edit(kernel, "app.py", "return 1", "return 2", "open")
    assert time.monotonic() - started < 30  # bounded by the timeout, not the 60 s sleep
    assert response["ok"] is True
    assert "gated" not in response["meta"]
    assert "LSP_UNAVAILABLE" in stabilization(response)["reason_codes"]
    warning = " ".join(stabilization(response)["warnings"])
    assert "sleeper did not finish within 1s" in warning and "fail-open" in warning
    validators = gate_note(response)["changes"][0]["validators"]
    assert validators[0]["status"] == "unavailable"
    # Not gated: another file may be edited.
    assert edit(kernel, "other.py", "'x'", "'y'", "open")["ok"] is True


def test_a_hanging_validator_times_out_and_fails_closed(make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, **hanging_settings("closed"))
    response = edit(kernel, "app.py", "return 1", "return 2", "closed")
    assert response["ok"] is True
    assert response["meta"]["gated"]["code"] == "LSP_GATE_BLOCKED"
    codes = stabilization(response)["reason_codes"]
    assert "LSP_GATE_BLOCKED" in codes and "LSP_UNAVAILABLE" in codes
    assert "sleeper could not validate this file" in response["meta"]["gated"]["message"]
    refused = edit(kernel, "other.py", "'x'", "'y'", "closed")
    assert refused["ok"] is False and refused["error"]["code"] == "LSP_GATE_BLOCKED"


def test_a_language_server_that_never_initializes_hits_the_startup_timeout(
        make_kernel: KernelFactory) -> None:
    kernel = make_kernel(FILES, ruff=False, basedpyright=False, startup_timeout_seconds=1.0,
                         language_servers=[{"name": "mute", "command": MUTE_SERVER,
                                            "patterns": ["*.py"]}])
    response = edit(kernel, "app.py", "return 1", "return 2", "mute")
    assert response["ok"] is True and "gated" not in response["meta"]
    assert "LSP_UNAVAILABLE" in stabilization(response)["reason_codes"]
    assert any("mute did not initialize within 1s" in w
               for w in stabilization(response)["warnings"])


@pytest.mark.parametrize("mode", ["open", "closed"])
def test_a_missing_validator_is_never_silent(make_kernel: KernelFactory, mode: str) -> None:
    kernel = make_kernel(FILES, ruff=False, basedpyright=False, failure_mode=mode,
                         language_servers=[{"name": "ghost",
                                            "command": ["sari-no-such-language-server"],
                                            "patterns": ["*.py"]}])
    response = edit(kernel, "app.py", "return 1", "return 2", "ghost")
    assert response["ok"] is True
    assert "LSP_UNAVAILABLE" in stabilization(response)["reason_codes"]
    assert ("gated" in response["meta"]) is (mode == "closed")
    text = " ".join(stabilization(response)["warnings"]) + response["meta"].get(
        "gated", {}).get("message", "")
    assert "'sari-no-such-language-server' not found" in text


SLOW_REFERENCES = [sys.executable, str(Path(__file__).with_name("slow_references_server.py"))]


def test_a_server_slower_than_the_navigation_budget_leaves_the_answer_to_the_index(
        make_kernel: KernelFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cancelled = tmp_path / "cancelled.txt"
    monkeypatch.setattr(navigation, "ANSWER_BUDGET_SECONDS", 2.0)
    # each request is in time (many definitions of a name each get this much): the sum is not
    monkeypatch.setattr(navigation, "REQUEST_TIMEOUT_SECONDS", 60.0)
    kernel = make_kernel({"app.py": "def total():\n    return 1\n\n\ntotal()\n"},
                         ruff=False, basedpyright=False,
                         language_servers=[{"name": "slow",
                                            "command": [*SLOW_REFERENCES, str(cancelled)],
                                            "patterns": ["*.py"]}])
    runner = plugin_of(kernel)._get_runner()  # type: ignore[attr-defined]
    runner.prewarm()
    deadline = time.monotonic() + 60
    while not any(server.running and server.capabilities for server, _ in runner.navigators()):
        assert time.monotonic() < deadline, "the slow server did not start"
        time.sleep(0.2)
    started = time.monotonic()
    response = kernel.execute_search({"query": "total", "kind": "references"})
    assert time.monotonic() - started < 30  # the budget, not the server's two minutes
    assert response["ok"] is True
    assert not response["meta"].get("precision", "").startswith("exact:")
    assert [m["line"] for m in response["matches"] if m.get("kind") != "definition"] == [5]
    # the request given up is cancelled at the server, which stops computing it
    deadline = time.monotonic() + 10
    while not cancelled.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cancelled.read_text(encoding="utf-8") == "cancelled"
