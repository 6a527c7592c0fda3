"""sari-otel tests: skipped when the plugin is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# Without sari-otel installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_otel") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-otel is not installed: plugins/sari-otel/tests is left out" if PLUGIN_MISSING else None


from otel_policy import FirstReadGate  # noqa: E402

from sari_core.kernel import Kernel  # noqa: E402

if TYPE_CHECKING:
    from otel_telemetry import Telemetry

OTEL_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
             "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_TRACES_EXPORTER",
             "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED",
             "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES")


@pytest.fixture(autouse=True)
def _no_ambient_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "def handler(request):\n    return respond(request)\n\n\n"
        "def respond(request):\n    return {'ok': True}\n", encoding="utf-8")
    (root / "README.md").write_text("# demo\n\nrespond to requests\n", encoding="utf-8")
    return root


@pytest.fixture
def telemetry() -> Telemetry:
    from otel_telemetry import Telemetry

    return Telemetry()


@pytest.fixture
def kernel(workspace: Path, telemetry: Telemetry) -> Iterator[Kernel]:
    with Kernel(roots=[workspace], plugins=[telemetry.plugin, FirstReadGate()],
                load_entry_points=False, analytics_sinks=[]) as k:
        k.engine.ensure_index(progress=False)
        yield k
