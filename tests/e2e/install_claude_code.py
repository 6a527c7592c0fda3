"""Install the pinned Claude Code CLI with npm into a folder (tox's ``commands_pre``).

Where npm is missing this prints why and exits 0: the end-to-end tests then skip
with the same reason instead of failing the environment.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from claude_code import CLAUDE_CODE_VERSION  # noqa: E402 - needs the path above


def main(prefix: str) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed: the Claude Code end-to-end tests will be skipped.")
        return 0
    binary = Path(prefix) / "node_modules" / ".bin" / "claude"
    package = Path(prefix) / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    if binary.exists() and f'"version": "{CLAUDE_CODE_VERSION}"' in package.read_text():
        print(f"Claude Code {CLAUDE_CODE_VERSION} already installed in {prefix}")
        return 0
    started = time.monotonic()
    argv = [npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
            f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}"]
    completed = subprocess.run(argv, check=False)
    print(f"npm install @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}: exit "
          f"{completed.returncode} in {time.monotonic() - started:.1f} s")
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
