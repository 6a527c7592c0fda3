"""``sari serve --transport http`` as a subprocess with any bind options, for the security tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from e2e_harness import make_git_workspace, server_env  # noqa: E402
from sari_http import Served, serve_argv  # noqa: E402
from sari_http import serve_http as serve  # noqa: E402

__all__ = ["Served", "make_git_workspace", "serve", "server_env", "start_fails"]


def start_fails(workspace: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    """Run a server start that is expected to be refused; bounded."""
    return subprocess.run(serve_argv(workspace, "--transport", "http", "--port", "0", *options),
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
