"""Fresh virtualenvs that hold exactly the Sari distributions a test installs, built offline.

A new venv gets sari-core's third-party dependencies (pydantic, mcp, tree-sitter...) from
the running interpreter through a "shadow" folder of symlinks to its site-packages, minus
every Sari distribution, editable finder and ``.pth`` file of one. Sari's own
distributions are then pip-installed from wheels built from this repository, so what
``sari plugins`` finds in the venv is exactly what the test put there. Nothing is
downloaded: wheels are built with ``--no-build-isolation`` and installed with
``--no-index --no-deps``.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
_SARI_ENTRY = re.compile(r"(^|[_.-])sari([_.-]|$)", re.IGNORECASE)
_BUILD_LITTER = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".tox")


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({result.returncode}):\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def build_wheel(source: Path, out_dir: Path, scratch: Path) -> Path:
    """``pip wheel --no-deps`` of a copy of ``source`` (so no build litter lands in the repo)."""
    copy = scratch / source.name
    shutil.copytree(source, copy, ignore=_BUILD_LITTER)
    out_dir.mkdir(parents=True, exist_ok=True)
    before = set(out_dir.glob("*.whl"))
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "--no-index", "--wheel-dir", str(out_dir), str(copy)])
    (built,) = set(out_dir.glob("*.whl")) - before
    return built


def build_sari_core_wheel(out_dir: Path, scratch: Path) -> Path:
    """A wheel of sari-core from this checkout (only the files its build needs are copied)."""
    source = scratch / "sari-core-src"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(REPO_ROOT / "sari_core", source / "sari_core", ignore=_BUILD_LITTER)
    return build_wheel(source, out_dir, scratch / "copy")


def _shadow_site_packages(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for site_dir in site.getsitepackages():
        if not os.path.isdir(site_dir):
            continue
        for entry in Path(site_dir).iterdir():
            if _SARI_ENTRY.search(entry.name) or (dest / entry.name).exists():
                continue
            if entry.suffix == ".pth" and "sari" in entry.read_text(errors="replace").lower():
                continue
            (dest / entry.name).symlink_to(entry)
    return dest


class IsolatedVenv:
    """A venv with the running interpreter's third-party packages and no Sari distribution."""

    def __init__(self, path: Path) -> None:
        self.path = path
        venv.EnvBuilder(with_pip=False, symlinks=True).create(path)
        shadow = _shadow_site_packages(path.parent / f"{path.name}-shadow")
        site_packages = next(path.glob("lib/python*/site-packages"))
        # addsitedir, not a bare path line, so the parent's own .pth files still run.
        (site_packages / "_parent_packages.pth").write_text(
            f"import site; site.addsitedir({str(shadow)!r})\n")

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def env(self) -> dict[str, str]:
        environ = {k: v for k, v in os.environ.items()
                   if k not in {"PYTHONPATH", "SARI_PLUGINS", "SARI_DISABLE_PLUGINS",
                                 "SARI_PLUGINS_DIR"}}
        environ["PATH"] = f"{self.path / 'bin'}{os.pathsep}{environ.get('PATH', '')}"
        return environ

    def install(self, *wheels_or_dirs: Path) -> None:
        _run([sys.executable, "-m", "pip", "--python", str(self.python), "install", "--quiet",
              "--no-deps", "--no-index", "--no-build-isolation", "--no-compile",
              *map(str, wheels_or_dirs)])

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run a program of the venv (``sari``, ``python``...) in ``cwd``."""
        return _run([str(self.path / "bin" / args[0]), *args[1:]], cwd=cwd or self.path,
                    env=self.env())
