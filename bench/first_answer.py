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

``bench/search.py`` prints these rows at each size of its corpus. Run alone, this bench times
given queries and can set another Sari beside this one, alternating round by round (an
interpreter whose environment, or ``PYTHONPATH``, holds the previous tree)::

    python bench/first_answer.py [--corpus PATH] [--rounds 5] [--query Q ...]
        [--baseline-python EXE] [--smoke]
"""

from __future__ import annotations

import argparse
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

ANSWER_MARK = b"sari: answered "  # the line `sari search` prints with SARI_STARTUP_REPORT
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


def cli(root: Path, env: dict[str, str], query: str,
        python: str = sys.executable) -> tuple[float, str, float | None]:
    """Spawn ``sari search`` on a never-indexed tree: (seconds to its complete answer, the
    answer, the CPU seconds its process had used by then, when it reports them). (Each spawn
    runs in its fresh cache folder, so no ``sari_core`` folder there shadows the one
    ``python`` imports.)"""
    started = time.perf_counter()
    process = subprocess.Popen([python, "-m", "sari_core.cli.main", "search",
                                query, "--workspace", str(root), "--limit", "5"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**env, "SARI_STARTUP_REPORT": "1"},
                               cwd=env["SARI_CACHE_DIR"])
    assert process.stdout is not None and process.stderr is not None
    lines = []
    for line in process.stdout:  # the answer ends with its "N files matched..." line
        lines.append(line)
        if re.match(r"\d[\d,]* \w+ matched\b", line):
            break
    elapsed = time.perf_counter() - started
    cpu = answer_cpu(process.stderr.fileno())
    process.terminate()  # it goes on building the index for later calls
    process.wait()
    return elapsed, "".join(lines), cpu


def children_cpu() -> float:
    """CPU seconds of the processes this one waited for (0 where that is not measured)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def answer_cpu(stderr: int, wait: float = 2.0) -> float | None:
    """The CPU seconds ``sari search`` reports on stderr once it answered (``SARI_STARTUP_REPORT``);
    None from a Sari that does not report it (after ``wait`` seconds)."""
    import json
    import selectors

    seen = b""
    deadline = time.monotonic() + wait
    with selectors.DefaultSelector() as selector:
        selector.register(stderr, selectors.EVENT_READ)
        while ANSWER_MARK not in seen and time.monotonic() < deadline:
            if selector.select(deadline - time.monotonic()):
                chunk = os.read(stderr, 1 << 16)
                if not chunk:
                    break
                seen += chunk
    if ANSWER_MARK not in seen:
        return None
    line = seen.split(ANSWER_MARK, 1)[1].split(b"\n", 1)[0]
    return float(json.loads(line)["cpu_seconds"])


def mcp(root: Path, env: dict[str, str], query: str,
        python: str = sys.executable) -> tuple[float, float, str]:
    """Spawn ``sari serve``, initialize, search at once: (spawn to reply, call to reply,
    reply text) in seconds."""
    import anyio
    import jsonschema.validators  # noqa: F401 - the client's validator, loaded before timing
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=python, args=[
        "-m", "sari_core.cli.main", "serve", "--workspace", str(root)], env=env,
        cwd=env["SARI_CACHE_DIR"])

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


def warm_bytecode(scratch: Path, env: dict[str, str], python: str = sys.executable) -> None:
    """One untimed CLI and MCP search on a tiny tree: every module the timed runs import is
    then in the bytecode cache."""
    tree = scratch / "warm-up"
    for rel, text in WARM_UP_FILES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    cli(tree, env, "execute_read", python)
    mcp(tree, env, "execute_read", python)


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
        rg_cpu = children_cpu()
        rg_seconds, expected = rg_files(root, query, regex=False)
        times.setdefault("rg cpu", []).append(children_cpu() - rg_cpu)
        times.setdefault("rg", []).append(rg_seconds)
        times.setdefault("git grep", []).append(git_grep(root, query, regex=False))
        for label in ("cli", "mcp"):
            cache = Path(tempfile.mkdtemp(prefix=f"first-{label}-", dir=scratch))
            env = server_env(cache, cache_folder)
            if cache_folder is not None and not cache_folder.exists():
                warm_bytecode(scratch, env)
            if label == "cli":
                seconds, texts["cli"], cpu = cli(root, env, query)
                times.setdefault("cli", []).append(seconds)
                if cpu is not None:
                    times.setdefault("cli cpu", []).append(cpu)
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
    if "cli cpu" in out:  # robust to the machine's load, unlike the wall times
        print(f"first answer CPU (cli): {out['cli cpu'] * 1000:.0f} ms in Sari's process to its "
              f"answer; rg's scan {out['rg cpu'] * 1000:.0f} ms")
    report("mcp, spawn to answer", out["mcp"], texts["mcp"])
    report("mcp, tools/call to answer", out["mcp call"], texts["mcp"])
    return out


def compare(root: Path, scratch: Path, queries: list[str], rounds: int, bytecode: bool,
            baseline: str | None) -> None:
    """Each query: rg, git grep, then this Sari's CLI and MCP (and the baseline's, in
    alternating order), ``rounds`` times; the medians beside rg, and how many answers hold
    a file rg finds."""
    from search import git_grep, rg_files

    cache_folder = scratch / "pycache" if bytecode else None
    sides = {"this": sys.executable, **({"baseline": baseline} if baseline else {})}
    warmed: set[str] = set()
    for query in queries:
        times: dict[str, list[float]] = {}
        right = dict.fromkeys(sides, 0)
        for round_number in range(rounds):
            rg_seconds, expected = rg_files(root, query, regex=False)
            times.setdefault("rg", []).append(rg_seconds)
            times.setdefault("git grep", []).append(git_grep(root, query, regex=False))
            order = list(sides.items())
            for name, python in order if round_number % 2 == 0 else order[::-1]:
                cache = Path(tempfile.mkdtemp(prefix="first-", dir=scratch))
                env = server_env(cache, cache_folder)
                if cache_folder is not None and name not in warmed:
                    warmed.add(name)
                    warm_bytecode(cache, env, python)
                seconds, text, cpu = cli(root, env, query, python)
                times.setdefault(f"{name} cli", []).append(seconds)
                if cpu is not None:
                    times.setdefault(f"{name} cli cpu", []).append(cpu)
                spawned, called, reply = mcp(root, env, query, python)
                times.setdefault(f"{name} mcp", []).append(spawned)
                times.setdefault(f"{name} mcp call", []).append(called)
                right[name] += sum(any(path in answer for path in expected) or not expected
                                   for answer in (text, reply))
                shutil.rmtree(cache, ignore_errors=True)
        medians = {label: statistics.median(values) for label, values in times.items()}
        rg = medians["rg"]
        print(f"{query!r}, median of {rounds}: rg {rg * 1000:.0f} ms, git grep "
              f"{medians['git grep'] * 1000:.0f} ms (load average {os.getloadavg()[0]:.1f})")
        for name in sides:
            print(f"  {name:<8} cli {medians[f'{name} cli'] * 1000:6.0f} ms "
                  f"({medians[f'{name} cli'] / rg:.2f}x rg"
                  + (f", CPU {medians[f'{name} cli cpu'] * 1000:.0f} ms"
                     if f"{name} cli cpu" in medians else "")
                  + f"); mcp spawn -> answer "
                  f"{medians[f'{name} mcp'] * 1000:6.0f} ms ({medians[f'{name} mcp'] / rg:.2f}x);"
                  f" tools/call -> answer {medians[f'{name} mcp call'] * 1000:5.0f} ms "
                  f"({medians[f'{name} mcp call'] / rg:.2f}x); answers holding a file rg "
                  f"finds: {right[name]}/{2 * rounds}")


def main(argv: list[str] | None = None) -> int:
    import search

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    search.add_corpus_arguments(parser)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--query", action="append", default=[], metavar="Q",
                        help="a query to time (repeatable; default: the first of "
                             f"{FIRST_QUERIES} the tree holds)")
    parser.add_argument("--baseline-python", metavar="EXE",
                        help="also time the CLI and MCP run by this interpreter")
    parser.add_argument("--no-bytecode", dest="bytecode", action="store_false")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny corpus, one round: checks the bench works (CI)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sari-bench-first-") as scratch_name:
        scratch = Path(scratch_name)
        if args.smoke:
            root, args.rounds = search.smoke_corpus(scratch / "smoke"), 1
        else:
            root = search.corpus_of(args)
        queries = args.query or [first_query(root, search.rg_files)]
        compare(root, scratch, queries, args.rounds, args.bytecode, args.baseline_python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
