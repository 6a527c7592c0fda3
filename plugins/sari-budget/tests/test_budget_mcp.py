"""The budget over a real MCP connection: the SDK's client against Sari's server."""

from __future__ import annotations

import anyio
import pytest
from budget_mcp import assert_budget_refusal, body, spend_and_refuse
from budget_workspace import READS, SMALL
from mcp import Client

from sari_core.server import SariServer


def connect(server: SariServer) -> Client:
    return Client(server.lowlevel, mode="legacy")


async def test_the_26th_read_is_refused_through_read_and_every_wrapper(make_kernel) -> None:
    server = SariServer(make_kernel())
    async with connect(server) as client:
        await spend_and_refuse(client)
        follow = body(await client.call_tool("read", {"mode": "file", "target": SMALL}))
        search = follow["meta"]["stabilization"]["next_calls"][0]
        assert body(await client.call_tool(search["tool"], search["arguments"]))["ok"]


@pytest.mark.parametrize("entrypoint", sorted(READS))
async def test_each_wrapper_alone_spends_the_budget_over_mcp(make_kernel, entrypoint: str
                                                             ) -> None:
    server = SariServer(make_kernel())
    async with connect(server) as client:
        outcomes = [body(await client.call_tool(entrypoint, READS[entrypoint]))["ok"]
                    for _ in range(26)]
    assert outcomes == [True] * 25 + [False]


async def test_concurrent_reads_of_one_session_never_overshoot(make_kernel) -> None:
    server = SariServer(make_kernel(), worker_threads=8)
    outcomes: list[bool] = []

    async def one_read(client: Client) -> None:
        response = body(await client.call_tool("read", {"mode": "file", "target": SMALL},
                                               meta={"sari/session_id": "shared"}))
        outcomes.append(response["ok"])
        if not response["ok"]:
            assert_budget_refusal(response)

    async with connect(server) as first, connect(server) as second, \
            anyio.create_task_group() as group:
        for number in range(40):
            group.start_soon(one_read, first if number % 2 else second)
    assert outcomes.count(True) == 25 and outcomes.count(False) == 15


async def test_a_fresh_session_id_argument_in_each_read_still_meets_the_budget(make_kernel
                                                                            ) -> None:
    """A model writes any argument, listed or not: naming a new session in every call does
    not open a new budget."""
    server = SariServer(make_kernel())
    async with connect(server) as client:
        outcomes = [body(await client.call_tool("read", {"mode": "file", "target": SMALL,
                                                         "session_id": f"s{number}"}))["ok"]
                    for number in range(40)]
    assert outcomes == [True] * 25 + [False] * 15
