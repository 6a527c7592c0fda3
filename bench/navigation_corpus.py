"""What ``bench/navigation.py`` asks about: the repository's files as the server should see
them, and the names it asks about, chosen by a fixed rule."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from sari_core.engine import Workspace

PINNED = ("get", "run")  # the common names every repository has, when the package defines them
MOST_USED = 15
CHOSEN = 30

# The smoke run's package: a shared method name (two definitions of ``close``), a function
# called from another module and from tests, and a class used through an annotation.
SMOKE_FILES = {
    "src/smokepkg/__init__.py": "",
    "src/smokepkg/files.py": (
        "class Reader:\n    def close(self):\n        return 1\n\n\n"
        "class Writer:\n    def close(self):\n        return 2\n\n\n"
        "def get(name):\n    return Reader() if name == 'r' else Writer()\n"),
    "src/smokepkg/use.py": (
        "from smokepkg.files import Reader, Writer, get\n\n\n"
        "def finish(reader: Reader, writer: Writer):\n"
        "    reader.close()\n    writer.close()\n    return get('r')\n"),
    "tests/test_files.py": (
        "from smokepkg.files import Reader, get\nfrom smokepkg.use import finish\n\n\n"
        "def test_get():\n    assert get('r').close() == 1\n    finish(Reader(), get('w'))\n"),
}


def smoke_tree(folder: Path) -> Path:
    """The smoke run's tiny project, written under ``folder``."""
    for rel, text in SMOKE_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def server_over_every_file(root: Path) -> str | None:
    """Make basedpyright analyse every Python file the index holds; say what changed.

    A project's own type-checker settings often include only its package (jinja2's
    ``[tool.pyright] include = ["src/jinja2"]``): the server then leaves out every use in
    tests/ and docs/, which the index answers over, and the ground truth would call those
    uses wrong. So both sides answer over the same files: the project's settings are kept
    but ``include``/``exclude`` are dropped, written as the ``pyrightconfig.json`` that
    takes precedence over ``pyproject.toml``.
    """
    config = root / "pyrightconfig.json"
    if config.exists():
        settings = json.loads(config.read_text(encoding="utf-8"))
        source = "pyrightconfig.json"
    else:
        pyproject = root / "pyproject.toml"
        table = tomllib.loads(pyproject.read_text(encoding="utf-8")) if pyproject.exists() else {}
        settings = dict(table.get("tool", {}).get("basedpyright")
                        or table.get("tool", {}).get("pyright") or {})
        source = "pyproject.toml"
    dropped = sorted(key for key in ("include", "exclude") if key in settings)
    if not dropped:
        return None
    for key in dropped:
        settings.pop(key)
    config.write_text(json.dumps(settings), encoding="utf-8")
    return (f"the project's {source} limits the server ({', '.join(dropped)}); dropped, so "
            "the server answers over every file the index does")


def package_folder(root: Path, package: str) -> str:
    """The package's folder inside the sdist: ``src/<package>`` or ``<package>``."""
    for folder in (f"src/{package}", package):
        if (root / folder / "__init__.py").exists():
            return folder
    raise SystemExit(f"no package folder {package} (src/{package} or {package}) in {root}")


def choose_names(workspace: Workspace, folder: str) -> list[str]:
    """``get`` and ``run`` if defined, the most used up to 15, then the rest spread to 30."""
    used = Counter(name for _, name, _, _ in workspace.store.all_references())
    defined = workspace.store.reader.execute(
        "SELECT s.name, count(*) FROM symbols s JOIN files f ON f.id = s.file_id "
        "WHERE f.path LIKE ? AND s.kind IN ('function', 'method', 'class') "
        "AND length(s.name) > 2 AND s.name NOT LIKE '\\_%' ESCAPE '\\' "
        "GROUP BY s.name", (f"{folder}/%",)).fetchall()
    # each definition of a name counted with each use of it
    rows = sorted(((str(name), count * used[str(name)]) for name, count in defined),
                  key=lambda row: (-row[1], row[0]))
    names = [name for name, uses in rows if uses > 0]
    pinned = [name for name in PINNED if name in names]
    names = [name for name in names if name not in pinned]
    most = MOST_USED - len(pinned)
    rest = names[most:]
    step = max(1, len(rest) // (CHOSEN - MOST_USED))
    return pinned + names[:most] + rest[::step][:CHOSEN - MOST_USED]
