"""The MCP Inspector's command-line client against ``sari serve`` (stdio): the listing it
receives describes every input property, a read pages from the line ``offset`` names, and a
bad argument comes back as a refusal whose structured content fits the tool's output schema
and whose text names the fix."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from node_clients import inspector_cli, run_inspector, sari_command, ts_sdk_prefix


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
