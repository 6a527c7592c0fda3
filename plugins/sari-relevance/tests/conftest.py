"""sari-relevance tests: skipped when the plugin is not installed."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest

# Without sari-relevance installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_relevance") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-relevance is not installed: plugins/sari-relevance/tests is left out" if PLUGIN_MISSING else None


from relevance_workspace import FILES, build_workspace  # noqa: E402

from sari_core import Kernel  # noqa: E402
from sari_core.testing import KernelFactory, Kernels, Settings  # noqa: E402


@pytest.fixture
def make_kernel(workspace_root: Path, kernels: Kernels) -> KernelFactory:
    """Fresh kernels over one workspace: ``make_kernel(*plugins, settings=...)``."""

    def make(*plugins: object, settings: Settings | None = None) -> Kernel:
        if not plugins:
            from sari_relevance import RelevancePlugin

            plugins = (RelevancePlugin(),)
        return kernels.build(build_workspace(workspace_root, FILES), plugins, settings)

    return make
