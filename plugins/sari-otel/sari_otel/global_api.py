"""Whose providers Sari's telemetry goes to: the process's global ones, as a library's should.

OpenTelemetry's rule for libraries: record through the global API and let the
application choose the SDK. So when the program hosting Sari (an application embedding
its kernel, or ``opentelemetry-instrument sari serve``) has set global providers,
Sari's spans and metrics go to them, with no ``OTEL_*`` needed. Only when Sari's own
command line is the program (``sari serve``) and nothing has set them does it configure
the SDK from ``OTEL_*`` and install it as the global one.

Nothing here imports OpenTelemetry: providers can only have been set by a program that
already imported its API.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# What the API hands out before anyone sets a provider (their class names).
_UNSET_PROVIDERS = frozenset({"ProxyTracerProvider", "NoOpTracerProvider",
                              "_ProxyMeterProvider", "ProxyMeterProvider", "NoOpMeterProvider"})
CLI_MODULE = "sari_core.cli.main"
# Whether the global providers are the ones Sari configured (the SDK flushes them at exit).
installed_by_sari = False
CLI_NAMES = frozenset({"sari", "sari.exe"})


def host_providers_set() -> bool:
    """True when the program set a global tracer or meter provider (an SDK, or its own)."""
    trace_api = sys.modules.get("opentelemetry.trace")
    metrics_api = sys.modules.get("opentelemetry.metrics")
    providers: list[Any] = []
    if trace_api is not None:
        providers.append(trace_api.get_tracer_provider())
    if metrics_api is not None:
        providers.append(metrics_api.get_meter_provider())
    return any(type(provider).__name__ not in _UNSET_PROVIDERS for provider in providers)


def sari_is_the_program() -> bool:
    """True under Sari's own command line (``sari serve``), not inside another program."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == CLI_MODULE:
        return True
    return bool(sys.argv) and Path(sys.argv[0]).name in CLI_NAMES


def install(tracer_provider: Any, meter_provider: Any) -> None:
    """Make these the process's global providers (once per process, as the API allows)."""
    global installed_by_sari
    from opentelemetry import metrics, trace

    installed_by_sari = True
    if tracer_provider is not None:
        trace.set_tracer_provider(tracer_provider)
    if meter_provider is not None:
        metrics.set_meter_provider(meter_provider)
