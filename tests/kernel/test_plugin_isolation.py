"""A plugin that raises never takes the call down; fail-closed is a setting."""

from __future__ import annotations

from plugins_for_tests import RaisingPolicy, WarningPolicy

from sari_core import Kernel
from sari_core.testing import MemoryEngine

FILES = {"a.py": "print('hi')\n"}


def test_raising_plugin_yields_plugin_error_and_the_read_completes() -> None:
    kernel = Kernel(MemoryEngine(FILES), plugins=[RaisingPolicy(), WarningPolicy()],
                    load_entry_points=False, analytics_sinks=[])
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert response["ok"] is True
    assert response["text"] == "print('hi')\n"
    stab = response["meta"]["stabilization"]
    assert "PLUGIN_ERROR" in stab["reason_codes"]
    assert any("test.raiser" in w and "policy bug" in w for w in stab["warnings"])
    # the next call on the same kernel is served normally, with the same isolation
    again = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert again["ok"] is True
    kernel.close()


def test_plugin_declaring_fail_closed_refuses_the_call() -> None:
    kernel = Kernel(MemoryEngine(FILES), plugins=[RaisingPolicy(fail_closed=True)],
                    load_entry_points=False, analytics_sinks=[])
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert response["ok"] is False
    assert response["error"]["code"] == "PLUGIN_ERROR"
    assert "test.raiser" in response["error"]["message"]
    assert response["meta"]["stabilization"]["reason_codes"] == ["PLUGIN_ERROR"]
    kernel.close()


def test_fail_closed_by_setting() -> None:
    kernel = Kernel(MemoryEngine(FILES), plugins=[RaisingPolicy()], load_entry_points=False,
                    analytics_sinks=[], settings={"core": {"fail_closed_plugins": ["test.raiser"]}})
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert response["ok"] is False and response["error"]["code"] == "PLUGIN_ERROR"
    kernel.close()
