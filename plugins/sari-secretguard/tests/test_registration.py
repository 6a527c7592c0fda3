"""Secretguard as an installed distribution: found through its entry point on a fresh manager."""

from __future__ import annotations

import pytest

from sari_core import Kernel
from sari_core.kernel.manager import SariPluginManager
from sari_core.testing import MemoryEngine, check_client_hook_declaration
from sari_secretguard import SecretguardPlugin, plugin


def test_the_entry_point_registers_it_on_a_fresh_plugin_manager(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "secretguard")
    pm = SariPluginManager()
    infos = pm.load_entry_points()
    enabled = [info for info in infos if info.enabled]
    assert [(i.name, i.distribution) for i in enabled] == [("secretguard", "sari-secretguard")]
    assert isinstance(pm.get_plugin("secretguard"), SecretguardPlugin)
    assert pm.hooks_of("secretguard") == (
        "on_read_enter", "on_read_exit", "on_search_complete",
        "sari_register_reason_codes", "sari_register_settings")
    # It answers no client hook, and declares so: `sari hook` never imports it.
    assert check_client_hook_declaration("secretguard") == frozenset()


def test_its_reason_codes_rank_after_the_kernel_codes() -> None:
    kernel = Kernel(MemoryEngine({}), plugins=[SecretguardPlugin()], load_entry_points=False,
                    analytics_sinks=[])
    codes = kernel.reasons.codes()
    assert codes[-2:] == ["SECRET_FILE_BLOCKED", "SECRET_REDACTED"]
    assert all(kernel.reasons.get(code).rank >= 20 for code in codes[-2:])
    assert kernel.settings.get("secretguard").redact is True


def test_a_failure_inside_it_refuses_the_read_instead_of_leaking(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, extra: object) -> None:
        raise RuntimeError("pattern table corrupted")

    monkeypatch.setattr(plugin, "redact_secrets", broken)
    kernel = Kernel(MemoryEngine({"a.py": "x = 1\n"}), plugins=[SecretguardPlugin()],
                    load_entry_points=False, analytics_sinks=[])
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert response["ok"] is False
    assert response["error"]["code"] == "PLUGIN_ERROR"
    assert "secretguard" in response["error"]["message"]
    assert "text" not in response
