"""The official TypeScript MCP SDK client (npm, pinned), driving ``sari serve`` over stdio.

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
    package = Path(prefix) / "node_modules" / TS_SDK / "package.json"
    if package.exists() and f'"version": "{TS_SDK_VERSION}"' in package.read_text():
        print(f"{TS_SDK} {TS_SDK_VERSION} already installed in {prefix}")
        return 0
    started = time.monotonic()
    argv = [npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
            f"{TS_SDK}@{TS_SDK_VERSION}"]
    completed = subprocess.run(argv, check=False)
    print(f"npm install {TS_SDK}@{TS_SDK_VERSION}: exit {completed.returncode} in "
          f"{time.monotonic() - started:.1f} s")
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
