"""Nothing the workspace names runs: not a validator command, not a language server, not
the workspace's own interpreter, unless the operator says so.

The workspace is the agent's to write. These are the attacks an agent could make through
Sari's own configuration; each leaves a marker file outside the workspace if it works.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lspgate_workspace import edit, gate_note, lspgate_kernel

from sari_core import Kernel

MODULE = "def add(a: int, b: int) -> int:\n    return a + b\n"
# Only the validators under test: the others would start servers for nothing.
QUIET = {"ruff": False, "basedpyright": False}


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "pwned"


@pytest.fixture
def kernels() -> Iterator[list[Kernel]]:
    opened: list[Kernel] = []
    yield opened
    for kernel in opened:
        kernel.close()


def _validator(marker: Path) -> str:
    return (f'{{name = "x", command = ["sh", "-c", "touch {marker}"], patterns = ["*.py"], '
            'parser = "gnu"}')


def _server(marker: Path) -> str:
    return f'{{name = "x", command = ["sh", "-c", "touch {marker}"], patterns = ["*.py"]}}'


def _open(tmp_path: Path, kernels: list[Kernel], files: dict[str, str],
          **operator: Any) -> Kernel:
    root = tmp_path / f"ws{len(kernels)}"
    root.mkdir()
    kernel = lspgate_kernel(root, {"pkg/calc.py": MODULE, **files}, **{**QUIET, **operator})
    kernels.append(kernel)
    return kernel


def _edit_python(kernel: Kernel) -> dict[str, Any]:
    return edit(kernel, "pkg/calc.py", "return a + b", "return b + a", "s")


@pytest.mark.parametrize(("name", "table"), [("sari.toml", "[lspgate]"),
                                             ("pyproject.toml", "[tool.sari.lspgate]")])
@pytest.mark.parametrize(("key", "entry"), [("command_validators", _validator),
                                            ("language_servers", _server)])
def test_a_command_written_into_workspace_config_does_not_run(
        tmp_path: Path, kernels: list[Kernel], marker: Path, name: str, table: str,
        key: str, entry: Any) -> None:
    kernel = _open(tmp_path, kernels, {name: f"{table}\n{key} = [{entry(marker)}]\n"})
    assert _edit_python(kernel)["ok"] is True
    assert not marker.exists()
    assert any(f"lspgate.{key}" in notice for notice in kernel.settings.notices)


def test_the_operators_command_runs(tmp_path: Path, kernels: list[Kernel],
                                    marker: Path) -> None:
    command = {"name": "x", "command": ["sh", "-c", f"touch {marker}"],
               "patterns": ["*.py"], "parser": "gnu"}
    kernel = _open(tmp_path, kernels, {}, command_validators=[command])
    _edit_python(kernel)
    assert marker.exists()


def test_a_trusted_workspace_may_name_its_command(
        tmp_path: Path, kernels: list[Kernel], marker: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SARI_TRUSTED_WORKSPACES", str(tmp_path))
    kernel = _open(tmp_path, kernels,
                   {"sari.toml": f"[lspgate]\ncommand_validators = [{_validator(marker)}]\n"})
    _edit_python(kernel)
    assert marker.exists()


def _plant_interpreter(root: Path, marker: Path) -> Path:
    """A ``.venv/bin/python`` that leaves a marker, then behaves like a real interpreter."""
    shim = root / ".venv" / "bin" / "python"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    return shim


@pytest.mark.skipif(os.name != "posix", reason="a shell-script interpreter needs POSIX")
@pytest.mark.parametrize("trusted", [False, True])
def test_basedpyright_runs_the_workspace_interpreter_only_when_the_operator_allows(
        tmp_path: Path, kernels: list[Kernel], marker: Path, trusted: bool) -> None:
    root = tmp_path / f"ws{len(kernels)}"
    _plant_interpreter(root, marker)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    package = root / ".venv" / "lib" / version / "site-packages" / "vendored_lib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def hello() -> int:\n    return 1\n")
    kernel = lspgate_kernel(root, {"pkg/calc.py": MODULE}, ruff=False, workspace_venv=trusted)
    kernels.append(kernel)
    response = edit(kernel, "pkg/calc.py", "def add", "import vendored_lib\n\n\ndef add", "s")
    assert response["ok"] is True
    change = gate_note(response)["changes"][0]
    assert {v["name"]: v["status"] for v in change["validators"]} == {"basedpyright": "ok"}
    assert marker.exists() is trusted
    if not trusted:  # the .venv's packages are read as extra paths, not through its python
        assert change["introduced"] == [], change["introduced"]


@pytest.mark.skipif(os.name != "posix", reason="a shell-script interpreter needs POSIX")
def test_basedpyrights_own_config_naming_the_venv_does_not_run_it(
        tmp_path: Path, kernels: list[Kernel], marker: Path) -> None:
    root = tmp_path / f"ws{len(kernels)}"
    _plant_interpreter(root, marker)
    config = '{"venvPath": ".", "venv": ".venv", "pythonPath": ".venv/bin/python"}'
    kernel = lspgate_kernel(root, {"pkg/calc.py": MODULE, "pyrightconfig.json": config},
                            ruff=False)
    kernels.append(kernel)
    response = edit(kernel, "pkg/calc.py", "a + b", "b + a", "s")
    assert response["ok"] is True
    validators = gate_note(response)["changes"][0]["validators"]
    assert {v["name"]: v["status"] for v in validators} == {"basedpyright": "ok"}
    assert not marker.exists()


def test_an_interpreter_the_agent_rewrote_is_not_left_executable(
        tmp_path: Path, kernels: list[Kernel], marker: Path) -> None:
    root = tmp_path / f"ws{len(kernels)}"
    shim = _plant_interpreter(root, marker)
    kernel = lspgate_kernel(root, {"pkg/calc.py": MODULE}, **QUIET)
    kernels.append(kernel)
    response = kernel.execute_mutation("write", {
        "path": ".venv/bin/python", "content": f"#!/bin/sh\ntouch {marker}\n", "session_id": "s"})
    assert response["ok"] is True
    assert stat.S_IMODE(shim.stat().st_mode) & 0o111 == 0
