"""``context_query``: past frames and executions by text, role, tool, id, time; paged."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp import Client

from sari_core.kernel import Kernel
from sari_core.rendering import render
from sari_core.server import SariServer
from sari_persistence import ExecutionLog

ROOT = "/tmp/sari-persistence-ws"


def seed(kernel: Kernel) -> dict[str, Any]:
    """A chat session 'agent' with a few frames linked to real executions."""
    found = kernel.execute_search({"query": "parse", "session_id": "agent"})
    edit = kernel.execute_mutation("edit", {"path": "src/parser.py", "old_string": "split()",
                                            "new_string": "split(',')", "session_id": "agent"})
    chat = ExecutionLog.of(kernel).chat_session("agent", project_root=ROOT)
    chat.user("Make parse() split on commas in src/parser.py")
    chat.assistant("I will edit the parser.")
    chat.tool("search", json.dumps(found), execution_id=found["meta"]["execution_id"])
    chat.tool("edit", json.dumps(edit), execution_id=edit["meta"]["execution_id"])
    chat.assistant("Done: the quokka separator is a comma now.")
    return {"search": found, "edit": edit}


def query(kernel: Kernel, **arguments: Any) -> dict[str, Any]:
    return kernel.execute_tool("context_query", {"session_id": "agent", **arguments})


def test_finds_a_frame_by_text(make_kernel) -> None:
    kernel = make_kernel()
    seed(kernel)
    response = query(kernel, text="QUOKKA separator")
    assert response["ok"] is True and response["tool"] == "context_query"
    assert [f["content"] for f in response["frames"]] == [
        "Done: the quokka separator is a comma now."]
    assert response["scope"] == {"name": "session", "chat_session_ids": ["agent"]}
    assert response["meta"]["stabilization"]["reason_codes"] == []
    assert response["meta"]["stabilization"]["next_calls"] == []
    short = query(kernel, text="I ", role="assistant")  # below trigram length: LIKE
    assert [f["content"] for f in short["frames"]] == ["I will edit the parser."]


def test_finds_frames_and_the_execution_by_execution_id(make_kernel) -> None:
    kernel = make_kernel()
    calls = seed(kernel)
    edit_id = calls["edit"]["meta"]["execution_id"]
    response = query(kernel, execution_id=edit_id)
    assert [(f["tool_name"], f["execution_id"]) for f in response["frames"]] == [("edit", edit_id)]
    (execution,) = response["executions"]
    assert execution["id"] == edit_id and execution["tool"] == "edit" and execution["ok"] is True
    assert execution["arguments"]["new_string"] == "split(',')"
    assert response["target"] == edit_id


def test_filters_by_role_tool_and_time(make_kernel) -> None:
    kernel = make_kernel()
    seed(kernel)
    users = query(kernel, role="user")
    assert [f["role"] for f in users["frames"]] == ["user"] and users["executions"] == []
    searches = query(kernel, tool="search", kind="executions")
    assert [e["tool"] for e in searches["executions"]] == ["search"]
    assert "frames" in searches and searches["frames"] == []
    everything = query(kernel, limit=50)
    stamps = sorted(f["timestamp"] for f in everything["frames"])
    later = query(kernel, since=stamps[-1] / 1000, kind="frames")
    assert all(f["timestamp"] >= stamps[-1] for f in later["frames"]) and later["frames"]
    nothing = query(kernel, until="2001-01-01T00:00:00Z")
    assert nothing["frames"] == [] and nothing["executions"] == []


def test_pages_are_bounded_and_next_calls_fetch_the_rest(make_kernel) -> None:
    kernel = make_kernel(context_query_item_chars=100)
    chat = ExecutionLog.of(kernel).chat_session("agent", project_root=ROOT)
    for number in range(7):
        chat.user(f"note {number}: " + "long text " * 30)
    first = query(kernel, text="note", kind="frames", limit=3)
    assert [f["content"][:6] for f in first["frames"]] == ["note 6", "note 5", "note 4"]
    assert first["total_frames"] == 7 and first["has_more"] is True
    assert first["meta"]["truncated"] is True
    assert all(f["content_truncated"] and len(f["content"]) < 130 for f in first["frames"])
    (next_call,) = first["meta"]["stabilization"]["next_calls"]
    assert next_call["tool"] == "context_query"
    seen = [f["content"][:6] for f in first["frames"]]
    call = next_call
    while call is not None:
        page = kernel.execute_tool(call["tool"], call["arguments"])
        seen += [f["content"][:6] for f in page["frames"]]
        calls = page["meta"]["stabilization"]["next_calls"]
        call = calls[0] if calls else None
    assert seen == [f"note {n}" for n in range(6, -1, -1)]
    clamped = query(kernel, kind="frames", limit=200)
    assert clamped["limit"] == 50


def test_workspace_scope_sees_this_projects_sessions_only(make_kernel) -> None:
    kernel = make_kernel(context_query_other_sessions=True)
    log = ExecutionLog.of(kernel)
    log.chat_session("claude-abc", project_root=ROOT).user("the pelican refactor")
    log.chat_session("elsewhere", project_root="/some/other/project").user("pelican elsewhere")
    response = kernel.execute_tool("context_query", {"text": "pelican"})  # no session_id
    assert response["scope"] == {"name": "workspace", "project_root": ROOT}
    assert [f["session_id"] for f in response["frames"]] == ["claude-abc"]
    assert response["total_executions"] == 0


def test_bad_arguments_are_refused_with_guidance(make_kernel) -> None:
    kernel = make_kernel()
    bad_time = query(kernel, since="last tuesday")
    assert bad_time["ok"] is False and bad_time["error"]["code"] == "INVALID_ARGS"
    assert "ISO 8601" in bad_time["error"]["hint"]
    unknown = query(kernel, color="blue")
    assert unknown["ok"] is False and unknown["error"]["code"] == "INVALID_ARGS"


def test_a_bound_the_listing_leaves_out_is_refused_naming_the_field(make_kernel) -> None:
    """The listed schema omits minLength/minimum (paid for on every turn); the refusal then
    names the field and the bound in one plain sentence, not a validation dump."""
    kernel = make_kernel()
    schema = kernel.tools["context_query"].input_model.model_json_schema()["properties"]
    for field, value in (("text", ""), ("limit", 0)):
        refused = query(kernel, **{field: value})
        assert refused["error"]["code"] == "INVALID_ARGS"
        message = refused["error"]["message"]
        assert message.startswith(f"{field} must ") and "pydantic" not in message, message
        assert "\n" not in message and refused["error"]["hint"]
        assert schema[field]  # still an argument, only its bound unlisted


def test_since_and_until_are_listed_as_one_string_type(make_kernel) -> None:
    """Listed as strings (ISO 8601, or Unix seconds in a string); a number still works."""
    from sari_core.server.catalog import plugin_definition

    kernel = make_kernel()
    seed(kernel)
    listed = plugin_definition(kernel.tools["context_query"])["input_schema"]["properties"]
    assert [(listed[key]["type"], set(listed[key])) for key in ("since", "until")] == \
        [("string", {"type", "description"})] * 2
    stamps = sorted(f["timestamp"] for f in query(kernel, limit=50)["frames"])
    as_text = query(kernel, since=str(stamps[-1] / 1000), kind="frames")
    as_number = query(kernel, since=stamps[-1] / 1000, kind="frames")
    assert as_text["frames"] == as_number["frames"] != []


def test_the_response_names_its_own_execution(make_kernel) -> None:
    kernel = make_kernel()
    response = query(kernel, text="anything")
    log = ExecutionLog.of(kernel)
    ids = [e.id for e in log.executions("agent")]
    assert response["meta"]["execution_id"] in ids


def body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    assert result.content[0].text == render(result.structured_content)  # the model's text
    return result.structured_content


# The client program names the session (in _meta): a session_id argument is only a scope.
MCP_SESSION = {"sari/session_id": "mcp"}


async def test_context_query_over_a_real_mcp_connection(make_kernel) -> None:
    kernel = make_kernel()
    server = SariServer(kernel)
    async with Client(server.lowlevel, mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "context_query" in tools
        schema = tools["context_query"].input_schema["properties"]
        assert set(schema) == {"text", "role", "tool", "since", "until", "scope",
                               "limit"}  # programs' fields (session_id, execution_id...) unlisted
        assert "default" not in schema["limit"]
        assert set(schema["scope"]["enum"]) == {"auto", "session", "workspace", "team"}
        edit = body(await client.call_tool("edit", {
            "path": "src/parser.py", "old_string": "split()", "new_string": "split(';')"},
            meta=MCP_SESSION))
        edit_id = edit["meta"]["execution_id"]
        chat = ExecutionLog.of(kernel).chat_session("mcp", project_root=ROOT)
        chat.user("use semicolons as the wombat delimiter")
        chat.tool("edit", json.dumps(edit), execution_id=edit_id)

        by_text = body(await client.call_tool("context_query", {
            "text": "wombat delimiter"}, meta=MCP_SESSION))
        assert [f["content"] for f in by_text["frames"]] == [
            "use semicolons as the wombat delimiter"]
        text = render(by_text)
        assert "user: use semicolons as the wombat delimiter" in text
        assert not text.lstrip().startswith("{") and '"frames"' not in text
        by_id = body(await client.call_tool("context_query", {  # unlisted, still accepted
            "execution_id": edit_id}, meta=MCP_SESSION))
        assert [f["execution_id"] for f in by_id["frames"]] == [edit_id]
        assert [e["id"] for e in by_id["executions"]] == [edit_id]
        assert by_id["meta"]["stabilization"]["reason_codes"] == []
        paged = body(await client.call_tool("context_query", {  # unlisted, still accepted
            "text": "wombat delimiter", "offset": 1, "kind": "frames",
            "scope": "session", "include_compacted": False, "chat_session_id": "mcp"},
            meta=MCP_SESSION))
        assert paged["ok"] and paged["frames"] == []
        refused = await client.call_tool("context_query", {"since": "soon"})
        assert refused.is_error is True
        assert body(refused)["error"]["code"] == "INVALID_ARGS"


def test_tool_is_absent_without_the_plugin() -> None:
    from sari_core.testing import MemoryEngine

    kernel = Kernel(MemoryEngine({}), load_entry_points=False, analytics_sinks=[])
    try:
        assert "context_query" not in kernel.tools
    finally:
        kernel.close()


def test_the_model_reads_one_line_per_item_not_the_json(make_kernel) -> None:
    kernel = make_kernel()
    seed(kernel)
    kernel.execute_read({"mode": "file", "target": "src/lexer.py", "session_id": "agent"})
    response = query(kernel, tool="read")
    text = render(response)
    (execution,) = response["executions"]
    assert text.splitlines()[0] == ("Past context (session scope): frames 0 of 0, "
                                    "executions 1-1 of 1, newest first.")
    assert f"[{execution['time']} {execution['machine']}] read src/lexer.py: ok" in text
    assert "TOKENS = ['a', 'b']" in text  # what the read returned, as its lines
    assert '"meta"' not in text and '"session_key"' not in text
    assert len(text) < len(json.dumps(response)) / 3
    kernel.execute_read({"mode": "file", "target": "gone.py", "session_id": "agent"})
    missing = render(query(kernel, tool="read", text="gone"))
    assert "read gone.py: failed NOT_FOUND (no such file or symbol): gone.py does not exist." \
        in missing


def test_earlier_answers_of_the_tool_are_left_out_and_do_not_snowball(make_kernel) -> None:
    kernel = make_kernel()
    for name in ("src/parser.py", "src/lexer.py", "README.md"):
        kernel.execute_read({"mode": "file", "target": name, "session_id": "agent"})
    sizes = []
    for _ in range(4):
        response = query(kernel, text="src")
        assert {e["tool"] for e in response["executions"]} == {"read"}
        assert response["total_executions"] == 2
        sizes.append(len(render(response)))
    assert len(set(sizes)) == 1, sizes  # the same answer, however often it was asked
    everything = query(kernel, limit=50)
    assert [e["tool"] for e in everything["executions"]] == ["read"] * 3
    asked_by_name = query(kernel, tool="context_query")  # still there when asked for
    assert asked_by_name["total_executions"] == 5


def test_a_session_resumed_in_another_checkout_finds_what_it_read_with_team_reach(
        db_path, log_backend) -> None:
    """The operator's reach widened to team: a default query still starts from the calling
    session's own records, wherever (in whichever checkout) they were written."""
    from sari_core.testing import MemoryEngine
    from sari_persistence.plugin import PersistencePlugin

    def kernel_in(root: str) -> Kernel:
        return Kernel(MemoryEngine({"src/parser.py": "def parse(text):\n    return text\n"},
                                   root=root),
                      plugins=[PersistencePlugin()], load_entry_points=False, analytics_sinks=[],
                      settings={"persistence": {"db_path": str(db_path),
                                                "install_sigterm_handler": False,
                                                "context_query_scope": "team", **log_backend}})

    first = kernel_in("/srv/checkout-a")
    try:
        first.execute_read({"mode": "file", "target": "src/parser.py", "session_id": "resumed"})
    finally:
        first.close()
    second = kernel_in("/srv/checkout-b")
    try:
        response = second.execute_tool("context_query", {"session_id": "resumed"})
        fresh = second.execute_tool("context_query", {"session_id": "new-session"})
    finally:
        second.close()
    assert [(e["tool"], e["target"]) for e in response["executions"]] == [
        ("read", "src/parser.py")]
    assert response["scope"]["name"] == "session"
    assert fresh["scope"]["name"] == "workspace" and fresh["executions"] == []
