"""What Sari keeps (the index holds the workspace's full text, secrets included) is
readable by the user alone: 0600 files in 0700 folders, whatever the umask."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sari_stdio import body, isolated_env, read_past_refgate, serve_stdio

from sari_core.engine import Workspace
from sari_core.models import SearchCall

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def _modes(*folders: Path) -> dict[str, str]:
    """Every folder and file below ``folders`` (included) -> its permission bits, octal."""
    out: dict[str, str] = {}
    for top in folders:
        out[str(top)] = oct(stat.S_IMODE(os.stat(top).st_mode))
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
                path = Path(folder) / name
                out[str(path)] = oct(stat.S_IMODE(os.lstat(path).st_mode))
    return out


def _loose(modes: dict[str, str]) -> dict[str, str]:
    return {path: mode for path, mode in modes.items()
            if mode != (oct(0o700) if os.path.isdir(path) else oct(0o600))}


@pytest.fixture
def lax_umask() -> Iterator[None]:
    previous = os.umask(0o002)  # group-writable, world-readable defaults
    try:
        yield
    finally:
        os.umask(previous)


async def test_everything_a_server_session_leaves_is_private(tmp_path: Path,
                                                              lax_umask: None) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".env").write_text("API_TOKEN=sk-live-0123456789abcdef\n", encoding="utf-8")
    (root / "app.py").write_text("def handle_request():\n    return 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    env = isolated_env(tmp_path)
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            assert body(await client.call_tool("search", {"query": "handle_request"}))["ok"]
            assert (await read_past_refgate(client, {"mode": "file",
                                                     "target": "app.py"}))["ok"]
            assert body(await client.call_tool("write", {"path": "new.py",
                                                         "content": "x = 1\n"}))["ok"]
    state, cache = Path(env["SARI_STATE_DIR"]), Path(env["SARI_CACHE_DIR"])
    modes = _modes(state, cache)
    names = {Path(path).name for path in modes}
    assert "server.log" in names
    if importlib.util.find_spec("sari_persistence") is not None:  # its log, when installed
        assert "execution_log.db" in names
    assert any(name.endswith(".jsonl") for name in names)
    assert any(name.endswith(".sqlite") for name in names)
    assert _loose(modes) == {}
    # In the workspace: 0644 at most, and the umask may take more away.
    assert oct(stat.S_IMODE(os.stat(root / "new.py").st_mode)) == oct(0o644)


def test_an_index_left_readable_by_an_older_version_is_tightened(tmp_path: Path,
                                                                 lax_umask: None,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SARI_CACHE_DIR", str(cache))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("secret text\n", encoding="utf-8")
    with Workspace([root]) as engine:
        engine.search(SearchCall(query="secret"))
    for path in [cache, *cache.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert _loose(_modes(cache))
    with Workspace([root]) as engine:
        assert engine.search(SearchCall(query="secret")).matches
        assert _loose(_modes(cache)) == {}
