"""The MCP Inspector's command-line client against ``sari serve`` (stdio, and HTTP): the listing it
receives describes every input property, a read pages from the line ``offset`` names, and a
bad argument comes back as a refusal whose structured content fits the tool's output schema
and whose text names the fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from node_clients import inspector_cli, run_inspector, sari_command, ts_sdk_prefix
from sari_http import serve_http


@pytest.fixture(scope="module")
def inspector() -> Path:
    prefix, reason = ts_sdk_prefix()
    if prefix is None or inspector_cli(prefix) is None:
        pytest.skip(f"MCP Inspector CLI tests skipped: {reason or 'the Inspector is missing'}")
    return prefix


@pytest.fixture
def server(tmp_path: Path) -> list[str]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("".join(f"line_{n} = {n}\n" for n in range(1, 21)),
                                      encoding="utf-8")
    return sari_command("--workspace", str(workspace))


def test_the_listing_describes_every_property_and_stays_small(inspector: Path,
                                                              server: list[str]) -> None:
    tools = run_inspector(inspector, server, "--method", "tools/list")["tools"]
    assert {"search", "read", "edit", "write"} <= {tool["name"] for tool in tools}
    for tool in tools:
        for name, prop in tool["inputSchema"].get("properties", {}).items():
            assert prop.get("description"), (tool["name"], name)
    assert len(json.dumps(tools, separators=(",", ":"))) // 4 <= 1500


def test_offset_and_bad_arguments(inspector: Path, server: list[str]) -> None:
    tools = {tool["name"]: tool
             for tool in run_inspector(inspector, server, "--method", "tools/list")["tools"]}
    page = run_inspector(inspector, server, "--method", "tools/call", "--tool-name", "read",
                         "--tool-arg", "mode=file", "--tool-arg", "target=app.py",
                         "--tool-arg", "offset=5", "--tool-arg", "limit=2")
    assert page["content"][0]["text"].splitlines()[1:] == ["5\tline_5 = 5", "6\tline_6 = 6"]
    for tool, arguments, named in (
            ("search", ["query=5"], "query"),
            ("read", ["mode=file", "target=app.py", "offset=-1"], "offset"),
            ("edit", ["path=app.py", "new_string=x"], "old_string")):
        flags = [flag for argument in arguments for flag in ("--tool-arg", argument)]
        answer = run_inspector(inspector, server, "--method", "tools/call", "--tool-name", tool,
                               *flags)
        assert answer["isError"] is True, answer
        jsonschema.validate(answer["structuredContent"], tools[tool]["outputSchema"])
        assert named in answer["content"][0]["text"], answer["content"][0]["text"]


def test_over_http_without_workspace_the_servers_folder_is_served(inspector: Path,
                                                                  tmp_path: Path) -> None:
    """The Inspector declares the roots capability with an empty list: the session keeps the
    folder the server was started in, and a read pages from ``offset`` as over stdio."""
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "app.py").write_text("".join(f"line_{n} = {n}\n" for n in range(1, 21)),
                                   encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home"),
           "SARI_STATE_DIR": str(tmp_path / "state"), "SARI_CACHE_DIR": str(tmp_path / "cache"),
           "SARI_PLUGINS": "none"}
    with serve_http(None, env, tmp_path / "server.log", cwd=folder) as served:
        http = [served.url, "--transport", "http"]
        found = run_inspector(inspector, http, "--method", "tools/call", "--tool-name", "search",
                              "--tool-arg", "query=app", "--tool-arg", "kind=path")
        page = run_inspector(inspector, http, "--method", "tools/call", "--tool-name", "read",
                             "--tool-arg", "mode=file", "--tool-arg", "target=app.py",
                             "--tool-arg", "offset=5", "--tool-arg", "limit=2")
    assert [match["path"] for match in found["structuredContent"]["matches"]] == ["app.py"]
    assert page["content"][0]["text"].splitlines()[1:] == ["5\tline_5 = 5", "6\tline_6 = 6"]
