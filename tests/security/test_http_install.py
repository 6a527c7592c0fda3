"""``sari install --url``: a client's config that reaches a token-protected HTTP server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from served_http import make_git_workspace, serve, server_env


def install(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sari_core.cli.main", "install", *arguments],
                          env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return server_env(tmp_path, plugins="secretguard")


async def test_the_installed_entry_carries_the_stored_token_and_connects(
        tmp_path: Path, env: dict[str, str]) -> None:
    workspace = make_git_workspace(tmp_path / "ws")
    config = tmp_path / "mcp.json"
    with serve(workspace, env, tmp_path / "server.log", "--host", "0.0.0.0") as served:
        url = f"http://127.0.0.1:{served.port}/mcp"
        done = install(env, "claude-code", "--url", url, "--config", str(config),
                       "--workspace", str(workspace))
        assert done.returncode == 0, done.stderr
        entry = json.loads(config.read_text())["mcpServers"]["sari"]
        token = (Path(env["SARI_STATE_DIR"]) / "http-token").read_text().strip()
        assert entry == {"type": "http", "url": url,
                         "headers": {"Authorization": f"Bearer {token}"}}
        async with httpx2.AsyncClient(headers=entry["headers"], timeout=30) as http, \
                Client(streamable_http_client(entry["url"], http_client=http),
                       read_timeout_seconds=60) as client:
            result = await client.call_tool("read", {"mode": "file", "target": "README.md"})
        assert result.structured_content is not None
        assert result.structured_content["ok"] is True


def test_a_given_token_is_written_and_stdio_clients_refuse_a_url(
        tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "cursor.json"
    done = install(env, "cursor", "--url", "http://10.0.0.5:8765/mcp", "--token",
                   "a-token-for-the-team-server", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert json.loads(config.read_text())["mcpServers"]["sari"] == {
        "url": "http://10.0.0.5:8765/mcp",
        "headers": {"Authorization": "Bearer a-token-for-the-team-server"}}
    refused = install(env, "codex", "--url", "http://10.0.0.5:8765/mcp", "--config",
                      str(tmp_path / "codex.toml"))
    assert refused.returncode == 1 and "--url is for claude-code and cursor" in refused.stderr
    assert not (tmp_path / "codex.toml").exists()
    short = install(env, "cursor", "--url", "http://10.0.0.5:8765/mcp", "--token", "short",
                    "--config", str(tmp_path / "other.json"))
    assert short.returncode == 1 and "at least 16 characters" in short.stderr
