"""Build every distribution as a user receives it and check each one installs alone.

For sari-core and each plugin under ``plugins/``: build the sdist and the wheel
(``python -m build``), ``twine check`` both, then install the wheel into a fresh virtualenv
(uv's, a plugin beside the sari-core wheel just built, nothing else of this checkout) and import
it. Prints one line per distribution and exits 1 if any step failed.

    python tools/release_check.py [--dist-dir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent


def distributions() -> list[tuple[str, Path, str]]:
    """(name, source folder, import name) of sari-core and every plugin."""
    found = [("sari-core", ROOT, "sari_core")]
    for folder in sorted((ROOT / "plugins").iterdir()):
        if (folder / "pyproject.toml").exists():
            name = tomllib.loads((folder / "pyproject.toml").read_text())["project"]["name"]
            found.append((name, folder, name.replace("-", "_")))
    return found


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True,
                          text=True, check=False)


def tracked_copy(folder: Path, into: Path) -> Path:
    """The files git tracks under ``folder``, copied to ``into``: a build from the checkout
    itself would see untracked files and leave ``*.egg-info`` behind, whose stale entry
    points then shadow the installed ones for anything run from the checkout."""
    listed = run("git", "ls-files", "-z", "--", ".", cwd=folder)
    for relative in filter(None, listed.stdout.split("\0")):
        source = folder / relative
        if source.is_file():
            target = into / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def check(name: str, folder: Path, module: str, out: Path, core_wheel: Path | None
          ) -> tuple[str, Path | None]:
    target = out / name
    with tempfile.TemporaryDirectory(prefix=f"{name}-src-") as source:
        built = run(sys.executable, "-m", "build", "--outdir", target,
                    tracked_copy(folder, Path(source)))
    if built.returncode:
        return f"build failed: {built.stderr.strip().splitlines()[-1:]}", None
    files = sorted(target.iterdir())
    wheels = [path for path in files if path.suffix == ".whl"]
    sdists = [path for path in files if path.name.endswith(".tar.gz")]
    if len(wheels) != 1 or len(sdists) != 1:
        return f"expected one wheel and one sdist, got {[p.name for p in files]}", None
    twine = run(sys.executable, "-m", "twine", "check", "--strict", *files)
    if twine.returncode:
        return f"twine check failed: {twine.stdout.strip()}", wheels[0]
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as env_dir:
        # uv builds the virtualenv and installs: the same resolution as pip, in seconds.
        created = run(sys.executable, "-m", "uv", "venv", "--quiet", "--python", sys.executable,
                      env_dir)
        if created.returncode:
            return f"virtualenv failed: {created.stderr.strip().splitlines()[-1:]}", wheels[0]
        python = Path(env_dir) / "bin" / "python"
        wanted = [wheels[0]] if core_wheel is None else [core_wheel, wheels[0]]
        installed = run(sys.executable, "-m", "uv", "pip", "install", "--quiet", "--python",
                        python, *wanted)
        if installed.returncode:
            return f"install failed: {installed.stderr.strip().splitlines()[-1:]}", wheels[0]
        imported = run(python, "-c", f"import {module}; print({module}.__name__)", cwd=Path(env_dir))
        if imported.returncode:
            return f"import failed: {imported.stderr.strip().splitlines()[-1:]}", wheels[0]
    return "ok: sdist and wheel built, twine check passed, installed alone and imported", wheels[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist-dir", type=Path, default=None,
                        help="keep the built files here (default: a temporary folder)")
    args = parser.parse_args(argv)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="sari-release-") as scratch:
        out = args.dist_dir or Path(scratch)
        core_wheel: Path | None = None
        for name, folder, module in distributions():
            verdict, wheel = check(name, folder, module, out, core_wheel)
            if name == "sari-core":
                core_wheel = wheel
            failures += not verdict.startswith("ok")
            print(f"{name}: {verdict}")
            if name == "sari-core" and core_wheel is None:
                print("release check: sari-core did not build; the plugins need it")
                return 1
    print(f"release check: {len(distributions()) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
