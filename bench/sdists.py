"""Pinned source distributions from the package index, for the benches that read real code.

pip downloads an sdist once into a cache folder outside the repository; nothing is fetched
when it is already there, and nothing is fetched while a bench measures.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path


def sdist(requirement: str, folder: Path) -> Path:
    """The archive of ``requirement`` (``name==version``) in ``folder``, downloaded on first use."""
    folder.mkdir(parents=True, exist_ok=True)
    name, version = requirement.split("==")
    # An archive's name may differ in case or in - and _ (Flask-3.0.3, typing_extensions-...).
    wanted = f"{name}-{version}.tar.gz".lower().replace("_", "-")

    def found() -> list[Path]:
        return sorted(path for path in folder.glob("*.tar.gz")
                      if path.name.lower().replace("_", "-") == wanted)

    if not found():
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", ":all:", requirement, "-d", str(folder)], check=True)
    return found()[0]


def unpack(archive: Path, into: Path) -> Path:
    """``archive`` unpacked into ``into`` (members that would land outside it are refused);
    the folder it holds, whatever case the index gave its name."""
    with tarfile.open(archive) as opened:
        opened.extractall(into, filter="data")
    return next(path for path in sorted(into.iterdir()) if path.is_dir())
