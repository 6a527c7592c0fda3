"""The folders Sari creates for itself in the user's home (``~/.cache``, ``~/.local``,
``~/.local/state`` and Sari's own below them) are 0700 even under umask 000."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="XDG folders of Linux")

CREATE = ("import os; os.umask(0)\n"
          "from sari_core.locations import cache_dir, private_dir, state_dir\n"
          "private_dir(state_dir() / 'logs'); private_dir(cache_dir() / 'index')\n")


def test_every_folder_sari_creates_is_private_under_umask_000(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SARI_", "XDG_"))}
    env["HOME"] = str(home)
    subprocess.run([sys.executable, "-c", CREATE], env=env, check=True)
    created = sorted(path for path in home.rglob("*") if path.is_dir())
    assert {home / ".cache", home / ".local", home / ".local" / "state"} <= set(created)
    loose = {str(path.relative_to(home)): oct(stat.S_IMODE(path.stat().st_mode))
             for path in created if stat.S_IMODE(path.stat().st_mode) != 0o700}
    assert loose == {}
