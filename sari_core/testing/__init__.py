"""Test helpers for plugin authors: an in-memory engine and kernels built for one test.

Not imported by :mod:`sari_core` itself; a plugin's tests import it::

    from sari_core.testing import MemoryEngine, build_kernel, check_plugin

The pytest fixtures (``sari_workspace``, ``sari_kernels``) come with ``sari-core``: its
``pytest11`` entry point loads :mod:`sari_core.testing.pytest_plugin` into every pytest
run, so a plugin's tests use them without a ``conftest.py``.
"""

from __future__ import annotations

from sari_core.testing.kernels import KernelFactory, Kernels, Settings, build_kernel
from sari_core.testing.memory_engine import MemoryEngine
from sari_core.testing.registration import check_client_hook_declaration, check_plugin
from sari_core.testing.responses import Response, as_received, run_next_call, stabilization

__all__ = ["KernelFactory", "Kernels", "MemoryEngine", "Response", "Settings", "as_received",
           "build_kernel", "check_client_hook_declaration", "check_plugin", "run_next_call",
           "stabilization"]
