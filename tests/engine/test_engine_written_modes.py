"""No file the agent wrote is left executable: new files are 0644 at most, and an edit or
write over an executable drops its exec bits unless the operator keeps them."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.kernel import Kernel


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "tools").mkdir(parents=True)
    script = folder / "tools" / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o4755)
    return folder


def _kernel(root: Path, **core: object) -> Kernel:
    return Kernel(Workspace([root]), load_entry_points=False, settings={"core": core},
                  analytics_sinks=[])


@pytest.fixture
def umask_000() -> Iterator[None]:
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.parametrize("tool", ["edit", "write"])
def test_overwriting_an_executable_drops_its_exec_and_setuid_bits(root: Path, tool: str) -> None:
    arguments = ({"old_string": "old", "new_string": "new"} if tool == "edit"
                 else {"content": "#!/bin/sh\necho payload\n"})
    with _kernel(root) as kernel:
        assert kernel.execute_mutation(tool, {"path": "tools/run.sh", **arguments})["ok"]
    assert _mode(root / "tools" / "run.sh") == 0o644


def test_the_operator_may_keep_exec_bits(root: Path) -> None:
    with _kernel(root, keep_executable_bits=True) as kernel:
        assert kernel.execute_mutation("edit", {"path": "tools/run.sh", "old_string": "old",
                                                "new_string": "new"})["ok"]
    assert _mode(root / "tools" / "run.sh") == 0o4755


def test_the_workspace_may_not_keep_exec_bits(root: Path) -> None:
    (root / "sari.toml").write_text("[core]\nkeep_executable_bits = true\n")
    with _kernel(root) as kernel:
        response = kernel.execute_mutation("edit", {"path": "tools/run.sh", "old_string": "old",
                                                    "new_string": "new"})
    assert response["ok"]
    assert _mode(root / "tools" / "run.sh") == 0o644
    warnings = response["meta"]["stabilization"]["warnings"]
    assert any("core.keep_executable_bits" in warning for warning in warnings)


@pytest.mark.usefixtures("umask_000")
def test_a_new_file_is_0644_even_under_umask_000(root: Path) -> None:
    with _kernel(root) as kernel:
        assert kernel.execute_mutation("write", {"path": "pkg/new.py", "content": "X = 1\n"})["ok"]
    assert _mode(root / "pkg" / "new.py") == 0o644
    assert _mode(root / "pkg") == 0o755  # the folder made for it


def test_a_new_file_respects_a_stricter_umask(root: Path) -> None:
    previous = os.umask(0o077)
    try:
        with _kernel(root) as kernel:
            assert kernel.execute_mutation("write", {"path": "new.txt", "content": "x\n"})["ok"]
    finally:
        os.umask(previous)
    assert _mode(root / "new.txt") == 0o600
