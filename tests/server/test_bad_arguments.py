"""Every listed tool, called with every kind of bad argument through the official Python
client: each answer is a refusal whose structured content is valid against the tool's output
schema (a client that checks it must show the refusal, not throw) and whose text names the
argument to fix."""

from __future__ import annotations

import jsonschema
from bad_arguments import bad_calls
from test_server_inprocess import connect

from sari_core.kernel import Kernel
from sari_core.server import SariServer
from sari_core.testing import MemoryEngine


def check_refusal(case, listed: dict, is_error: bool, structured: dict | None,
                  text: str) -> list[str]:
    """What is wrong with the answer to ``case`` (nothing: an empty list)."""
    problems = []
    if not is_error:
        problems.append("not marked as an error")
    if structured is not None:
        try:
            jsonschema.validate(structured, listed[case.tool]["outputSchema"])
        except jsonschema.ValidationError as exc:
            problems.append(f"structured content breaks the output schema: {exc.message}")
    if case.at_fault not in text:
        problems.append(f"the text does not name {case.at_fault!r}: {text[:160]!r}")
    return [f"{case.label} {case.arguments}: {problem}" for problem in problems]


async def test_every_bad_call_of_every_listed_tool_is_a_valid_refusal_naming_the_fix() -> None:
    kernel = Kernel(MemoryEngine({"a.py": "x = 1\n"}), analytics_sinks=[])  # every plugin
    try:
        async with connect(SariServer(kernel)) as client:
            tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                     for tool in (await client.list_tools()).tools]
            listed = {tool["name"]: tool for tool in tools}
            cases = bad_calls(tools)
            problems: list[str] = []
            for case in cases:
                result = await client.call_tool(case.tool, case.arguments)
                text = "\n".join(getattr(block, "text", "") for block in result.content)
                problems += check_refusal(case, listed, bool(result.is_error),
                                          result.structured_content, text)
    finally:
        kernel.close()
    assert {"search", "read", "edit", "write"} <= set(listed)
    # Every listed tool was driven, with every kind of bad argument (how many calls that is
    # depends on the plugins installed: the core alone lists four tools).
    assert {case.tool for case in cases} == set(listed)
    assert {"missing", "wrong type", "unknown", "out of range"} <= {case.kind for case in cases}
    assert problems == []


async def test_a_wrong_typed_query_is_not_echoed_into_the_structured_content() -> None:
    kernel = Kernel(MemoryEngine({"a.py": "x = 1\n"}), plugins=[], load_entry_points=False,
                    analytics_sinks=[])
    try:
        async with connect(SariServer(kernel)) as client:
            result = await client.call_tool("search", {"query": 5})
    finally:
        kernel.close()
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["query"] is None
    assert "query must be a string, not an integer (5)" in result.content[0].text
