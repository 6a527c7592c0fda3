"""``sari serve`` over stdio ends cleanly and answers every request, however malformed.

Real subprocesses on pipes, the way clients launch the server.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from stdio_wire import WireServer


@pytest.fixture
def spawn(workspace: Path, env: dict[str, str]) -> Iterator[Callable[[], WireServer]]:
    """Start servers; any still running at the end of the test is killed."""
    started: list[WireServer] = []

    def start() -> WireServer:
        started.append(WireServer(workspace, env))
        return started[-1]
    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.finish()


def search(request_id: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "handle_request"}}}


def analytics_events(state: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in (state / "analytics").glob("*.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines()]


def test_closing_stdin_ends_the_server_with_exit_code_0_and_no_traceback(
        spawn: Callable[[], WireServer]) -> None:
    server = spawn()
    server.handshake()
    server.send(search(1))
    assert "result" in server.reply_to(1)
    server.close_input()
    code, stderr = server.finish()
    assert "Traceback" not in stderr, stderr
    assert code == 0, stderr


def test_sigterm_answers_what_is_pending_flushes_and_exits_0(
        spawn: Callable[[], WireServer], tmp_path: Path) -> None:
    server = spawn()
    server.handshake()
    server.send(search(1))
    assert "result" in server.reply_to(1)
    server.process.send_signal(signal.SIGTERM)
    code, stderr = server.finish()
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
    # The session's call reached the analytics file: the kernel was closed, not killed.
    events = analytics_events(tmp_path / "state")
    assert any(event["type"] == "search" for event in events), events


DEEP = "[" * 5000 + "]" * 5000

# (the line sent, its id, the JSON-RPC error code expected)
MALFORMED = [
    ('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read",'
     '"arguments":{"target":"src/\\ud800.py"}}}', 11, -32602),
    ('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"write",'
     '"arguments":{"target":"new.py","content":"x = \'\\udc00\'"}}}', 12, -32602),
    ('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"search",'
     f'"arguments":{{"query":{DEEP}}}}}}}', 13, -32600),
    ('{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"search",'
     '"arguments":{"query":' + "[" * 300 + "]" * 300 + "}}}", 14, -32600),
    ('[{"jsonrpc":"2.0","id":15,"method":"tools/list"},'
     '{"jsonrpc":"2.0","id":16,"method":"tools/list"}]', 15, -32600),
    ('{"jsonrpc":"1.0","id":17,"method":"tools/list"}', 17, -32600),
    ('{"jsonrpc":"2.0","id":{"nested":1},"method":"tools/list"}', None, -32600),
    ('{"jsonrpc":"2.0","id":18,"method":', None, -32700),
]


@pytest.mark.parametrize(("line", "request_id", "code"), MALFORMED,
                         ids=["surrogate-path", "surrogate-content", "deep-5000", "deep-300",
                              "batch", "jsonrpc-1.0", "object-id", "truncated"])
def test_every_malformed_line_gets_a_json_rpc_error_and_the_server_goes_on(
        spawn: Callable[[], WireServer], workspace: Path, line: str, request_id: int | None,
        code: int) -> None:
    server = spawn()
    server.handshake()
    server.send_line(line)
    reply = server.reply_to(request_id)
    assert reply["jsonrpc"] == "2.0"
    assert reply["error"]["code"] == code, reply
    assert reply["error"]["data"]["hint"]
    server.send(search(99))
    assert "result" in server.reply_to(99)
    server.close_input()
    code_at_exit, stderr = server.finish()
    assert code_at_exit == 0, stderr
    assert not list(workspace.glob("new.py")), "a refused write must leave no file"


def test_a_batch_gets_one_error_per_request_in_it(spawn: Callable[[], WireServer]) -> None:
    server = spawn()
    server.handshake()
    server.send_line(json.dumps([{"jsonrpc": "2.0", "id": 21, "method": "tools/list"},
                                 {"jsonrpc": "2.0", "id": 22, "method": "tools/list"}]))
    assert server.reply_to(21)["error"]["code"] == -32600
    assert server.reply_to(22)["error"]["code"] == -32600
    server.close_input()
    assert server.finish()[0] == 0
