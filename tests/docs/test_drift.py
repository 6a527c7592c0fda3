"""The docs cover every hook spec, reason code, error code and setting — and the checks bite."""

from __future__ import annotations

import enum
from typing import Annotated

import pluggy
import pytest
from drift import (
    CONCEPTS_PAGE,
    CORE_SETTINGS_PAGE,
    HOOK_PAGE,
    REASON_PAGE,
    RESPONSES_PAGE,
    error_code_problems,
    hook_reference_problems,
    installed_plugins,
    kernel_reason_code_problems,
    kernel_reason_codes,
    page_text,
    plugin_reason_code_problems,
    plugin_settings_problems,
    registry_json,
    session_surface_problems,
    settings_problems,
    trust_problems,
)
from pydantic import BaseModel, Field

from sari_core.errors import ErrorCode
from sari_core.kernel.core_settings import CoreSettings
from sari_core.kernel.manager import SariPluginManager
from sari_core.kernel.reasons import ReasonCode, ReasonCodeSpec
from sari_core.kernel.sessions import Session
from sari_core.kernel.settings import SettingsSpec
from sari_core.kernel.trust import OperatorOnly


def assert_documented(problems: list[str]) -> None:
    assert not problems, "the docs drifted from the code:\n  " + "\n  ".join(problems)


ERROR_CODES = sorted(v for k, v in vars(ErrorCode).items() if k.isupper() and isinstance(v, str))

# --- what the repository documents --------------------------------------------------------


def test_every_hook_spec_is_in_the_reference_with_params_and_return() -> None:
    assert_documented(hook_reference_problems(SariPluginManager(), page_text(HOOK_PAGE)))


def test_every_kernel_reason_code_of_the_enum_and_registry_is_documented() -> None:
    codes = kernel_reason_codes()
    assert set(codes) >= {code.value for code in ReasonCode}
    assert_documented(kernel_reason_code_problems(codes, page_text(REASON_PAGE)))


def test_every_error_code_is_in_the_response_contract() -> None:
    assert ERROR_CODES
    assert_documented(error_code_problems(ERROR_CODES, page_text(RESPONSES_PAGE)))


def test_every_member_of_the_session_a_hook_is_handed_is_documented() -> None:
    assert_documented(session_surface_problems(Session, page_text(CONCEPTS_PAGE)))


def test_every_core_setting_is_documented_with_its_default() -> None:
    assert_documented(settings_problems("core", CoreSettings, CORE_SETTINGS_PAGE))


def test_every_installed_plugin_documents_its_reason_codes() -> None:
    assert_documented(plugin_reason_code_problems(installed_plugins()))


def test_every_installed_plugin_documents_every_setting_with_its_default() -> None:
    plugins = installed_plugins()
    if not plugins:
        pytest.skip("no plugin installed in this environment")
    assert_documented(plugin_settings_problems(plugins))


# --- the checks report what is left undocumented ------------------------------------------

_spec = pluggy.HookspecMarker("sari")


class UndocumentedSpecs:
    @_spec
    def on_brand_new_event(self, call, session) -> None:
        """Something new happened.

        :param call: the call.
        """


def added(before: list[str], after: list[str]) -> list[str]:
    """Problems the runtime addition caused, whatever else the docs lack right now."""
    return [problem for problem in after if problem not in before]


def test_a_spec_added_at_runtime_is_reported_until_documented() -> None:
    page = page_text(HOOK_PAGE)
    before = hook_reference_problems(SariPluginManager(), page)
    pm = SariPluginManager()
    pm.add_hookspecs(UndocumentedSpecs)
    assert added(before, hook_reference_problems(pm, page)) == [
        f"hook on_brand_new_event: no '::: {__name__}.on_brand_new_event' on docs/reference/hooks.md",
        "hook on_brand_new_event: parameter 'session' is not documented (:param session:)",
        "hook on_brand_new_event: the return value is not documented (:return:)",
    ]
    documented = page + f"\n::: {__name__}.on_brand_new_event\n"
    assert len(added(before, hook_reference_problems(pm, documented))) == 2


def test_a_session_member_added_without_docs_is_reported() -> None:
    class Grown(Session):
        __slots__ = ()

        def brand_new_helper(self) -> None:
            """Not on the concepts page."""

    page = page_text(CONCEPTS_PAGE)
    assert added(session_surface_problems(Session, page),
                 session_surface_problems(Grown, page)) == [
        "Session.brand_new_helper: not named as `session.brand_new_helper` on docs/concepts.md"]


def test_a_page_naming_a_hook_that_does_not_exist_is_reported() -> None:
    before = hook_reference_problems(SariPluginManager(), page_text(HOOK_PAGE))
    page = page_text(HOOK_PAGE) + "\n::: sari_core.kernel.hookspecs.on_read_entre\n"
    assert added(before, hook_reference_problems(SariPluginManager(), page)) == [
        "docs/reference/hooks.md documents sari_core.kernel.hookspecs.on_read_entre, which is no hook"]


def test_a_reason_code_added_to_the_enum_or_the_registry_is_reported() -> None:
    extended = enum.Enum("ReasonCode", {**{c.name: c.value for c in ReasonCode},
                                        "BRAND_NEW_ENUM_CODE": "BRAND_NEW_ENUM_CODE"})
    registry = registry_json()
    registry["codes"].append({"code": "BRAND_NEW_REGISTRY_CODE", "description": "x"})
    codes = kernel_reason_codes(extended, registry)
    before = kernel_reason_code_problems(kernel_reason_codes(), page_text(REASON_PAGE))
    assert added(before, kernel_reason_code_problems(codes, page_text(REASON_PAGE))) == [
        "reason code BRAND_NEW_ENUM_CODE: no '### `BRAND_NEW_ENUM_CODE`' section on "
        "docs/reference/reason-codes.md",
        "reason code BRAND_NEW_REGISTRY_CODE: no '### `BRAND_NEW_REGISTRY_CODE`' section on "
        "docs/reference/reason-codes.md",
    ]


def test_an_error_code_missing_from_the_contract_is_reported() -> None:
    page = page_text(RESPONSES_PAGE)
    assert added(error_code_problems(ERROR_CODES, page),
                 error_code_problems([*ERROR_CODES, "BRAND_NEW_ERROR"], page)) \
        == ["error code BRAND_NEW_ERROR: not in the table of docs/reference/responses.md"]
    # ...and a code removed from ErrorCode but still in the table is caught too
    without = [code for code in ERROR_CODES if code != "EDIT_NO_MATCH"]
    assert added(error_code_problems(ERROR_CODES, page), error_code_problems(without, page)) \
        == ["error code EDIT_NO_MATCH: documented in docs/reference/responses.md but not in ErrorCode"]


class CoreSettingsPlusOne(CoreSettings):
    brand_new_knob: int = Field(7, description="A setting nobody documented.")
    max_sessions: int = Field(99, description="A default changed without the docs.")


def test_a_setting_added_or_changed_at_runtime_is_reported() -> None:
    before = settings_problems("core", CoreSettings, CORE_SETTINGS_PAGE)
    after = settings_problems("core", CoreSettingsPlusOne, CORE_SETTINGS_PAGE)
    assert added(before, after) == [
        "setting core.max_sessions: docs/configuration.md says the default is `1024`, "
        "the model's is `99`",
        "setting core.brand_new_knob: no row | `brand_new_knob` | `7` | ... | on "
        "docs/configuration.md",
    ]


class UndocumentedSettings(BaseModel):
    level: str = "high"


class UndocumentedPlugin:
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section="undocumented_demo", model=UndocumentedSettings)

    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [ReasonCodeSpec("UNDOCUMENTED_DEMO_CODE", "x", rank=500)]


def test_a_plugin_installed_without_a_page_is_reported() -> None:
    plugins = [("undocumented_demo", UndocumentedPlugin())]
    assert plugin_settings_problems(plugins) == [
        "settings [undocumented_demo]: docs/plugins/undocumented_demo.md is missing"]
    assert plugin_reason_code_problems(plugins) == [
        "plugin undocumented_demo: reason code UNDOCUMENTED_DEMO_CODE has no page "
        "(docs/plugins/undocumented_demo.md is missing)"]


def test_a_setting_and_code_added_to_an_installed_plugin_are_reported() -> None:
    secretguard = pytest.importorskip("sari_secretguard")

    class MoreSettings(secretguard.SecretguardSettings):
        max_file_bytes: int = Field(1000, description="Undocumented.")
        no_description: bool = False

    class Extended(secretguard.SecretguardPlugin):
        def sari_register_settings(self) -> SettingsSpec:
            return SettingsSpec(section="secretguard", model=MoreSettings)

        def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
            return [*super().sari_register_reason_codes(),
                    ReasonCodeSpec("SECRET_UNDOCUMENTED", "x", rank=82)]

    plugins = [("secretguard", Extended())]
    original = [("secretguard", secretguard.SecretguardPlugin())]
    assert added(plugin_settings_problems(original), plugin_settings_problems(plugins)) == [
        "setting secretguard.max_file_bytes: no row | `max_file_bytes` | `1000` | ... | on "
        "docs/plugins/secretguard.md",
        "setting secretguard.no_description: the model gives it no description",
        "setting secretguard.no_description: no row | `no_description` | `false` | ... | on "
        "docs/plugins/secretguard.md",
    ]
    assert added(plugin_reason_code_problems(original), plugin_reason_code_problems(plugins)) == [
        "plugin secretguard: reason code SECRET_UNDOCUMENTED is not on docs/plugins/secretguard.md"]


def test_every_operator_only_setting_is_in_the_trust_table() -> None:
    models: dict[str, type[BaseModel]] = {"core": CoreSettings}
    for _, plugin in installed_plugins():
        register = getattr(plugin, "sari_register_settings", None)
        spec = register() if register else None
        if spec is not None:
            models[spec.section] = spec.model
    assert trust_problems(models, page_text(CORE_SETTINGS_PAGE)) == []


def test_an_operator_only_setting_added_without_docs_is_reported() -> None:
    class Planted(BaseModel):
        command: Annotated[list[str], OperatorOnly("runs a program")] = Field(
            default_factory=list)

    problems = trust_problems({"planted": Planted}, page_text(CORE_SETTINGS_PAGE))
    assert any("planted.command" in problem for problem in problems)
