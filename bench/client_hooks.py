"""Per-call cost of each way a coding client's hook reaches Sari, beside a no-op hook of the
same type measured in the same run (``bench/hook_overhead.py`` prints it).

Every hook is asked about one ``PreToolUse`` call of a client's own ``Read`` (a 300-line
file, lines 101-150, in a workspace whose server runs the budget, aggregation, refgate and
secretguard policies), as the client would send it; ``http`` and ``mcp_tool`` also about a
``Grep`` for a definition, which the hooks answer with the definition's body. Each call is
the first of a client session of its own (a new ``session_id``), so every call runs the
whole pipeline: a repeated read in one session would be answered from the aggregation
ledger, which costs less.

* ``command``: a process per call. The no-op peer is a Python script that reads the
  payload and exits (``python -I -S``: the cheapest Python hook there is). Measured: Sari's
  thin client (``hook_client.py``, Codex's hook) asking a resident ``sari serve --transport
  http``, and ``sari hook claude-code pre-tool-use`` (the process that imports Sari).
  CPU is the hook process's (``getrusage(RUSAGE_CHILDREN)``) plus, for the thin client, the
  server's share (``/proc/<pid>/stat``).
* ``http``: no process; the client posts the payload to ``/hooks/claude-code``. The peer
  is the same post of a call Sari has no policy for (``TodoWrite``): the transport and
  dispatch alone. CPU is the server's per call.
* ``mcp_tool``: no process; the client calls the ``hook`` tool of the Sari server it runs
  over stdio. Peer and CPU as for ``http``.

Wall is the median per call; CPU is the total over the calls divided by their number, and
for ``http`` and ``mcp_tool`` includes this process's side of the call (the SDK's client
for ``mcp_tool``), which stands for the client's.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

POLICIES = "budget,aggregation,refgate,secretguard"
TOKEN = "bench-hooks-token-0123456789"
NOOP_HOOK = "import sys\nsys.stdin.read()\n"


@dataclass
class Row:
    hook_type: str
    label: str
    wall_ms: float
    cpu_ms: float


def workspace(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("".join(f"def f{n}():\n    return {n}\n\n" for n in range(100)))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


_SESSIONS = iter(range(1 << 30))
# The calls the http and mcp_tool hooks are asked about: the no-op peer, a ranged read, and
# a search for a definition (answered with its body, the dearest answer the hooks give).
CALLS = (("no-op call (TodoWrite)", "TodoWrite"), ("Read", "Read"),
         ("Grep for a definition (body shown)", "Grep"))


def payload(root: Path, tool: str = "Read") -> dict[str, Any]:
    """A PreToolUse payload of a client session never seen before."""
    inputs: dict[str, dict[str, Any]] = {
        "Read": {"file_path": str(root / "pkg" / "mod.py"), "offset": 101, "limit": 50},
        # A search for a definition: the hook shows its body with the matches.
        "Grep": {"pattern": "def f42", "path": str(root), "output_mode": "content", "-n": True},
        "TodoWrite": {"todos": []}}
    tool_input = inputs[tool]
    return {"session_id": f"bench-{next(_SESSIONS)}", "cwd": str(root),
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_bench"}


def server_cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a process so far, with its children's that it waited for (the
    ripgrep a search runs) (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def child_run(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env,
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(calls: int, one: Callable[[], tuple[float, float]], pid: int | None) -> tuple[float, float]:
    """Median wall ms and mean CPU ms per call (the call's own CPU plus the server's)."""
    one()  # warm: the first call of a session opens it
    walls, cpu = [], 0.0
    server_before = server_cpu_seconds(pid) if pid else None
    for _ in range(calls):
        wall, own = one()
        walls.append(wall)
        cpu += own
    server_after = server_cpu_seconds(pid) if pid else None
    if server_before is not None and server_after is not None:
        cpu += server_after - server_before
    return statistics.median(walls) * 1000, cpu * 1000 / calls


@contextmanager
def http_server(root: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    log = root.parent / "serve.log"
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "sari_core.cli.main", "serve", "--workspace", str(root),
             "--transport", "http", "--port", "0"], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + 120
        while "serving MCP over streamable HTTP at " not in log.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("sari serve did not start:\n" + log.read_text())
            time.sleep(0.05)
        line = [x for x in log.read_text().splitlines() if "streamable HTTP at " in x][0]
        yield line.rsplit(" ", 1)[-1].removesuffix("/mcp"), process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def command_rows(root: Path, env: dict[str, str], url: str, pid: int, calls: int,
                 token_file: Path) -> list[Row]:
    from sari_core.native import hook_client

    noop = root.parent / "noop_hook.py"
    noop.write_text(NOOP_HOOK)
    thin = [sys.executable, "-I", "-S", hook_client.__file__, "codex", "--url", url,
            "--token-file", str(token_file)]
    sari_hook = [sys.executable, "-m", "sari_core.cli.main", "hook", "claude-code",
                 "pre-tool-use"]
    rows = []
    for label, argv, server in (("no-op hook (python -I -S)", [sys.executable, "-I", "-S",
                                                                str(noop)], None),
                                ("Sari thin client -> resident server", thin, pid),
                                ("sari hook claude-code pre-tool-use", sari_hook, None)):
        wall, cpu = measure(calls, lambda argv=argv: child_run(argv, json.dumps(payload(root)),
                                                               env), server)
        rows.append(Row("command", label, wall, cpu))
    return rows


def http_rows(root: Path, url: str, pid: int, calls: int) -> list[Row]:
    from sari_core.native.hook_client import post

    answer = post(url, "/hooks/claude-code", json.dumps(payload(root, "Grep")).encode(), TOKEN, 30)
    if b"return 42" not in answer:  # the row would time a search that shows nothing
        raise SystemExit(f"the hook showed no body for a definition's Grep: {answer[:300]!r}")
    rows = []
    for label, tool in CALLS:

        def one(tool: str = tool) -> tuple[float, float]:
            body = json.dumps(payload(root, tool)).encode()
            start, cpu = time.perf_counter(), time.process_time()
            post(url, "/hooks/claude-code", body, TOKEN, 30)
            return time.perf_counter() - start, time.process_time() - cpu

        wall, cpu = measure(calls, one, pid)
        rows.append(Row("http", label, wall, cpu))
    return rows


def mcp_tool_rows(root: Path, env: dict[str, str], calls: int) -> list[Row]:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.stdio import stdio_client as stdio_transport

    rows: list[Row] = []
    # The SDK's client warns on every call of a tool it was not listed (the hook tool is
    # not offered to models): nothing to report here.
    logging.getLogger("client").setLevel(logging.ERROR)

    async def session() -> None:
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "sari_core.cli.main", "serve", "--workspace", str(root)], env=env)
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_transport(params, errlog=errlog),
                              read_timeout_seconds=120) as client:
                pid = _server_pid(os.getpid())
                for label, tool in CALLS:
                    batch = [{"client": "claude-code", **sent,
                              "tool_input": json.dumps(sent["tool_input"])}
                             for sent in (payload(root, tool) for _ in range(calls + 1))]
                    await client.call_tool("hook", batch.pop())  # warm
                    walls, cpu_before = [], server_cpu_seconds(pid) if pid else None
                    own_before = time.process_time()
                    for arguments in batch:
                        start = time.perf_counter()
                        await client.call_tool("hook", arguments)
                        walls.append(time.perf_counter() - start)
                    cpu = time.process_time() - own_before
                    after = server_cpu_seconds(pid) if pid else None
                    if cpu_before is not None and after is not None:
                        cpu += after - cpu_before
                    rows.append(Row("mcp_tool", label, statistics.median(walls) * 1000,
                                    cpu * 1000 / calls))

    anyio.run(session)
    return rows


def _server_pid(parent: int) -> int | None:
    """The ``sari serve`` child of this process (Linux), or None."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == parent and b"serve" in cmdline:
            return int(entry.name)
    return None


def client_hook_rows(calls: int) -> list[Row]:
    base = Path(tempfile.mkdtemp(prefix="sari-hook-bench-"))
    root = workspace(base / "ws")
    env = {**os.environ, "SARI_STATE_DIR": str(base / "state"),
           "SARI_CACHE_DIR": str(base / "cache"), "SARI_PLUGINS": POLICIES,
           "SARI_HTTP_TOKEN": TOKEN}
    token_file = base / "token"
    token_file.write_text(TOKEN)
    with http_server(root, env) as (url, pid):
        rows = command_rows(root, env, url, pid, calls, token_file)
        rows += http_rows(root, url, pid, calls)
    rows += mcp_tool_rows(root, env, calls)
    return rows


def print_client_hooks(calls: int) -> None:
    print(f"client hooks: one PreToolUse call per call, {calls} calls per row "
          "(CPU: the hook's process and the server's share)")
    print(f"{'type':<10}{'hook':<40}{'wall ms':>9}{'CPU ms':>9}{'CPU vs no-op':>14}")
    rows = client_hook_rows(calls)
    floor: dict[str, float] = {}
    for row in rows:
        floor.setdefault(row.hook_type, row.cpu_ms)
        ratio = row.cpu_ms / floor[row.hook_type] if floor[row.hook_type] else float("nan")
        print(f"{row.hook_type:<10}{row.label:<40}{row.wall_ms:>9.2f}{row.cpu_ms:>9.2f}"
              f"{ratio:>13.2f}x")
    thin = next(r for r in rows if r.label.startswith("Sari thin client"))
    print(f"Codex's command hook (thin client + server): {thin.cpu_ms:.1f} ms CPU per call "
          "(target: at most 50)")
