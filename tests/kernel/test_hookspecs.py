"""Every hook spec is typed and documented the way the reference needs it."""

from __future__ import annotations

import inspect
import typing

from sari_core.kernel import hookspecs
from sari_core.kernel.manager import SariPluginManager

POLICY_HOOKS = {"on_read_enter", "on_read_exit", "on_search_complete", "on_mutation",
                "on_compaction", "on_tier_entry"}


def test_the_six_policy_hooks_exist() -> None:
    assert set(hookspecs.HOOK_NAMES) >= POLICY_HOOKS


def test_registration_and_lifecycle_hooks_exist() -> None:
    assert {"sari_register_reason_codes", "sari_register_settings", "sari_register_tools",
            "on_session_start", "on_session_end"} <= set(hookspecs.HOOK_NAMES)


def test_each_spec_documents_its_params_return_and_combination() -> None:
    for name in hookspecs.HOOK_NAMES:
        spec = getattr(hookspecs, name)
        doc = inspect.getdoc(spec) or ""
        signature = inspect.signature(spec)
        for param in signature.parameters:
            assert f":param {param}:" in doc, f"{name} does not document {param}"
        assert ":return:" in doc, f"{name} does not say what it returns"
        hints = typing.get_type_hints(spec, vars(hookspecs) | _model_namespace())
        assert set(signature.parameters) | {"return"} == set(hints), f"{name} is not fully typed"


def test_specs_are_registered_with_the_manager() -> None:
    pm = SariPluginManager()
    for name in hookspecs.HOOK_NAMES:
        assert getattr(pm.hook, name).spec is not None


def _model_namespace() -> dict:
    from sari_core import models
    from sari_core.kernel import (
        analytics,
        commands,
        context,
        pipeline,
        reasons,
        sessions,
        settings,
        stabilization,
        tools,
        verdicts,
    )

    namespace: dict = {}
    for module in (analytics, commands, context, pipeline, models, reasons, sessions, settings,
                   stabilization, tools, verdicts):
        namespace.update(vars(module))
    return namespace
