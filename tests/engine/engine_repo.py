"""The small real repository the engine tests work on, built with git.

Several languages, a ``.gitignore`` (and a nested one), default-excluded folders,
a symlink pointing outside the workspace, a binary file, a Latin-1 file and a
CRLF file; a folder next to the repository holds the "outside" secret.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"

FILES: dict[str, str] = {
    "src/app.py": (
        "import os\n"
        "\n"
        "\n"
        "class Reader:\n"
        "    \"\"\"Reads things.\"\"\"\n"
        "\n"
        "    def execute_read(self, call):\n"
        "        return helper(call)\n"
        "\n"
        "\n"
        "@decorated\n"
        "def helper(value):\n"
        "    return os.fspath(value)\n"
    ),
    "src/other.py": (
        "from src.app import helper\n"
        "\n"
        "\n"
        "class Writer:\n"
        "    def execute_read(self):\n"
        "        return helper('x')\n"
    ),
    "src/test_app.py": "from src.app import helper\n\n\ndef test_helper():\n    assert helper('a')\n",
    "web/index.js": "function renderPage(items) {\n  return items.map(formatItem);\n}\n"
                    "class Widget {\n  draw() { renderPage([]); }\n}\n",
    "web/types.ts": "interface Shape { area(): number }\n"
                    "function makeShape(size: number): Shape { return new Square(size); }\n",
    "web/view.tsx": "function View() { return <div>{makeShape(2)}</div>; }\n",
    "go/main.go": "package main\n\nfunc Serve() {\n\tListen()\n}\n\ntype Server struct{}\n",
    "rust/lib.rs": "pub struct Engine;\n\nimpl Engine {\n    pub fn start(&self) {}\n}\n\n"
                   "pub fn boot() { Engine.start(); }\n",
    "java/App.java": "class App {\n  void run() { launch(); }\n}\n",
    "c/lib.c": "int add_numbers(int a, int b)\n{\n  return a + b;\n}\n",
    "c/lib.h": "struct Point { int x; int y; };\n",
    "cpp/thing.cpp": "class Thing {\n public:\n  void spin();\n};\n\nvoid Thing::spin() {\n}\n",
    "docs/notes.md": "# Notes\n\nThe execute_read entry point reads files.\nShort: ab\n",
    "docs/unicode.txt": "Grad \u212aelvin, STRAẞE, İstanbul, ſtraße\n",
    ".gitignore": "*.log\nsecret/\n",
    "sub/.gitignore": "local.txt\n",
    "sub/kept.txt": "kept nested text\n",
}
IGNORED: dict[str, str] = {
    "debug.log": "execute_read in a log\n",
    "secret/keys.txt": "execute_read secret\n",
    "sub/local.txt": "execute_read local\n",
    "node_modules/pkg/index.js": "function execute_read() {}\n",
    "dist/bundle.js": "execute_read()\n",
    "build/out.py": "execute_read = 1\n",
    "__pycache__/app.cpython-311.pyc": "execute_read\n",
    "env1/pyvenv.cfg": "home = /usr\n",
    "env1/lib/site.py": "execute_read = 2\n",
}
BINARY = "data/blob.bin"
LATIN1 = "docs/latin1.txt"
CRLF = "win/crlf.txt"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                           "-c", "init.defaultBranch=main", *args], check=True,
                          capture_output=True, text=True)
    return done.stdout


def write(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def build_repository(root: Path, outside: Path) -> None:
    for relative, text in {**FILES, **IGNORED}.items():
        write(root, relative, text)
    write(root, BINARY, b"\x89PNG\r\n\x1a\n\x00\x00execute_read\x00\x01\x02")
    write(root, LATIN1, "café crème brûlée — déjà vu\n".replace("—", "-").encode("latin-1"))
    write(root, CRLF, b"first line\r\nsecond line\r\nthird line\r\n")
    write(outside, "secret.txt", SECRET + "\n")
    # Relative targets, so a copy of the pair of folders keeps every link's meaning.
    os.symlink(os.path.relpath(outside / "secret.txt", root), root / "leak.txt")
    os.symlink(os.path.relpath(outside, root), root / "leakdir")
    os.symlink("src/app.py", root / "alias.py")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")


def _fold_char(char: str) -> str:
    folded = char.casefold()
    if len(folded) != 1:
        folded = char.lower() if len(char.lower()) == 1 else char
    return folded


_FOLD_TABLE: dict[int, str] = {}


def simple_fold(text: str) -> str:
    """Unicode simple case folding, one character at a time (the reference for the tests)."""
    if not _FOLD_TABLE:
        _FOLD_TABLE.update({code: _fold_char(chr(code)) for code in range(0x110000)
                            if not 0xD800 <= code < 0xE000})
    return text.translate(_FOLD_TABLE)


def scan_matches(text: str, query: str, case_sensitive: bool) -> bool:
    """A plain scan: the comparison the engine's literal search must agree with."""
    return query in text if case_sensitive else simple_fold(query) in simple_fold(text)


def watcher_of(workspace):  # noqa: ANN001, ANN201 - typed where it is used
    """The workspace's file-system watcher. Linux always has one (inotify), so there a
    missing watcher is a failure; elsewhere a platform without a backend skips."""
    import sys

    import pytest

    from sari_core.engine.changes.changes import NotifyWatcher

    source = workspace._changes
    if isinstance(source, NotifyWatcher):
        return source
    workspace.close()
    if sys.platform.startswith("linux"):
        pytest.fail(f"no file-system watcher on Linux (the change source is "
                    f"{type(source).__name__}): change detection fell back to polling")
    pytest.skip("no file-system watcher is available on this platform")
