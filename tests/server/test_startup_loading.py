"""``sari serve`` answers ``initialize`` before its plugins are loaded; ``tools/list`` and
tool calls wait for them, and a plugin that fails to load is still reported.

Real subprocesses on pipes; the plugin's import is held on a gate file the test opens, so
"before the plugins are loaded" is a fact of the test, not a timing.
"""

from __future__ import annotations

import os
from pathlib import Path

from stdio_wire import WireServer

LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CALL_WHOAMI = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "whoami", "arguments": {}}}


def plugin_module(tmp_path: Path, env: dict[str, str], source: str) -> Path:
    """Serve the entry point ``raiser`` from a module named ``gated_plugin`` with ``source``."""
    site = tmp_path / "gated-site"
    info = site / "sari_gated_test-0.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sari-gated-test\n"
                                   "Version: 0.0.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[sari]\nraiser = gated_plugin:RaisingPlugin\n",
                                           encoding="utf-8")
    (site / "gated_plugin.py").write_text(source, encoding="utf-8")
    # Only this site declares the entry point (the harness' own site would declare it twice).
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"].split(os.pathsep)[1]])
    return site


def test_initialize_is_answered_while_a_plugin_is_still_importing(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    plugin_module(tmp_path, env, (
        "import pathlib, time\n"
        f"gate = pathlib.Path({str(gate)!r})\n"
        "deadline = time.monotonic() + 120\n"
        "while not gate.exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "from raising_plugin import RaisingPlugin\n"))
    server = WireServer(workspace, env)
    try:
        reply = server.handshake()
        assert reply["result"]["serverInfo"]["name"] == "sari"
        assert not gate.exists()  # answered while the plugin's import was still held
        server.send(LIST_TOOLS)
        gate.touch()
        names = {tool["name"] for tool in server.reply_to(1, timeout=60)["result"]["tools"]}
        assert {"search", "read", "edit", "write", "whoami"} <= names, names
        server.send(CALL_WHOAMI)
        assert server.reply_to(2, timeout=60)["result"]["isError"] is False
    finally:
        gate.touch()
        server.close_input()
        code, stderr = server.finish()
    assert code == 0, stderr


def test_a_plugin_that_fails_to_load_is_reported_to_the_client_and_on_stderr(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    plugin_module(tmp_path, env, "raise ImportError('gated_plugin needs a missing library')\n")
    server = WireServer(workspace, env)
    try:
        assert "result" in server.handshake()
        server.send(LIST_TOOLS)
        error = server.reply_to(1, timeout=60)["error"]
        server.send(CALL_WHOAMI)
        call_error = server.reply_to(2, timeout=60)["error"]
    finally:
        server.close_input()
        code, stderr = server.finish()
    for message in (error["message"], call_error["message"], stderr):
        assert "plugin 'raiser'" in message, message
        assert "gated_plugin needs a missing library" in message, message
        assert "SARI_DISABLE_PLUGINS=raiser" in message, message
    assert code == 1, stderr
