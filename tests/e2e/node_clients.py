"""The official TypeScript MCP SDK client and the MCP Inspector CLI (npm, pinned), driving
``sari serve`` over stdio.

``python tests/e2e/node_clients.py PREFIX`` installs the pinned packages with npm into
``PREFIX`` (tox's ``commands_pre``); where npm is missing it prints why and exits 0, and the
tests that need the client skip with the same reason. :func:`run_ts_client` runs
``ts_client.mjs`` on a script of steps and returns what the SDK handed back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PREFIX_VARIABLE = "SARI_NODE_CLIENTS_PREFIX"
TS_SDK = "@modelcontextprotocol/sdk"
TS_SDK_VERSION = "1.32.2"
INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"
PACKAGES = {TS_SDK: TS_SDK_VERSION, INSPECTOR: INSPECTOR_VERSION}


def ts_sdk_prefix() -> tuple[Path | None, str]:
    """The folder holding the pinned TypeScript SDK, or None and why it is missing."""
    prefix = os.environ.get(PREFIX_VARIABLE)
    if shutil.which("node") is None:
        return None, "node is not installed"
    if not prefix:
        return None, (f"{PREFIX_VARIABLE} is not set: run `tox -e claude`, which installs "
                      f"{TS_SDK}@{TS_SDK_VERSION} with npm")
    package = Path(prefix) / "node_modules" / TS_SDK / "package.json"
    if not package.exists():
        return None, f"no {TS_SDK} under {prefix} (npm install failed?)"
    return Path(prefix), ""


def inspector_cli(prefix: Path) -> Path | None:
    """The Inspector's command-line client under ``prefix``, or None."""
    binary = prefix / "node_modules" / ".bin" / "mcp-inspector"
    return binary if binary.exists() else None


def run_inspector(prefix: Path, server: list[str], *arguments: str,
                  timeout: float = 180.0) -> dict[str, Any]:
    """``mcp-inspector --cli SERVER... ARGUMENTS``: its JSON answer."""
    binary = inspector_cli(prefix)
    assert binary is not None, f"no {INSPECTOR} under {prefix}"
    completed = subprocess.run([str(binary), "--cli", *server, *arguments], capture_output=True,
                               text=True, timeout=timeout, check=False)
    try:  # a tool error result is printed too, with a non-zero exit
        return json.loads(completed.stdout)  # type: ignore[no-any-return]
    except json.JSONDecodeError:
        raise AssertionError(f"the Inspector CLI failed (exit {completed.returncode}):\n"
                             f"{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}") from None


def sari_command(*arguments: str) -> list[str]:
    """``sari serve ...`` run by this interpreter."""
    return [sys.executable, "-m", "sari_core.cli.main", "serve", *arguments]


def run_ts_client(prefix: Path, script: dict[str, Any], timeout: float = 300.0
                  ) -> dict[str, Any]:
    """Run the TypeScript client on ``script`` (see ``ts_client.mjs``) and return its report."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(script, handle)
    try:
        completed = subprocess.run(
            ["node", str(HERE / "ts_client.mjs"), handle.name], capture_output=True, text=True,
            timeout=timeout, env={**os.environ, PREFIX_VARIABLE: str(prefix)}, check=False)
    finally:
        os.unlink(handle.name)
    if completed.returncode != 0:
        raise AssertionError(f"the TypeScript client failed (exit {completed.returncode}):\n"
                             f"{completed.stderr[-4000:]}")
    return json.loads(completed.stdout)  # type: ignore[no-any-return]


def main(prefix: str) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed: the TypeScript SDK client tests will be skipped.")
        return 0
    wanted = [f"{name}@{version}" for name, version in PACKAGES.items()
              if f'"version": "{version}"' not in _package_json(Path(prefix), name)]
    if not wanted:
        print(f"{', '.join(PACKAGES)} already installed in {prefix}")
        return 0
    # All of them in one install: npm --no-save removes the packages a command does not name.
    wanted = [f"{name}@{version}" for name, version in PACKAGES.items()]
    started = time.monotonic()
    argv = [npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", *wanted]
    completed = subprocess.run(argv, check=False)
    print(f"npm install {' '.join(wanted)}: exit {completed.returncode} in "
          f"{time.monotonic() - started:.1f} s")
    return completed.returncode


def _package_json(prefix: Path, name: str) -> str:
    try:
        return (prefix / "node_modules" / name / "package.json").read_text(encoding="utf-8")
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
