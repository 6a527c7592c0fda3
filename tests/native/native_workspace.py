"""A workspace for the native-hook tests: a 2,400-line module, a short one and a secret."""

from __future__ import annotations

import subprocess
from pathlib import Path

HANDLER = "def handler_{n}(request):\n" + "    value = request.get('x')\n" * 56 + \
    "    return value\n\n\n"
BIG = "".join(HANDLER.format(n=n) for n in range(1, 41))  # 2,400 lines, 60 a handler
SECRET_VALUE = "sk_live_0123456789abcdefghij"


def make_workspace(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "big.py").write_text(BIG)
    (root / "pkg" / "small.py").write_text("def f():\n    return 1\n")
    (root / ".env").write_text(f"API_KEY={SECRET_VALUE}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "ws"], cwd=root, check=True)
    return root
