"""What a client sees of the server: tool titles, annotations, the negotiated protocol version."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_fixture_files import FILES
from test_server_inprocess import connect

from sari_core.kernel import Kernel
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine


async def test_every_core_tool_has_a_title(make_server) -> None:
    async with connect(make_server()) as client:
        tools = (await client.list_tools()).tools
    titles = {tool.name: tool.title for tool in tools}
    assert all(titles.values()), titles
    assert titles["search"] == "Search code"
    assert len(set(titles.values())) == len(titles), "two tools would look alike"


@pytest.mark.parametrize(("distribution", "plugin_class", "tool_name"), [
    ("sari_persistence.plugin", "PersistencePlugin", "context_query"),
    ("sari_ripple.plugin", "RipplePlugin", "context_tiers"),
])
async def test_read_only_plugin_tools_say_so(distribution: str, plugin_class: str,
                                             tool_name: str) -> None:
    module = pytest.importorskip(distribution)
    kernel = Kernel(MemoryEngine(dict(FILES)), plugins=[getattr(module, plugin_class)()],
                    load_entry_points=False, analytics_sinks=[])
    try:
        server = SariServer(kernel)
        async with connect(server) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        entry = server.catalog.get(tool_name)
    finally:
        kernel.close()
    # a tool for the client program (a cache plan) is callable but not listed to the model;
    # it still describes itself for the client that calls it
    assert entry is not None
    tool = tools.get(tool_name, entry.tool)
    assert tool.title
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True
    assert tool.annotations.destructive_hint is not True  # only meaningful when not read-only
    assert tool.annotations.open_world_hint is False


@pytest.mark.parametrize(("requested", "negotiated"), [
    ("2099-01-01", "2025-11-25"),  # unknown future version: the newest Sari speaks
    ("not-a-version", "2025-11-25"),
    ("2024-11-05", "2024-11-05"),  # a version Sari speaks is kept
    ("2025-06-18", "2025-06-18"),
])
def test_the_protocol_version_is_negotiated_not_echoed(tmp_path: Path, requested: str,
                                                       negotiated: str) -> None:
    from e2e_harness import make_git_workspace, server_env
    from stdio_wire import INITIALIZE, WireServer

    (tmp_path / "home").mkdir()
    server = WireServer(make_git_workspace(tmp_path / "ws"), server_env(tmp_path))
    try:
        server.send({**INITIALIZE, "params": {**INITIALIZE["params"],
                                              "protocolVersion": requested}})
        assert server.reply_to(0)["result"]["protocolVersion"] == negotiated
    finally:
        server.close_input()
        assert server.finish()[0] == 0
