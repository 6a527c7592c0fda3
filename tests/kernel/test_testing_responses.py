"""The response helpers sari_core.testing gives plugin authors read what a client reads."""

from __future__ import annotations

import pytest

from sari_core.testing import Kernels, MemoryEngine, as_received, run_next_call, stabilization

FILES = {"app.py": "def main():\n    return 1\n"}


def test_two_kernels_answer_one_read_equally_as_received(sari_kernels: Kernels) -> None:
    first, second = (sari_kernels.build(MemoryEngine(FILES)) for _ in range(2))
    call = {"mode": "file", "target": "app.py"}
    answers = [kernel.execute_read(call) for kernel in (first, second)]
    assert answers[0]["meta"]["execution_id"] != answers[1]["meta"]["execution_id"]
    assert as_received(answers[0]) == as_received(answers[1])
    assert "reason_codes" in stabilization(answers[0])


def test_a_next_call_of_another_tool_is_refused_by_name(sari_kernels: Kernels) -> None:
    kernel = sari_kernels.build(MemoryEngine(FILES))
    with pytest.raises(ValueError, match="'edit'"):
        run_next_call(kernel, {"tool": "edit", "arguments": {}})
    answer = run_next_call(kernel, {"tool": "read", "arguments": {"mode": "file", "target": "app.py"}})
    assert "def main" in str(answer)
