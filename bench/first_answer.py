"""The first answer on a never-indexed tree: ``sari search`` and ``sari serve`` beside ripgrep.

Each Sari figure is a fresh process on a tree it never indexed, timed beside ``rg -l`` and
``git grep -l`` on the same query in the same run:

* CLI: spawn of ``sari search QUERY`` to its last answer line (the index build it starts
  afterwards is not waited for);
* MCP, spawn to answer: spawn of ``sari serve``, ``initialize``, ``tools/list`` (as every
  client does before it calls a tool), then ``tools/call search`` at once, to its reply
  (what a client starting Sari for one question waits);
* MCP, call to answer: that ``tools/call`` timed from the moment it is sent, the server
  connected and its tools listed (what a client waits for its first search).

The bench's own client imports its JSON-schema validator before any timing: the Python
SDK's client loads it lazily, at its first call of a tool declaring an output schema (about
100 ms of the client's own start-up, whichever server it talks to), which a client that has
called such a tool before does not pay again: the server's reply is timed, not that import.

Python reads its modules from a bytecode cache, as an installed package does (pip compiles
at install): the spawned processes get ``PYTHONPYCACHEPREFIX`` in the scratch folder, filled
by an untimed run on a tiny tree first, whatever ``PYTHONDONTWRITEBYTECODE`` says here.
``--no-bytecode`` times them compiling every module from source instead.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The first-answer query: the first of these the corpus holds (a definition to find).
FIRST_QUERIES = ["def parse_expr", "def execute_read", "class Parser", "def main"]
WARM_UP_FILES = {"warm/reader.py": "class Parser:\n    def execute_read(self):\n        pass\n"}

RgFiles = Callable[..., tuple[float, set[str]]]
GitGrep = Callable[..., float]


def server_env(cache: Path, bytecode: Path | None) -> dict[str, str]:
    env = {**os.environ, "SARI_CACHE_DIR": str(cache), "SARI_PLUGINS": "none"}
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env


def first_query(root: Path, rg_files: RgFiles) -> str:
    for query in FIRST_QUERIES:
        if rg_files(root, query, regex=False)[1]:
            return query
    return FIRST_QUERIES[0]


def cli(root: Path, env: dict[str, str], query: str) -> tuple[float, str]:
    """Spawn ``sari search`` on a never-indexed tree: seconds to its complete answer."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sari_core.cli.main", "search",
                                query, "--workspace", str(root), "--limit", "5"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:  # the answer ends with its "N files matched..." line
        lines.append(line)
        if re.match(r"\d[\d,]* \w+ matched\b", line):
            break
    elapsed = time.perf_counter() - started
    process.terminate()  # it goes on building the index for later calls
    process.wait()
    return elapsed, "".join(lines)


def mcp(root: Path, env: dict[str, str], query: str) -> tuple[float, float, str]:
    """Spawn ``sari serve``, initialize, search at once: (spawn to reply, call to reply,
    reply text) in seconds."""
    import anyio
    import jsonschema.validators  # noqa: F401 - the client's validator, loaded before timing
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "sari_core.cli.main", "serve", "--workspace", str(root)], env=env)

    async def run() -> tuple[float, float, str]:
        started = time.perf_counter()
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await client.list_tools()
                sent = time.perf_counter()
                result = await client.call_tool("search", {"query": query, "limit": 5})
                done = time.perf_counter()
                return done - started, done - sent, str(result.content[0].text)

    return anyio.run(run)


def warm_bytecode(scratch: Path, env: dict[str, str]) -> None:
    """One untimed CLI and MCP search on a tiny tree: every module the timed runs import is
    then in the bytecode cache."""
    tree = scratch / "warm-up"
    for rel, text in WARM_UP_FILES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    cli(tree, env, "execute_read")
    mcp(tree, env, "execute_read")


def first_answers(root: Path, scratch: Path, rg_files: RgFiles, git_grep: GitGrep, *,
                  bytecode: bool = True, rounds: int = 1) -> dict[str, float]:
    """Print the first answers beside rg and git grep, the median of ``rounds`` rounds (each
    round times rg, git grep, the CLI and MCP in turn, each Sari run on a fresh cache);
    {"rg", "git grep", "cli", "mcp", "mcp call"}."""
    cache_folder = scratch / "pycache" if bytecode else None
    query = first_query(root, rg_files)
    times: dict[str, list[float]] = {}
    texts: dict[str, str] = {}
    expected: set[str] = set()
    for _ in range(rounds):
        rg_seconds, expected = rg_files(root, query, regex=False)
        times.setdefault("rg", []).append(rg_seconds)
        times.setdefault("git grep", []).append(git_grep(root, query, regex=False))
        for label in ("cli", "mcp"):
            cache = Path(tempfile.mkdtemp(prefix=f"first-{label}-", dir=scratch))
            env = server_env(cache, cache_folder)
            if cache_folder is not None and not cache_folder.exists():
                warm_bytecode(scratch, env)
            if label == "cli":
                seconds, texts["cli"] = cli(root, env, query)
                times.setdefault("cli", []).append(seconds)
            else:
                seconds, call, texts["mcp"] = mcp(root, env, query)
                times.setdefault("mcp", []).append(seconds)
                times.setdefault("mcp call", []).append(call)
            shutil.rmtree(cache, ignore_errors=True)
    out = {name: statistics.median(values) for name, values in times.items()}
    print(f"first answer peers (median of {rounds}): rg {out['rg'] * 1000:.0f} ms, git grep "
          f"{out['git grep'] * 1000:.0f} ms; python {'with' if bytecode else 'WITHOUT'} a "
          "bytecode cache")

    def report(label: str, seconds: float, text: str) -> None:
        right = bool(expected) == ("No matches" not in text and " 0 files matched" not in text)
        shown = [path for path in expected if path in text]
        print(f"first answer ({label}): {seconds * 1000:8.0f} ms -> {seconds / out['rg']:.2f}x"
              f" rg, {seconds / out['git grep']:.2f}x git grep; right: "
              f"{'yes' if right and shown or not expected else 'NO'} ({len(expected)} files "
              f"hold {query!r})")

    report("cli", out["cli"], texts["cli"])
    report("mcp, spawn to answer", out["mcp"], texts["mcp"])
    report("mcp, tools/call to answer", out["mcp call"], texts["mcp"])
    return out
