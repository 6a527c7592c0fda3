"""Property-based fuzz of every tool's arguments through the real server, in process.

Arguments are drawn from each tool's advertised input schema (its property names and
enum values) mixed with hostile values: escaping paths, a symlink out of the workspace,
NUL and lone surrogates, huge and negative numbers, wrong types, unknown keys. For
every call:

* it is answered within 5 seconds;
* it is never an internal error (neither a JSON-RPC ``-32603`` nor ``INTERNAL_ERROR``);
* nothing outside the workspace is read (a sentinel there never shows up) or
  created, changed or removed.

The example count is bounded so the whole fuzz takes a few seconds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError
from served_http import make_git_workspace

from sari_core import Kernel
from sari_core.server import SariServer

SENTINEL = "outside-sentinel-5b1e0c"
CALL_BOUND_SECONDS = 5.0
INTERNAL_ERROR = -32603
EXAMPLES = 60
CALLS_PER_EXAMPLE = 6


class Fuzzed:
    """The server under fuzz, its tools' schemas and the folder beside its workspace."""

    def __init__(self, server: SariServer, tools: dict[str, dict[str, Any]], outside: Path,
                 base: Path) -> None:
        self.server = server
        self.tools = tools
        self.outside = outside
        self.base = base


def _tree(base: Path, skip: Path) -> dict[str, str]:
    """Every path under ``base`` except the workspace, with its content (or kind)."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d != skip]
        for name in files:
            path = here / name
            found[str(path)] = path.read_text(errors="replace") if path.is_file() else "?"
        for name in dirs:
            found[str(here / name)] = "dir"
    return found


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    base = tmp_path_factory.mktemp("fuzz")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SENTINEL}\n", encoding="utf-8")
    workspace = make_git_workspace(base / "ws")
    (workspace / "link_out").symlink_to(outside, target_is_directory=True)
    (workspace / "secret_link.txt").symlink_to(outside / "secret.txt")
    previous = os.environ.get("SARI_DISABLE_PLUGINS")
    os.environ["SARI_DISABLE_PLUGINS"] = "lspgate"  # language servers are not under test here
    try:
        kernel = Kernel(roots=[workspace], analytics_sinks=[])
    finally:
        if previous is None:
            os.environ.pop("SARI_DISABLE_PLUGINS")
        else:
            os.environ["SARI_DISABLE_PLUGINS"] = previous
    with kernel:
        kernel.engine.wait_for_index(60)
        server = SariServer(kernel)

        async def schemas() -> dict[str, dict[str, Any]]:
            async with Client(server.lowlevel, mode="legacy") as client:
                return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

        yield Fuzzed(server, anyio.run(schemas), outside, base)


def _hostile_paths(outside: Path) -> st.SearchStrategy[str]:
    return st.sampled_from([
        "../outside/secret.txt", "../../etc/passwd", str(outside / "secret.txt"), "/etc/passwd",
        "link_out/secret.txt", "link_out/new.txt", "secret_link.txt", "link_out",
        "/proc/self/root" + str(outside / "secret.txt"), "src/../../outside/secret.txt",
        "src/app.py\x00.txt", "\ud800", "a" * 5000, ".", "", "~/x", "src//app.py",
        "C:\\Windows\\win.ini", "file:///etc/passwd", "src/app.py", "README.md", "*",
        ".git/HEAD", "nested/.git/config", ".GIT/config", "src/%2e%2e/%2e%2e/outside",
    ])


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
    st.sampled_from(["(a+)+$", "[", "\\", "%s%n", "${HOME}", "\u202e", "\ud800", "\x00"]),
)
_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


def _value(prop: dict[str, Any], outside: Path) -> st.SearchStrategy[Any]:
    enums = [value for branch in (prop, *prop.get("anyOf", ())) for value in
             branch.get("enum", ())]
    choices = [_JSON, _hostile_paths(outside)]
    if enums:
        choices = [st.sampled_from(enums), st.sampled_from(enums), *choices]
    return st.one_of(*choices)


@st.composite
def _call(draw: st.DrawFn, fuzzed: Fuzzed) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(fuzzed.tools)))
    properties: dict[str, Any] = fuzzed.tools[name].get("properties", {})
    keys = draw(st.lists(st.sampled_from(sorted(properties)), max_size=len(properties),
                         unique=True)) if properties else []
    arguments = {key: draw(_value(properties[key], fuzzed.outside)) for key in keys}
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(_JSON)
    return name, arguments


async def _run(fuzzed: Fuzzed, calls: list[tuple[str, dict[str, Any]]],
               internal_errors: bool) -> None:
    """Make ``calls``; with ``internal_errors`` False, an internal error fails the property."""
    async with Client(fuzzed.server.lowlevel, mode="legacy") as client:
        for name, arguments in calls:
            try:
                with anyio.fail_after(CALL_BOUND_SECONDS):
                    result = await client.call_tool(name, arguments)
            except MCPError as exc:  # refused by the protocol layer: fine unless internal
                assert internal_errors or exc.error.code != INTERNAL_ERROR, (name, arguments)
                continue
            seen = json.dumps(result.model_dump(mode="json"))
            assert SENTINEL not in seen, (name, arguments)
            body = result.structured_content or {}
            code = (body.get("error") or {}).get("code")
            assert internal_errors or code != "INTERNAL_ERROR", (name, arguments, body)


def _fuzz(fuzzed: Fuzzed, *, internal_errors: bool) -> None:
    before = _tree(fuzzed.base, fuzzed.base / "ws")

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(_call(fuzzed), min_size=1, max_size=CALLS_PER_EXAMPLE))
    def property_holds(calls: list[tuple[str, dict[str, Any]]]) -> None:
        anyio.run(_run, fuzzed, calls, internal_errors)
        assert _tree(fuzzed.base, fuzzed.base / "ws") == before

    property_holds()


def test_fuzzed_arguments_never_hang_or_reach_outside_the_workspace(fuzzed: Fuzzed) -> None:
    _fuzz(fuzzed, internal_errors=True)


def test_fuzzed_arguments_never_meet_an_internal_error(fuzzed: Fuzzed) -> None:
    _fuzz(fuzzed, internal_errors=False)
