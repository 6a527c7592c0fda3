"""Every escape attempt is refused with a structured error and never a byte from outside."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from engine_repo import SECRET

from sari_core.engine import Workspace
from sari_core.kernel import Kernel


def _refused(response: dict, code: str) -> None:
    assert response["ok"] is False, response
    assert response["error"]["code"] == code, response["error"]
    assert response["error"]["message"] and response["error"]["hint"]
    assert SECRET not in json.dumps(response)


@pytest.mark.parametrize("target", [
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    "..",
    "../../../../../../etc/passwd",
])
def test_dot_dot_escapes_are_refused(shared_kernel: Kernel, target: str) -> None:
    for mode_args in ({"mode": "file"}, {"mode": "snippet", "start_line": 1},
                      {"mode": "diff_preview"}):
        _refused(shared_kernel.execute_read({**mode_args, "target": target}), "PATH_OUTSIDE_WORKSPACE")


def test_absolute_paths_outside_are_refused(kernel: Kernel, outside: Path) -> None:
    _refused(kernel.execute_read({"mode": "file", "target": str(outside / "secret.txt")}),
             "PATH_OUTSIDE_WORKSPACE")
    _refused(kernel.execute_read({"mode": "file", "target": "/etc/passwd"}),
             "PATH_OUTSIDE_WORKSPACE")


def test_absolute_paths_inside_are_served(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_read({"mode": "file", "target": str(repo / "src" / "app.py")})
    assert response["ok"] and response["meta"]["path"] == "src/app.py"


def test_symlinks_resolving_outside_are_refused(shared_kernel: Kernel) -> None:
    _refused(shared_kernel.execute_read({"mode": "file", "target": "leak.txt"}), "PATH_OUTSIDE_WORKSPACE")
    _refused(shared_kernel.execute_read({"mode": "file", "target": "leakdir/secret.txt"}),
             "PATH_OUTSIDE_WORKSPACE")
    _refused(shared_kernel.execute_read({"mode": "snippet", "target": "leak.txt", "start_line": 1}),
             "PATH_OUTSIDE_WORKSPACE")


def test_a_symlink_inside_the_workspace_reads_its_target(shared_kernel: Kernel) -> None:
    response = shared_kernel.execute_read({"mode": "file", "target": "alias.py"})
    assert response["ok"] and response["meta"]["path"] == "src/app.py"


def test_nul_bytes_are_refused(kernel: Kernel) -> None:
    _refused(kernel.execute_read({"mode": "file", "target": "src/app.py\x00.txt"}), "INVALID_ARGS")


def test_a_fifo_is_never_opened(kernel: Kernel, repo: Path) -> None:
    os.mkfifo(repo / "pipe")
    _refused(kernel.execute_read({"mode": "file", "target": "pipe"}), "NOT_A_FILE")


def test_a_device_is_not_read(kernel: Kernel, repo: Path) -> None:
    os.symlink("/dev/zero", repo / "zeros")
    _refused(kernel.execute_read({"mode": "file", "target": "zeros"}), "PATH_OUTSIDE_WORKSPACE")
    try:
        os.mknod(repo / "null", 0o600 | 0o020000, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        return  # creating a device node needs privileges
    _refused(kernel.execute_read({"mode": "file", "target": "null"}), "NOT_A_FILE")


def test_directories_and_missing_files(kernel: Kernel) -> None:
    _refused(kernel.execute_read({"mode": "file", "target": "src"}), "NOT_A_FILE")
    missing = kernel.execute_read({"mode": "file", "target": "src/nope.py"})
    _refused(missing, "NOT_FOUND")
    assert missing["meta"]["stabilization"]["next_calls"][0]["tool"] == "search"


@pytest.mark.parametrize("path", ["../outside/new.py", "leakdir/new.py", "leak.txt",
                                  ".git/hooks/pre-commit", "/tmp/sari-escape.py"])
def test_writes_outside_are_refused(kernel: Kernel, outside: Path, path: str) -> None:
    before = sorted(os.listdir(outside))
    response = kernel.execute_mutation("write", {"path": path, "content": "x = 1\n"})
    assert response["ok"] is False
    expected = "PROTECTED_PATH" if path.startswith(".git/") else "PATH_OUTSIDE_WORKSPACE"
    assert response["error"]["code"] == expected
    assert sorted(os.listdir(outside)) == before
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert not Path("/tmp/sari-escape.py").exists()


def test_edit_through_an_escaping_symlink_is_refused(kernel: Kernel, outside: Path) -> None:
    response = kernel.execute_mutation("edit", {"path": "leak.txt", "old_string": "TOP",
                                                "new_string": "BOTTOM"})
    _refused(response, "PATH_OUTSIDE_WORKSPACE")
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


def test_outside_content_never_reaches_the_index(shared: Workspace) -> None:
    from sari_core.models import SearchCall

    result = shared.search(SearchCall(query=SECRET))
    assert result.total == 0 and result.matches == []


def test_a_missing_root_is_refused(tmp_path: Path) -> None:
    from sari_core.errors import SariError

    with pytest.raises(SariError) as caught:
        Workspace([tmp_path / "missing"])
    assert caught.value.code == "NOT_FOUND"
