"""A stand-in for the Anthropic Messages API, for driving a real client offline.

It listens on 127.0.0.1, records every request, and answers the conversation the
client is having with the next scripted turn (tool calls or a final text), streamed
as server-sent events exactly as the Messages API streams them. The client's side
requests (session titles, topic checks, the one-token quota probe, token counting)
get short plausible answers so the client carries on; they are recorded too but never
consume a scripted turn.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sari_core.replay.transcript import result_text

MODEL = "claude-sonnet-4-5-20250929"


@dataclass(frozen=True)
class ToolCall:
    """One tool call the scripted model makes."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """One scripted assistant message: tool calls (one turn each round) or a final answer."""

    calls: tuple[ToolCall, ...] = ()
    text: str = ""


@dataclass
class RecordedRequest:
    """A request the client sent: its path and JSON body, and whether it was the agent turn."""

    path: str
    body: dict[str, Any]
    main: bool


@dataclass
class Script:
    """The turns to answer, in order; when they run out the model says it is done."""

    turns: Sequence[Turn]
    requests: list[RecordedRequest] = field(default_factory=list)
    _next: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> Turn:
        with self._lock:
            turn = self.turns[self._next] if self._next < len(self.turns) else Turn(text="Done.")
            self._next += 1
            return turn

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def main_requests(self) -> list[dict[str, Any]]:
        """The bodies of the agent's own turns (the requests that carry the tool list)."""
        with self._lock:
            return [r.body for r in self.requests if r.main]

    def tool_results(self) -> dict[str, str]:
        """Every tool result the model was sent, by tool_use id, as the text it read."""
        results: dict[str, str] = {}
        for body in self.main_requests():
            for message in body.get("messages", []):
                content = message.get("content")
                if not isinstance(content, list):
                    continue
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        results[block["tool_use_id"]] = result_text(block.get("content"))
        return results


def is_agent_turn(body: dict[str, Any]) -> bool:
    """The agent's own turns list its tools; side requests (titles, quota) list none."""
    return bool(body.get("tools")) and int(body.get("max_tokens") or 0) > 1


def side_answer(body: dict[str, Any]) -> str:
    """A short answer to a side request, shaped as the client expects it."""
    system = json.dumps(body.get("system", ""))
    if "isNewTopic" in system:
        return json.dumps({"isNewTopic": False, "title": None})
    if "title" in system.lower():
        return json.dumps({"title": "Sari end-to-end check"})
    return "OK"


_ids = itertools.count(1)


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def message_blocks(turn: Turn) -> list[dict[str, Any]]:
    """The content blocks of a scripted turn, with fresh tool_use ids."""
    blocks: list[dict[str, Any]] = []
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for call in turn.calls:
        blocks.append({"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": call.name,
                       "input": call.input})
    return blocks


def stream_events(blocks: list[dict[str, Any]], model: str) -> Iterator[bytes]:
    """The Messages API event stream for one assistant message."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    yield _event("message_start", {"type": "message_start", "message": {
        "id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": {"type": "text", "text": ""}})
            yield _event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "text_delta",
                                                           "text": block["text"]}})
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": start})
            yield _event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "input_json_delta",
                                                           "partial_json": json.dumps(
                                                               block["input"])}})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _event("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": 20}})
    yield _event("message_stop", {"type": "message_stop"})


def whole_message(blocks: list[dict[str, Any]], model: str) -> dict[str, Any]:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {"id": f"msg_{next(_ids):04d}", "type": "message", "role": "assistant",
            "model": model, "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20}}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        return  # keep the test output quiet; every request is recorded instead

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self.server.script.record(RecordedRequest(self.path, {}, False))
        self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                         "message": "not served here"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            body = {}
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            self.server.script.record(RecordedRequest(self.path, body, False))
            self._send_json(200, {"input_tokens": len(raw) // 4})
            return
        if not path.endswith("/v1/messages"):
            self.server.script.record(RecordedRequest(self.path, body, False))
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                             "message": "not served here"}})
            return
        main = is_agent_turn(body)
        self.server.script.record(RecordedRequest(self.path, body, main))
        turn = self.server.script.take() if main else Turn(text=side_answer(body))
        blocks = message_blocks(turn)
        model = str(body.get("model") or MODEL)
        if not body.get("stream"):
            self._send_json(200, whole_message(blocks, model))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in stream_events(blocks, model):
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script


class MessagesStandIn:
    """Serve a :class:`Script` on 127.0.0.1 for the duration of a ``with`` block."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.script = Script(list(turns))
        self._server = _Server(self.script)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> MessagesStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
