"""The stand-in Messages API itself: the stream a client parses, and side requests."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from messages_standin import MessagesStandIn, ToolCall, Turn

TOOLS = [{"name": "Read", "description": "read", "input_schema": {"type": "object"}}]


def post(base_url: str, body: dict[str, Any]) -> tuple[str, str]:
    request = urllib.request.Request(f"{base_url}/v1/messages?beta=true",
                                     data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1
        return response.headers["content-type"], response.read().decode()


def events(stream: str) -> list[tuple[str, dict[str, Any]]]:
    parsed = []
    for chunk in stream.strip().split("\n\n"):
        name, data = chunk.split("\n")
        parsed.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return parsed


def test_agent_turns_stream_the_scripted_calls_and_side_requests_do_not_use_them() -> None:
    turns = [Turn(calls=(ToolCall("Read", {"file_path": "/w/a.py"}),)), Turn(text="Done here.")]
    with MessagesStandIn(turns) as api:
        kind, body = post(api.base_url, {"model": "m", "max_tokens": 1, "stream": False,
                                         "messages": [{"role": "user", "content": "quota"}]})
        assert kind == "application/json" and json.loads(body)["content"][0]["text"] == "OK"
        kind, stream = post(api.base_url, {"model": "m", "max_tokens": 512, "stream": True,
                                           "system": "Write a title for the conversation",
                                           "messages": [{"role": "user", "content": "x"}]})
        assert json.loads(events(stream)[2][1]["delta"]["text"]) == {
            "title": "Sari end-to-end check"}
        kind, stream = post(api.base_url, {"model": "m", "max_tokens": 4096, "stream": True,
                                           "tools": TOOLS,
                                           "messages": [{"role": "user", "content": "go"}]})
        assert kind == "text/event-stream"
        names = [name for name, _ in events(stream)]
        assert names == ["message_start", "content_block_start", "content_block_delta",
                         "content_block_stop", "message_delta", "message_stop"]
        start, delta = events(stream)[1][1], events(stream)[2][1]
        assert start["content_block"]["name"] == "Read"
        assert json.loads(delta["delta"]["partial_json"]) == {"file_path": "/w/a.py"}
        assert events(stream)[4][1]["delta"]["stop_reason"] == "tool_use"
        _, stream = post(api.base_url, {"model": "m", "max_tokens": 4096, "stream": True,
                                        "tools": TOOLS, "messages": []})
        assert events(stream)[2][1]["delta"]["text"] == "Done here."
        assert events(stream)[4][1]["delta"]["stop_reason"] == "end_turn"
    assert [r.main for r in api.script.requests] == [False, False, True, True]
    assert len(api.script.main_requests()) == 2
