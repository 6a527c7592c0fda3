"""MCP server load and latency: Sari over streamable HTTP and stdio, against a reference server.

Part 1 — load: ``sari serve --transport http`` on loopback, N concurrent clients
(each its own MCP session), a bounded number of calls each, for two workloads:
21-line snippet reads only (the server and transport at their cheapest), and
searches alternating with those reads (search cost is the engine's). Prints
calls/s, p50/p99 latency and errors (a transport failure or an ``isError``
result; must be 0).

Part 2 — a 200-line read round trip over stdio: Sari's ``read`` (mode=file,
limit=200) against the reference filesystem server
(``@modelcontextprotocol/server-filesystem``, ``read_text_file`` with
``head=200``) on the same file, both servers open at once and called
alternately so both see the same machine state. Prints each median/p99 and the
ratio Sari/reference (target: <= 1.0, i.e. Sari no slower).

Usage: python bench/mcp_load.py [--clients 8] [--calls 200] [--rounds 300]
       [--plugins none] [--reference-dir DIR]
The reference server is installed with npm into --reference-dir on first use.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

REFERENCE_PACKAGE = "@modelcontextprotocol/server-filesystem"
READ_LINES = 200


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def make_workspace(root: Path) -> Path:
    """A few dozen real modules (stdlib copies) plus a 1000-line text file."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    (root / "src").mkdir(parents=True)
    for module in sorted(stdlib.glob("*.py"))[:60]:
        shutil.copy(module, root / "src" / module.name)
    (root / "data").mkdir()
    (root / "data" / "lines.txt").write_text(
        "".join(f"line {n:04d}: the quick brown fox jumps over the lazy dog\n"
                for n in range(1, 1001)), encoding="utf-8")
    return root


def server_env(state: Path, plugins: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SARI_")}
    env.update({"SARI_PLUGINS": plugins, "SARI_STATE_DIR": str(state / "state"),
                "SARI_CACHE_DIR": str(state / "cache"), "SARI_LOG_LEVEL": "WARNING"})
    return env


def serve_argv(workspace: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sari_core.cli.main", "serve", "--workspace",
            str(workspace), *extra]


def start_http(workspace: Path, env: dict[str, str], log_path: Path
               ) -> tuple[str, subprocess.Popen[bytes]]:
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(serve_argv(workspace, "--transport", "http", "--port", "0"),
                                   env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in log_path.read_text(encoding="utf-8").splitlines():
            if "serving MCP over streamable HTTP at " in line:
                return line.rsplit(" ", 1)[-1], process
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise SystemExit("sari serve did not start:\n" + log_path.read_text(encoding="utf-8"))


async def wait_for_index(client: Client) -> None:
    with anyio.fail_after(300):
        while True:
            result = await client.call_tool("search", {"query": "def ", "session_id": "warmup"})
            if (result.structured_content or {}).get("meta", {}).get("index_ready"):
                return
            await anyio.sleep(0.2)


QUERIES = ["import", "def __init__", "return None", "class ", "raise ValueError"]


async def _clients(url: str, indices: list[int], calls: int, workload: str
                   ) -> tuple[list[float], list[str], float, float]:
    """Some of the clients, concurrently in this process's event loop."""
    latencies: list[float] = []
    errors: list[str] = []

    async def one_client(index: int) -> None:
        async with Client(url, read_timeout_seconds=120) as client:
            for number in range(calls):
                if workload == "mixed" and number % 2 == 0:
                    name, arguments = "search", {"query": QUERIES[(index + number) % 5]}
                else:
                    start = 1 + (index * 37 + number) % 900
                    name, arguments = "read", {"mode": "snippet", "target": "data/lines.txt",
                                               "start_line": start, "end_line": start + 20}
                started = time.perf_counter()
                try:
                    result = await client.call_tool(name, arguments)
                except Exception as exc:  # noqa: BLE001 - every failure is counted, not raised
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")
                    continue
                latencies.append(time.perf_counter() - started)
                if result.is_error:
                    errors.append(f"{name}: {result.content[0].text[:200]}")

    began = time.time()
    async with anyio.create_task_group() as group:
        for index in indices:
            group.start_soon(one_client, index)
    return latencies, errors, began, time.time()


def _client_process(url: str, indices: list[int], calls: int, workload: str
                    ) -> tuple[list[float], list[str], float, float]:
    return anyio.run(_clients, url, indices, calls, workload)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pid(marker: str) -> int | None:
    """The pid of this process's child whose command line contains ``marker`` (Linux)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if parent == me and marker in command:
            return int(entry.name)
    return None


def load_test(url: str, server_pid: int, clients: int, processes: int, calls: int,
              workload: str) -> dict[str, float]:
    """``clients`` MCP sessions spread over ``processes`` client processes."""
    shares = [list(range(clients))[number::processes] for number in range(processes)]
    cpu_before = cpu_seconds(server_pid)
    with ProcessPoolExecutor(max_workers=processes) as pool:
        outcomes = list(pool.map(_client_process, [url] * processes, shares,
                                 [calls] * processes, [workload] * processes))
    cpu_after = cpu_seconds(server_pid)
    latencies = [value for outcome in outcomes for value in outcome[0]]
    errors = [value for outcome in outcomes for value in outcome[1]]
    wall = max(outcome[3] for outcome in outcomes) - min(outcome[2] for outcome in outcomes)
    for error in errors[:5]:
        print(f"  error: {error}")
    total = len(latencies) + len(errors)
    server_cpu = (cpu_after - cpu_before) / total * 1e6 if cpu_after and cpu_before else -1.0
    return {"calls": total, "wall_s": wall, "calls_per_s": total / wall,
            "p50_ms": percentile(latencies, 0.50) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000,
            "server_cpu_us": server_cpu, "errors": len(errors)}


def reference_server(directory: Path) -> tuple[Path, str]:
    entry = directory / "node_modules" / "@modelcontextprotocol" / "server-filesystem"
    if not (entry / "dist" / "index.js").is_file():
        directory.mkdir(parents=True, exist_ok=True)
        print(f"installing {REFERENCE_PACKAGE} into {directory} (npm)...", flush=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(directory),
                        REFERENCE_PACKAGE], check=True, capture_output=True)
    version = json.loads((entry / "package.json").read_text(encoding="utf-8"))["version"]
    return entry / "dist" / "index.js", version


def read_lines(label: str, result: Any) -> str:
    """The file lines a read reply carries: Sari's text starts with a one-line header
    (its structured content holds the lines alone); the reference returns the lines."""
    text = str(result.content[0].text)
    if label != "sari":
        return text
    structured = getattr(result, "structured_content", None) or {}
    if isinstance(structured.get("text"), str):
        return str(structured["text"])
    return text.split("\n", 1)[1] if "\n" in text else ""


async def read_comparison(workspace: Path, env: dict[str, str], reference: Path | None,
                          rounds: int, errlog: Path
                          ) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Sari's read against the reference server's (Sari alone when ``reference`` is None)."""
    target = workspace / "data" / "lines.txt"
    argv = serve_argv(workspace)
    sari_params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    ref_params = StdioServerParameters(command="node", args=[str(reference), str(workspace)])
    timings: dict[str, list[float]] = {"sari": [], "reference": []}
    sari_args = {"mode": "file", "target": "data/lines.txt", "limit": READ_LINES}
    ref_args = {"path": str(target), "head": READ_LINES}
    with errlog.open("w", encoding="utf-8") as log:
        async with contextlib.AsyncExitStack() as stack:
            sari = await stack.enter_async_context(Client(stdio_client(sari_params, errlog=log)))
            calls: tuple[tuple[str, Any, str, dict[str, Any]], ...] = (
                ("sari", sari, "read", sari_args),)
            if reference is not None:
                ref = await stack.enter_async_context(
                    Client(stdio_client(ref_params, errlog=log)))
                calls += (("reference", ref, "read_text_file", ref_args),)
            else:
                timings.pop("reference")
            await wait_for_index(sari)  # so no index build shares the measured CPU
            for label, client, tool, arguments in calls:  # warm up, and check equivalence
                for _ in range(20):
                    result = await client.call_tool(tool, arguments)
                text = result.content[0].text
                lines = read_lines(label, result)
                if result.is_error or len(lines.splitlines()) != READ_LINES:
                    raise SystemExit(f"{label} did not return {READ_LINES} lines (a policy that "
                                     f"refuses or dedupes repeated reads cannot be compared "
                                     f"this way): {text[:300]}")
            pids = {"sari": child_pid("sari_core.cli.main")}
            if reference is not None:
                pids["reference"] = child_pid(str(reference))
            cpu_before = {label: cpu_seconds(pid) if pid else None for label, pid in pids.items()}
            for number in range(rounds):
                # Alternate which server goes first, so neither always follows the other.
                order = calls if number % 2 == 0 else calls[::-1]
                for label, client, tool, arguments in order:
                    started = time.perf_counter()
                    result = await client.call_tool(tool, arguments)
                    timings[label].append(time.perf_counter() - started)
                    if result.is_error:
                        raise SystemExit(f"{label} failed: {result.content[0].text[:300]}")
            cpu = {}
            for label, pid in pids.items():
                after = cpu_seconds(pid) if pid else None
                before = cpu_before[label]
                cpu[label] = (after - before) / rounds * 1e6 if after and before else -1.0
    return timings, cpu


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200, help="calls per client")
    parser.add_argument("--processes", type=int, default=4,
                        help="client processes the clients are spread over")
    parser.add_argument("--rounds", type=int, default=300, help="200-line reads per server")
    parser.add_argument("--plugins", default="none",
                        help="SARI_PLUGINS for the server (default none: the kernel pipeline "
                             "with its built-in metrics, no policy plugin)")
    parser.add_argument("--reference-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "sari-bench-node")
    parser.add_argument("--skip-reference", action="store_true",
                        help="only the HTTP load test")
    parser.add_argument("--skip-load", action="store_true", help="only the stdio read comparison")
    parser.add_argument("--smoke", action="store_true",
                        help="a quick run that checks the bench works (2 clients x 5 calls, "
                             "3 reads, no reference server); CI runs it")
    args = parser.parse_args(argv)
    if args.smoke:
        args.clients, args.calls, args.processes, args.rounds = 2, 5, 1, 3
        args.skip_reference = True

    import mcp  # noqa: F401 - version line below

    from sari_core import __version__
    print(f"python {sys.version.split()[0]}, sari-core {__version__}, SARI_PLUGINS={args.plugins}, "
          f"{os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory(prefix="sari-bench-") as scratch:
        scratch_path = Path(scratch)
        workspace = make_workspace(scratch_path / "ws")
        env = server_env(scratch_path, args.plugins)
        loads: dict[str, dict[str, float]] = {}
        url, process = start_http(workspace, env, scratch_path / "http.log")
        try:
            async def warm() -> None:
                async with Client(url) as client:
                    await wait_for_index(client)
            anyio.run(warm)
            for workload in () if args.skip_load else ("read", "mixed"):
                loads[workload] = load_test(url, process.pid, args.clients,
                                            min(args.processes, args.clients), args.calls,
                                            workload)
        finally:
            stop(process)
        if loads:
            print(f"\nHTTP load: {args.clients} concurrent clients (in {args.processes} client "
                  f"processes) x {args.calls} calls each, loopback")
        labels = {"read": "snippet reads (21 lines)", "mixed": "search / snippet read alternating"}
        for workload, load in loads.items():
            print(f"  {labels[workload]:<34} {load['calls']:.0f} calls in {load['wall_s']:.2f} s "
                  f"-> {load['calls_per_s']:.0f} calls/s; p50 {load['p50_ms']:.2f} ms, "
                  f"p99 {load['p99_ms']:.2f} ms; server CPU {load['server_cpu_us']:.0f} µs/call; "
                  f"errors {load['errors']:.0f}")
        errors = sum(load["errors"] for load in loads.values())
        reference, version = (None, "not run") if args.skip_reference \
            else reference_server(args.reference_dir)
        timings, cpu = anyio.run(read_comparison, workspace, env, reference, args.rounds,
                                 scratch_path / "stdio.log")
    print(f"\nstdio {READ_LINES}-line read round trip, {args.rounds} calls each, alternating "
          f"(reference: {REFERENCE_PACKAGE} {version}, read_text_file head={READ_LINES})")
    medians = {}
    for label, values in timings.items():
        medians[label] = statistics.median(values) * 1000
        print(f"  {label:<10} p50 {medians[label]:.3f} ms   p99 "
              f"{percentile(values, 0.99) * 1000:.3f} ms   server CPU {cpu[label]:.0f} µs/call")
    if "reference" not in medians:
        return 1 if errors else 0
    ratio = medians["sari"] / medians["reference"]
    if cpu["sari"] > 0 and cpu["reference"] > 0:
        print(f"  server CPU ratio sari/reference: {cpu['sari'] / cpu['reference']:.3f}")
    verdict = "no slower" if ratio <= 1.0 else "SLOWER"
    print(f"  ratio sari/reference (p50): {ratio:.3f} -> Sari is {verdict} than the reference")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
