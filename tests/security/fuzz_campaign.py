"""A fuzz campaign against ``sari serve`` over stdio and HTTP, driven by the official MCP client.

A generator with a fixed seed draws calls to every listed tool with hostile arguments:
paths (traversal, absolute, symlinks out, unicode look-alikes, NUL, very long), huge and
deeply nested values, values of the wrong type, regexes built to stall an engine, and
writes of the files that make tools run commands (Sari's own config naming a validator,
``.gitattributes`` filter drivers, git hooks, a workspace interpreter). Around it:

* canaries: a file outside the workspace (reachable only by escaping) and a secret inside
  it (in ``.env`` and as a quoted key in code), neither of which may appear in any result;
* markers: every planted command touches a marker file outside the workspace; none may
  appear;
* the tree outside the workspace is compared before and after: nothing may change;
* every call is answered within ``CALL_DEADLINE_SECONDS``, and a ``ping`` sent every half
  second throughout is answered within ``PING_DEADLINE_SECONDS``;
* arguments the schema does not list (the ones programs pass: ``session_id``, refs, preview
  shaping, and plugin tools' unlisted ones) are drawn too, a fresh ``session_id`` most of
  the time: reads served on the campaign's one connection stay within the read budget;
* secret literals are drawn into every field (paths, queries, contents, unlisted arguments):
  none may rest verbatim in any file under the server's state folder afterwards (the
  execution log, its spool, the server log).

:func:`run_campaign` returns the counts (tries, refused, hung, escaped, leaked, ran,
internal errors, late pings, reads over budget, secrets at rest); the test asserts the bad
ones are zero.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from sari_stdio import isolated_env
from served_http import make_git_workspace, serve, server_env

CALL_DEADLINE_SECONDS = 30.0  # a search stops at 5 s; the rest is margin for a loaded machine
PING_DEADLINE_SECONDS = 10.0
PING_EVERY_SECONDS = 0.5
SEED = 20261126
# The read budget of one session (sari-budget's default), and the read tools it counts.
READ_BUDGET = 25
READ_TOOLS = {"read", "read_file", "read_symbol", "get_snippet", "dry_run_diff"}
# Arguments no listed schema names, which a model may send anyway.
UNLISTED_ARGUMENTS = ("session_id", "preview_mode", "max_preview_chars", "bundle_id",
                      "candidate_id", "execution_id", "chat_session_id", "scope", "kind",
                      "offset", "include_compacted")


@dataclass
class Counts:
    tries: int = 0
    refused: int = 0  # answered ok: false (or a protocol-level refusal)
    hung: int = 0  # not answered within the call deadline
    escaped: int = 0  # the outside canary in a result, or the outside tree changed
    leaked: int = 0  # the workspace secret in a result
    ran: int = 0  # a marker file a planted command would touch exists
    internal: int = 0  # INTERNAL_ERROR or JSON-RPC -32603
    pings: int = 0
    pings_late: int = 0
    reads_served: int = 0  # read calls answered ok
    over_budget: int = 0  # reads served beyond the one session's budget
    at_rest: int = 0  # files under the state folder holding a drawn secret verbatim

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class Arena:
    """The workspace, what lies outside it, and the strings that must never come back."""

    base: Path
    workspace: Path
    outside: Path
    markers: Path
    outside_canary: str
    secret_canary: str
    state: Path  # the server's state folder

    def drawn_secrets(self) -> list[str]:
        """Secret literals the generator puts into fields (each a pattern redaction knows)."""
        return [self.secret_canary, "AKIA" + self.secret_canary[-16:].upper(),
                "ghp_" + (self.secret_canary[-18:] * 2)]

    def files_at_rest(self) -> list[str]:
        """The files under the state folder that hold a drawn secret verbatim."""
        found = []
        for path in sorted(self.state.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                if any(secret.encode() in data for secret in self.drawn_secrets()):
                    found.append(str(path.relative_to(self.state)))
        return found

    def outside_tree(self) -> dict[str, tuple[int, str]]:
        found: dict[str, tuple[int, str]] = {}
        for folder in (self.outside, self.markers):
            for path in sorted(folder.rglob("*")):
                content = path.read_text(errors="replace") if path.is_file() else "dir"
                found[str(path)] = (path.lstat().st_mode, content)
        return found


def make_arena(base: Path) -> Arena:
    outside, markers = base / "outside", base / "markers"
    outside.mkdir(parents=True)
    markers.mkdir()
    outside_canary = "outside-canary-" + secrets.token_hex(8)
    secret_canary = "sk_live_" + secrets.token_hex(12)
    (outside / "canary.txt").write_text(outside_canary + "\n", encoding="utf-8")
    workspace = make_git_workspace(base / "ws")
    (workspace / ".env").write_text(f"DB_PASSWORD={secret_canary}\n", encoding="utf-8")
    (workspace / "src" / "settings.py").write_text(f'API_KEY = "{secret_canary}"\n',
                                                    encoding="utf-8")
    (workspace / "link_out").symlink_to(outside, target_is_directory=True)
    (workspace / "canary_link.txt").symlink_to(outside / "canary.txt")
    return Arena(base, workspace, outside, markers, outside_canary, secret_canary,
                 base / "server" / "state")


# --- what the generator draws from ------------------------------------------------------


def _paths(arena: Arena) -> list[str]:
    out = str(arena.outside / "canary.txt")
    return [
        "../outside/canary.txt", "../../etc/passwd", out, "/etc/passwd", "link_out/canary.txt",
        "link_out/new.txt", "canary_link.txt", "link_out", "/proc/self/root" + out,
        "src/../../outside/canary.txt", "src/app.py\x00.txt", "a" * 5000, "../" * 10000,
        "a/" * 3000 + "x", "x" * 300, ".", "", "~/x", "src//app.py", "..\\..\\outside",
        "file:///etc/passwd", "src/app.py", "README.md", "*", ".git/HEAD", ".git/config",
        "nested/.git/config", ".GIT/config", ".g\u200cit/config", "src/%2e%2e/%2e%2e/outside",
        "\uff0e\uff0e/outside/canary.txt", "\u2024\u2024/outside/canary.txt",
        "src/\u202eyp.ppa", "src/cafe\u0301.py", ".env", "src/settings.py", ".env.local",
        str(arena.base / "ws" / ".." / "outside" / "canary.txt"), "/dev/zero", "/dev/stdin",
        # Sari's own folders, every way they may be named from here
        str(arena.state / "http-token"), str(arena.state / "logs" / "server.log"),
        str(arena.state / "execution_log.db"), "../server/state/http-token",
        str(arena.base / "server" / "home" / ".config" / "sari" / "config.toml"),
        "~/.config/sari/config.toml", "~/.local/state/sari/http-token",
    ]


REGEXES = [
    "(" * 3000 + "a" + ")" * 3000, "(" * 1500 + "a" + ")" * 1500,
    r"(?s).{1,1000}.{1,1000}.{1,1000}b", r"((((((((((.*)*)*)*)*)*)*)*)*)*)*", r"(.*a){20}",
    r"(a+)+$", r"(a|aa)*c", r"\p{L}{1000}", r"[", r"(?P<x>a)(?P=x)", r"x{1001}", r"\w{1000}",
    ".*" * 200, "(?i)" + "[a-z]" * 500,
]

_PLANTED: list[tuple[str, str]] = [
    ("sari.toml", '[lspgate]\ncommand_validators = [{{name = "x", command = ["sh", "-c", '
                  '"touch {marker}"], patterns = ["*.py"], parser = "gnu"}}]\n'),
    ("sari.toml", '[secretguard]\nblocked_globs = []\nredact = false\n'),
    ("sari.toml", "[broken\n"),
    ("pyproject.toml", '[tool.sari.lspgate]\nlanguage_servers = [{{command = ["sh", "-c", '
                       '"touch {marker}"]}}]\n'),
    (".gitattributes", "* filter=evil diff=evil\n"),
    (".git/config", '[filter "evil"]\n\tclean = touch {marker}\n'),
    (".git/hooks/pre-commit", "#!/bin/sh\ntouch {marker}\n"),
    (".venv/bin/python", "#!/bin/sh\ntouch {marker}\n"),
    ("config", '[core]\n\tfsmonitor = touch {marker}\n'),
]


class Generator:
    """Hostile calls drawn with a fixed seed from each tool's advertised schema."""

    def __init__(self, arena: Arena, tools: dict[str, dict[str, Any]], seed: int = SEED) -> None:
        self.rng = random.Random(seed)
        self.arena = arena
        self.tools = tools
        self.paths = _paths(arena)
        self.planted = 0
        self.fresh_sessions = 0

    def _nested(self, depth: int) -> Any:
        value: Any = "leaf"
        for _ in range(depth):
            value = {"k": [value]} if self.rng.random() < 0.5 else [value]
        return value

    def _any(self) -> Any:
        rng = self.rng
        return rng.choice([
            lambda: None, lambda: True, lambda: rng.randint(-(2 ** 70), 2 ** 70),
            lambda: rng.choice([0, -1, 10 ** 9]), lambda: rng.random() * 1e308,
            lambda: rng.choice(self.paths), lambda: rng.choice(REGEXES),
            lambda: "x" * rng.choice([10_000, 300_000]), lambda: self._nested(rng.randint(5, 150)),
            lambda: [rng.randint(0, 9)] * rng.choice([10, 10_000]),
            lambda: {"unexpected": [1, {"deeper": None}]}, lambda: "\u202e\ufeff\u200b",
            lambda: "${HOME}%s%n`id`$(id)", lambda: self._secret_text(),
        ])()

    def _secret_text(self) -> str:
        """A value carrying a secret literal, bare or inside text."""
        secret = self.rng.choice(self.arena.drawn_secrets())
        return self.rng.choice([secret, f"key = '{secret}'", f"{secret}.py", f"src/{secret}",
                                f"Authorization: Bearer {secret}"])

    def _unlisted(self) -> tuple[str, Any]:
        """An argument no schema lists: most often a fresh session_id."""
        name = self.rng.choice(UNLISTED_ARGUMENTS)
        if name == "session_id" and self.rng.random() < 0.8:
            self.fresh_sessions += 1
            return name, f"s{self.fresh_sessions}"
        return name, self._any()

    def _value(self, key: str, prop: dict[str, Any]) -> Any:
        rng = self.rng
        enums = [v for branch in (prop, *prop.get("anyOf", ())) for v in branch.get("enum", ())]
        if enums and rng.random() < 0.7:
            return rng.choice(enums)
        if key in ("path", "target", "against") and rng.random() < 0.8:
            return rng.choice(self.paths)
        if key in ("query", "path_glob") and rng.random() < 0.8:
            return rng.choice(REGEXES + self.paths + ["helper", "API_KEY", "DB_PASSWORD"])
        if rng.random() < 0.1:  # a secret in any field
            return self._secret_text()
        return self._any()

    def planted_write(self) -> tuple[str, dict[str, Any]]:
        path, template = self.rng.choice(_PLANTED)
        self.planted += 1
        marker = self.arena.markers / f"ran-{self.planted}"
        return "write", {"path": path, "content": template.format(marker=marker)}

    def call(self) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if rng.random() < 0.1:
            return self.planted_write()
        if rng.random() < 0.1:  # what makes planted files act: a diff, an edit of code
            return rng.choice([("read", {"mode": "diff_preview", "target": "."}),
                               ("edit", {"path": "src/util.py", "old_string": "return",
                                         "new_string": "return"}),
                               ("write", {"path": "src/new_mod.py", "content": "x = 1\n"})])
        name = rng.choice(sorted(self.tools))
        properties: dict[str, Any] = self.tools[name].get("properties", {})
        keys = rng.sample(sorted(properties), rng.randint(0, len(properties))) \
            if properties else []
        arguments = {key: self._value(key, properties[key]) for key in keys}
        if rng.random() < 0.1:
            arguments[rng.choice(["extra", "__proto__", "\x00", "x" * 200])] = self._any()
        if rng.random() < 0.3:
            key, value = self._unlisted()
            arguments[key] = value
        if name in READ_TOOLS and rng.random() < 0.3:  # a read that would be served...
            target = rng.choice(["src/app.py", "README.md"])
            arguments = {"mode": "file", "target": target} if name == "read" \
                else {"path": target}
            if rng.random() < 0.5:  # ...naming a session of its own, as a model may
                self.fresh_sessions += 1
                arguments["session_id"] = f"s{self.fresh_sessions}"
        return name, arguments


# --- the transports -----------------------------------------------------------------------


def _env(arena: Arena) -> dict[str, str]:
    env = isolated_env(arena.base / "server")
    env["SARI_DISABLE_PLUGINS"] = "lspgate"  # no language servers: not what is fuzzed here
    return env


@asynccontextmanager
async def stdio_client_of(arena: Arena) -> AsyncIterator[Client]:
    import sys

    params = StdioServerParameters(
        command=sys.executable, env=_env(arena),
        args=["-m", "sari_core.cli.main", "serve", "--workspace", str(arena.workspace)])
    with (arena.base / "stdio.log").open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                          read_timeout_seconds=CALL_DEADLINE_SECONDS * 2) as client:
            yield client


@asynccontextmanager
async def http_client_of(arena: Arena) -> AsyncIterator[Client]:
    (arena.base / "server" / "home").mkdir(parents=True, exist_ok=True)
    env = {**server_env(arena.base / "server", plugins=""), **_env(arena)}
    env.pop("SARI_PLUGINS", None)
    with serve(arena.workspace, env, arena.base / "http.log") as served:
        async with httpx2.AsyncClient(timeout=CALL_DEADLINE_SECONDS * 2) as http, \
                Client(streamable_http_client(served.url, http_client=http), mode="legacy",
                       read_timeout_seconds=CALL_DEADLINE_SECONDS * 2) as client:
            yield client


TRANSPORTS: dict[str, Callable[[Arena], Any]] = {"stdio": stdio_client_of,
                                                 "http": http_client_of}


# --- the campaign -------------------------------------------------------------------------


def _seen(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False)


async def run_campaign(arena: Arena, transport: str, *, calls: int, seconds: float,
                       seed: int = SEED) -> Counts:
    """Up to ``calls`` calls or ``seconds`` of them, whichever ends first, over ``transport``."""
    counts = Counts()
    before = arena.outside_tree()
    async with TRANSPORTS[transport](arena) as client:
        tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        generator = Generator(arena, tools, seed)
        done = anyio.Event()

        async def ping_throughout() -> None:
            while not done.is_set():
                started = time.monotonic()
                try:
                    with anyio.fail_after(PING_DEADLINE_SECONDS):
                        await client.send_ping()
                except TimeoutError:
                    counts.pings_late += 1
                counts.pings += 1
                await anyio.sleep(max(0.0, PING_EVERY_SECONDS - (time.monotonic() - started)))

        async with anyio.create_task_group() as group:
            group.start_soon(ping_throughout)
            ends = time.monotonic() + seconds
            while counts.tries < calls and time.monotonic() < ends:
                name, arguments = generator.call()
                await _one_call(client, arena, counts, name, arguments)
            done.set()
    counts.ran = sum(1 for _ in arena.markers.iterdir())
    if arena.outside_tree() != before:
        counts.escaped += 1
    counts.over_budget = max(0, counts.reads_served - READ_BUDGET)
    counts.at_rest = len(arena.files_at_rest())  # the server has stopped: all is written
    return counts


async def _one_call(client: Client, arena: Arena, counts: Counts, name: str,
                    arguments: dict[str, Any]) -> None:
    counts.tries += 1
    try:
        with anyio.fail_after(CALL_DEADLINE_SECONDS):
            result = await client.call_tool(name, arguments)
    except TimeoutError:
        counts.hung += 1
        return
    except ValueError:  # the client could not even encode it (nested past its limit)
        counts.tries -= 1
        return
    except MCPError as exc:  # refused by the protocol layer
        counts.refused += 1
        counts.internal += exc.error.code == -32603
        return
    seen = _seen(result)
    counts.escaped += arena.outside_canary in seen
    counts.leaked += arena.secret_canary in seen and arena.secret_canary not in \
        json.dumps(arguments, ensure_ascii=False, default=str)  # its own echo is no leak
    body = result.structured_content or {}
    counts.reads_served += name in READ_TOOLS and body.get("ok") is True
    if result.is_error or body.get("ok") is False:
        counts.refused += 1
        counts.internal += (body.get("error") or {}).get("code") == "INTERNAL_ERROR"


def budget_from_env(default_calls: int, default_seconds: float) -> tuple[int, float]:
    """The campaign's size: ``SARI_FUZZ_CALLS`` and ``SARI_FUZZ_SECONDS`` make a long run."""
    calls = int(os.environ.get("SARI_FUZZ_CALLS", default_calls))
    seconds = float(os.environ.get("SARI_FUZZ_SECONDS", default_seconds))
    return calls, seconds
