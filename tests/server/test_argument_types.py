"""An argument of the wrong JSON type is refused with the type expected and the type given."""

from __future__ import annotations

from typing import Any

import pytest
from test_server_inprocess import body, connect

WRONG_TYPES = [
    ("search", {"query": 5}, "query must be a string, not an integer (5)"),
    ("search", {"query": ["x"]}, "query must be a string, not an array"),
    ("search", {"query": "x", "limit": "ten"}, "limit must be an integer, not a string"),
    ("search", {"query": "x", "case_sensitive": "yes"}, "case_sensitive must be a boolean"),
    ("read", {"mode": "file", "target": 7}, "target must be a string, not an integer (7)"),
    ("read", {"mode": "file", "target": "pkg/app.py", "limit": "all"},
     "limit must be an integer, not a string"),
    ("read", {"mode": 1, "target": "pkg/app.py"}, "mode must be a string, not an integer"),
    ("edit", {"path": "pkg/app.py", "old_string": 1, "new_string": "x"},
     "old_string must be a string, not an integer (1)"),
    ("edit", {"path": "pkg/app.py", "old_string": "a", "new_string": "b",
              "expected_occurrences": "two"}, "expected_occurrences must be an integer"),
    ("write", {"path": "pkg/new.py", "content": {"text": "x"}},
     "content must be a string, not an object"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), WRONG_TYPES,
                         ids=[f"{tool}-{'-'.join(args)}" for tool, args, _ in WRONG_TYPES])
async def test_a_wrong_type_names_what_was_expected(make_server, tool: str,
                                                    arguments: dict[str, Any],
                                                    message: str) -> None:
    server = make_server()
    async with connect(server) as client:
        response = body(await client.call_tool(tool, arguments))
    assert response["ok"] is False
    assert response["error"]["code"] == "INVALID_ARGS"
    assert response["error"]["message"].startswith(message), response["error"]
    assert "required" not in response["error"]["message"]
    assert response["error"]["hint"]


async def test_a_right_type_still_works(make_server) -> None:
    async with connect(make_server()) as client:
        assert body(await client.call_tool("search", {"query": "getcwd", "limit": 3}))["ok"]



@pytest.mark.parametrize(("tool", "arguments"), [
    ("read", {"mode": "file", "target": "pkg/\ud800.py"}),
    ("write", {"path": "pkg/new.py", "content": "x = '\udc00'"}),
])
async def test_a_lone_surrogate_is_refused_as_invalid_arguments(make_server, tool: str,
                                                                arguments: dict[str, Any]
                                                                ) -> None:
    async with connect(make_server()) as client:
        response = body(await client.call_tool(tool, arguments))
        assert response["error"]["code"] == "INVALID_ARGS", response["error"]
        assert "surrogate" in response["error"]["message"]
        assert body(await client.call_tool("search", {"query": "getcwd"}))["ok"]


# Lower bounds the tool listing leaves out (it is paid for on every turn): still enforced.
UNLISTED_BOUNDS = [
    ("search", {"query": ""}, "query"),
    ("search", {"query": "x", "limit": 0}, "limit"),
    ("read", {"mode": "file", "target": "pkg/app.py", "offset": -1}, "offset"),
    ("read", {"mode": "file", "target": "pkg/app.py", "limit": 0}, "limit"),
    ("read", {"mode": "snippet", "target": "pkg/app.py", "start_line": 0}, "start_line"),
    ("read", {"mode": "snippet", "target": "pkg/app.py", "start_line": 2, "end_line": 0},
     "end_line"),
    ("read", {"mode": "snippet", "target": "pkg/app.py", "start_line": 2, "context_lines": -3},
     "context_lines"),
    ("edit", {"path": "pkg/app.py", "old_string": "", "new_string": "x"}, "old_string"),
    ("edit", {"path": "pkg/app.py", "old_string": "a", "new_string": "b",
              "expected_occurrences": 0}, "expected_occurrences"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), UNLISTED_BOUNDS,
                         ids=[f"{tool}-{field}" for tool, _, field in UNLISTED_BOUNDS])
async def test_a_bound_the_listing_leaves_out_is_still_enforced(make_server, tool: str,
                                                                arguments: dict[str, Any],
                                                                field: str) -> None:
    async with connect(make_server()) as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        response = body(await client.call_tool(tool, arguments))
    bound = listed[tool]["properties"][field]
    assert not {"minimum", "minLength"} & set(bound), bound
    assert response["ok"] is False
    assert response["error"]["code"] == "INVALID_ARGS"
    assert response["error"]["message"].startswith(field), response["error"]
    assert response["error"]["hint"]
