"""Sari's own config, state, cache and policy folders are out of reach of its tools,
whatever the roots: a home folder served as the only root, or as the second of two.

The attack: with ``$HOME`` among the roots, ``write .config/sari/config.toml`` (naming a
policy folder and trusting ``/``) and a policy module, which the next server imports; or
``write .local/state/sari/http-token`` (the next HTTP server accepts the attacker's token),
or ``read``/``search`` the stored token.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sari_core import Kernel

TOKEN = "tok-" + "5f1e2d3c4b5a69788796a5b4c3d2e1f0"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding Sari's folders where the platform puts them."""
    home = tmp_path / "home"
    for variable in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SARI_STATE_DIR", str(home / ".local" / "state" / "sari"))
    monkeypatch.setenv("SARI_CACHE_DIR", str(home / ".cache" / "sari"))
    monkeypatch.delenv("SARI_CONFIG_FILE")
    (home / ".config" / "sari").mkdir(parents=True)
    (home / ".config" / "sari" / "config.toml").write_text("# the operator's\n")
    (home / ".config" / "sari" / "policies").mkdir()
    (home / ".local" / "state" / "sari").mkdir(parents=True)
    (home / ".local" / "state" / "sari" / "http-token").write_text(TOKEN + "\n")
    (home / "notes.txt").write_text("a file of the user's\n")
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def _kernel(*roots: Path) -> Iterator[Kernel]:
    kernel = Kernel(roots=list(roots), load_entry_points=False, analytics_sinks=[])
    try:
        yield kernel
    finally:
        kernel.close()


def _spelled(home: Path, spelling: str) -> Path:
    """The home folder as a root may be named: as is, with a trailing slash or dot, through
    a symlink, through a detour, or from ``~``."""
    if spelling == "symlink":
        link = home.parent / "link-to-home"
        link.symlink_to(home, target_is_directory=True)
        return link
    return Path({"plain": str(home), "slash": f"{home}/", "dot": f"{home}/.",
                 "detour": f"{home}/.config/..", "tilde": "~"}[spelling])


@pytest.fixture(params=["home only", "home second", "slash", "dot", "symlink", "detour",
                        "tilde"])
def served(request: pytest.FixtureRequest, home: Path, workspace: Path
           ) -> Iterator[tuple[Kernel, str]]:
    """A kernel with the home folder as a root (spelled every way a root may be), and the
    prefix its paths take."""
    if request.param == "home second":
        yield from ((kernel, "home/") for kernel in _kernel(workspace, home))
    else:
        spelling = "plain" if request.param == "home only" else request.param
        yield from ((kernel, "") for kernel in _kernel(_spelled(home, spelling)))


def _refused(response: dict[str, Any]) -> bool:
    return response["ok"] is False and response["error"]["code"] == "PROTECTED_PATH"


def test_sari_config_and_token_cannot_be_written(served: tuple[Kernel, str], home: Path
                                                 ) -> None:
    kernel, prefix = served
    config = home / ".config" / "sari" / "config.toml"
    for path, content in (
            (f"{prefix}.config/sari/config.toml",
             "plugins_dir = 'policies'\ntrusted_workspaces = ['/']\n"),
            (f"{prefix}.config/sari/policies/evil.py", "import os\n"),
            (f"{prefix}.local/state/sari/http-token", "attacker\n"),
            (f"{prefix}.config/../.config/sari/config.toml", "x = 1\n"),
            (str(config), "x = 1\n")):
        assert _refused(kernel.execute_mutation("write", {"path": path, "content": content})), \
            path
    assert kernel.execute_mutation("edit", {
        "path": f"{prefix}.config/sari/config.toml", "old_string": "operator",
        "new_string": "agent"})["error"]["code"] == "PROTECTED_PATH"
    assert config.read_text() == "# the operator's\n"
    assert (home / ".local" / "state" / "sari" / "http-token").read_text() == TOKEN + "\n"
    assert not (home / ".config" / "sari" / "policies" / "evil.py").exists()
    # The rest of the home folder is served as before.
    assert kernel.execute_mutation("write", {"path": f"{prefix}notes.txt",
                                             "content": "mine\n"})["ok"] is True


def test_the_token_cannot_be_read_or_searched(served: tuple[Kernel, str], home: Path) -> None:
    kernel, prefix = served
    token = f"{prefix}.local/state/sari/http-token"
    for target in (token, str(home / ".local" / "state" / "sari" / "http-token"),
                   f"./{token}"):
        assert _refused(kernel.execute_read({"mode": "file", "target": target})), target
    for query in (TOKEN, TOKEN[:12], "http-token"):
        found = kernel.execute_search({"query": query})
        assert TOKEN not in str(found["matches"]), query
        assert all(".local/state/sari" not in match["path"] for match in found["matches"])
        if query != "http-token":  # nothing else holds it: not even counted
            assert found["total"] == 0, query
    assert kernel.execute_read({"mode": "file", "target": f"{prefix}notes.txt"})["ok"] is True


def test_an_operator_config_inside_any_root_is_not_read(home: Path, workspace: Path) -> None:
    (home / ".config" / "sari" / "config.toml").write_text(
        "plugins_dir = 'policies'\n[budget]\nmax_reads_per_session = 1000\n")
    (home / ".config" / "sari" / "policies" / "planted.py").write_text(
        "raise SystemExit('imported')\n")
    for kernel in _kernel(workspace, home):
        assert kernel.plugin("planted") is None
        assert any("lies inside the workspace" in notice for notice in kernel.settings.notices)


def test_a_diff_of_a_home_folder_under_git_shows_none_of_them(home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    for kernel in _kernel(home):
        for target in (".", ".local", ".local/state/sari"):
            seen = kernel.execute_read({"mode": "diff_preview", "target": target})
            assert TOKEN not in str(seen), target
