"""The registration hooks' collectors: each plugin's values, gathered once at start.

Registration hooks (``sari_register_*``) only return values: reason codes, response
fields, settings sections, tools, analytics sinks. A plugin that fails in one of them
stops the start (its contribution would silently be missing otherwise), except CLI
commands, which the manager collects itself and skips on failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sari_core.kernel.dispatch import PluginResult

if TYPE_CHECKING:
    from sari_core.kernel.analytics import AnalyticsSink
    from sari_core.kernel.reasons import ReasonCodeSpec
    from sari_core.kernel.settings import SettingsSpec
    from sari_core.kernel.stabilization import StabilizationField
    from sari_core.kernel.tools import ToolSpec
    from sari_core.kernel.view import KernelView


class RegistrationCollectors:
    """Mixed into :class:`~sari_core.kernel.manager.SariPluginManager`: one typed method
    per registration hook, called through ``call_each`` like every other hook."""

    call_each: Any  # the manager's hook call: pm.hook.<name>(...), each plugin isolated

    def _registered(self, results: list[PluginResult], hook_name: str) -> list[PluginResult]:
        for result in results:
            if result.failure is not None:
                raise RuntimeError(
                    f"plugin {result.plugin!r} failed in {hook_name}: {result.failure}")
        return results

    def reason_codes(self) -> list[tuple[str, ReasonCodeSpec]]:
        results = self._registered(self.call_each("sari_register_reason_codes"),
                                   "sari_register_reason_codes")
        return [(r.plugin, spec) for r in results for spec in r.value]

    def stabilization_fields(self) -> list[tuple[str, StabilizationField]]:
        results = self._registered(self.call_each("sari_register_stabilization_fields"),
                                   "sari_register_stabilization_fields")
        return [(r.plugin, spec) for r in results for spec in r.value]

    def settings_specs(self) -> list[SettingsSpec]:
        results = self._registered(self.call_each("sari_register_settings"), "sari_register_settings")
        return [r.value for r in results]

    def tools(self) -> dict[str, ToolSpec]:
        tools: dict[str, ToolSpec] = {}
        for result in self._registered(self.call_each("sari_register_tools"), "sari_register_tools"):
            for spec in result.value:
                if spec.name in tools:
                    raise ValueError(
                        f"tool {spec.name!r} of plugin {result.plugin!r} is already registered")
                tools[spec.name] = spec
        return tools

    def analytics_sinks(self, kernel: KernelView) -> list[AnalyticsSink]:
        results = self._registered(self.call_each("sari_register_analytics_sinks", kernel=kernel),
                                   "sari_register_analytics_sinks")
        return [sink for r in results for sink in r.value]

