"""tox finds the CPythons a developer has, not only those on PATH.

pyenv, asdf and uv keep each Python in a folder of its own and put only the selected one on
PATH (pyenv's shims refuse the others), so tox would skip the 3.10, 3.12 and 3.13 cells of a
machine that has them. Before tox looks for interpreters, their folders go on PATH, after
everything already there; tox then prints which Pythons it found and which cells it will
skip for want of one.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tox.plugin import impl

WANTED = ("3.10", "3.11", "3.12", "3.13")
VERSION_FOLDER = re.compile(r"^(?:cpython-)?(3\.\d+)\.\d+(?:-[\w.-]+)?$")


def version_folders() -> list[Path]:
    """Each installed CPython's ``bin`` folder, under pyenv, asdf and uv's own store."""
    roots = [Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions",
             Path(os.environ.get("ASDF_DATA_DIR", Path.home() / ".asdf")) / "installs" / "python",
             Path(os.environ.get("UV_PYTHON_INSTALL_DIR",
                                 Path.home() / ".local" / "share" / "uv" / "python"))]
    found: dict[str, Path] = {}
    for root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            match = VERSION_FOLDER.match(folder.name)
            binary = folder / "bin"
            if match and match.group(1) in WANTED and (binary / "python3").exists():
                found.setdefault(match.group(1), binary)
    return [found[version] for version in sorted(found)]


def on_path(version: str, path: str) -> bool:
    return any((Path(folder) / f"python{version}").exists() for folder in path.split(os.pathsep)
               if folder and "shims" not in Path(folder).parts)


@impl
def tox_add_core_config(core_conf: object, state: object) -> None:
    path = os.environ.get("PATH", "")
    extra = [str(folder) for folder in version_folders() if str(folder) not in path.split(os.pathsep)]
    if extra:
        path = os.environ["PATH"] = os.pathsep.join([path, *extra])
    have = [version for version in WANTED if on_path(version, path)]
    missing = [version for version in WANTED if version not in have]
    note = f"; cells of {', '.join(missing)} are skipped (no interpreter found)" if missing else ""
    print(f"sari: Pythons for tox: {', '.join(have) or 'none'}{note}", file=sys.stderr)
