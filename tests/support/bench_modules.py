"""Import a script of ``bench/`` by file name, as the tests of a bench need it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str) -> ModuleType:
    """``bench/<name>.py`` as the module ``<name>_bench`` (registered in ``sys.modules``, so
    its dataclasses resolve; the suffix keeps it clear of test folders of the same name)."""
    module_name = f"{name}_bench"
    spec = importlib.util.spec_from_file_location(module_name, BENCH_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def run_smoke(name: str, *extra: str, timeout: float = 600) -> str:
    """``bench/<name>.py --smoke`` run as a user runs it; its output, after checking it
    exited 0 (the output is in the failure message otherwise)."""
    done = subprocess.run([sys.executable, str(BENCH_DIR / f"{name}.py"), "--smoke", *extra],
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{name} --smoke failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout
