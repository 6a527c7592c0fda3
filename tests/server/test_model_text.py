"""What the model is shown: numbered lines, matches by file, one-sentence refusals; the
whole response object in structured content, described by each tool's output schema;
and a tool list small enough to pay for on every turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from server_fixture_files import FILES

from sari_core import Kernel
from sari_core.costmodel import tokens
from sari_core.kernel.identity import model_identity
from sari_core.server import SariServer
from sari_core.server.catalog import ToolCatalog
from sari_core.server.options import OptionsError, ServerOptions, load_options

# chars/4 of the tools/list entries as a client that forwards text (Claude Code) is listed
# them, paid on every turn of every conversation; a client given structured content also
# gets each tool's output schema.
# Each input property's one-line description costs about seven tokens of these.
# context_query lists scope (20 tokens): a model must be able to reach the team's records.
TOOL_DEFINITION_BUDGET = 815  # every installed plugin
CORE_DEFINITION_BUDGET = 620  # search, read, edit, write
WITH_OUTPUT_SCHEMAS_BUDGET = 1200  # every installed plugin, output schemas included
CORE_TOOLS = ("search", "read", "edit", "write")


def listed_tokens(catalog: ToolCatalog, names: tuple[str, ...] | None = None,
                  output_schemas: bool = False) -> int:
    entries = [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
               for tool in catalog.tools(output_schemas)
               if names is None or tool.name in names]
    return sum(tokens(json.dumps(entry, separators=(",", ":"))) for entry in entries)


def test_core_tool_definitions_fit_their_budget(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], plugins=[], load_entry_points=False, analytics_sinks=[])
    try:
        catalog = ToolCatalog(kernel, ServerOptions())
        assert [tool.name for tool in catalog.tools()] == list(CORE_TOOLS)
        assert listed_tokens(catalog) <= CORE_DEFINITION_BUDGET
    finally:
        kernel.close()


def _examples(description: str) -> list[dict[str, Any]]:
    """The JSON calls a description shows after "E.g." (compact, one or more)."""
    if "E.g. " not in description:
        return []
    decoder, text = json.JSONDecoder(), description.split("E.g. ", 1)[1]
    found, at = [], 0
    while (start := text.find("{", at)) >= 0:
        example, at = decoder.raw_decode(text, start)
        found.append(example)
    return found


def test_every_example_in_a_listed_description_is_a_valid_call(tmp_path: Path) -> None:
    """Descriptions teach by example, so each example must be a call the server accepts."""
    (tmp_path / "a.py").write_text("def dumps():\n    return 1\n" + "x = 1\n" * 100,
                                   encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], analytics_sinks=[])  # every installed plugin
    try:
        catalog = ToolCatalog(kernel, ServerOptions())
        examples = [(tool.name, example) for tool in catalog.tools()
                    for example in _examples(tool.description or "")]
        assert "search" in {name for name, _ in examples}
        for name, example in examples:
            response = catalog.get(name).invoke(  # type: ignore[union-attr]
                example, model_identity(example, "examples"))
            assert response["ok"], (name, example, response.get("error"))
    finally:
        kernel.close()


def test_tool_definitions_with_every_plugin_installed_fit_the_budget(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], analytics_sinks=[])  # every installed plugin
    try:
        catalog = ToolCatalog(kernel, ServerOptions())
        names = [tool.name for tool in catalog.tools()]
        assert names[:4] == ["search", "read", "edit", "write"]
        for hidden in ("read_file", "read_symbol", "get_snippet", "dry_run_diff"):
            assert hidden not in names and catalog.get(hidden) is not None  # callable
        for name, spec in kernel.tools.items():  # client-program tools are never listed
            assert (name in names) == (spec.audience == "model" and not spec.deprecated)
        assert not catalog.options.structured_for("claude-code")
        assert listed_tokens(catalog) <= TOOL_DEFINITION_BUDGET
        assert listed_tokens(catalog, CORE_TOOLS) <= CORE_DEFINITION_BUDGET
        assert listed_tokens(catalog, output_schemas=True) <= WITH_OUTPUT_SCHEMAS_BUDGET
        legacy = ToolCatalog(kernel, ServerOptions(legacy_tools=True))
        assert {"read_file", "dry_run_diff"} <= {tool.name for tool in legacy.tools()}
    finally:
        kernel.close()


def test_options_come_from_tool_sari_and_the_environment(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.sari]\ntext_format = "json"\nlegacy_tools = true\n', encoding="utf-8")
    assert load_options(tmp_path, environ={}) == ServerOptions("json", True)
    assert load_options(tmp_path, environ={"SARI_TEXT_FORMAT": "model"}).text_format == "model"
    with pytest.raises(OptionsError, match="text_format .* must be one of model, json"):
        load_options(None, environ={"SARI_TEXT_FORMAT": "xml"})


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return str(result.content[0].text)


async def test_a_read_is_a_header_and_numbered_lines(make_server) -> None:
    server = make_server()
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("read", {"mode": "file", "target": "pkg/app.py"})
    text = text_of(result)
    header, *lines = text.split("\n")
    source = FILES["pkg/app.py"].splitlines()
    assert header == f"pkg/app.py lines 1-{len(source)} of {len(source)}"
    assert lines == [f"{number}\t{line}" for number, line in enumerate(source, 1)]
    assert "{" not in header and "execution_id" not in text
    structured = result.structured_content
    assert structured["text"] == FILES["pkg/app.py"] and structured["meta"]["execution_id"]


async def test_a_search_groups_matches_by_file(make_server) -> None:
    server = make_server()
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("search", {"query": "return"})
    text = text_of(result)
    matches = result.structured_content["matches"]
    assert len({match["path"] for match in matches}) == 2
    assert text.split("\n")[0] == f'{len(matches)} matches for "return"'
    for match in matches:
        block = text.split(f"\n{match['path']}\n", 1)[1]
        assert f"  {match['line']}: {match['snippet'].strip()}" in block.split("\n")
    assert "candidate_id" not in text and "score" not in text


def test_a_symbol_search_states_each_definition_s_range(tmp_path: Path) -> None:
    """A definition's first and last line on its match line: the read that follows can take
    it whole, without a first look to find where it ends."""
    from sari_core.rendering import render

    (tmp_path / "app.py").write_text("".join(f"def handle_{n}(event):\n    return {n}\n\n\n"
                                             for n in range(4)), encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], plugins=[], load_entry_points=False, analytics_sinks=[])
    try:
        text = render(kernel.execute_search({"query": "handle", "kind": "symbol"}))
    finally:
        kernel.close()
    # the first hits show their definitions; the others state where theirs are
    assert "\n  9-10: def handle_2(event):" in text and "\n  13-14: def handle_3(event):" in text, \
        text


def test_a_definition_shown_with_its_match_is_written_once(tmp_path: Path) -> None:
    """The match line of a definition the search shows is that definition's first line,
    range stated: no line number standing alone above the same line as a row, and no
    separate line repeating the range of a long one."""
    from sari_core.rendering import render

    long_body = "".join(f"    step_{n} = spec.apply({n}, 'a value to spend')\n" for n in range(100))
    (tmp_path / "app.py").write_text(
        "def short(event):\n    return event\n\n\n"
        f"def build(spec):\n{long_body}    return spec\n", encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], plugins=[], load_entry_points=False, analytics_sinks=[])
    try:
        short = render(kernel.execute_search({"query": "def short"}))
        long = render(kernel.execute_search({"query": "def build"}))
    finally:
        kernel.close()
    assert short.split("\n")[1:] == ["app.py", "  1-2: def short(event):",
                                      "    2 |     return event"], short
    assert long.split("\n")[1:] == ["app.py", "  5-106: def build(spec):"], long


def test_a_definition_is_shown_and_read_with_its_decorators(tmp_path: Path) -> None:
    """A decorator is part of what a definition is (a classmethod, a property): a search
    that shows the definition and a symbol read of it start there."""
    from sari_core.rendering import render

    (tmp_path / "app.py").write_text(
        "class Signature:\n    @classmethod\n    @cache\n    def from_callable(cls, obj):\n"
        "        return cls(obj)\n", encoding="utf-8")
    kernel = Kernel(roots=[tmp_path], plugins=[], load_entry_points=False, analytics_sinks=[])
    try:
        found = render(kernel.execute_search({"query": "def from_callable"}))
        read = kernel.execute_read({"mode": "symbol", "target": "Signature.from_callable"})
    finally:
        kernel.close()
    assert found.split("\n")[1:] == [
        "app.py", "  2-5 in Signature: @classmethod", "    3 |     @cache",
        "    4 |     def from_callable(cls, obj):", "    5 |         return cls(obj)"], found
    assert (read["meta"]["start_line"], read["meta"]["end_line"]) == (2, 5), read
    assert read["text"].startswith("    @classmethod\n    @cache\n    def from_callable")


async def test_a_refusal_is_plain_sentences_ending_in_the_next_call(make_server) -> None:
    server = make_server()
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("read_everything", {})
    text = text_of(result)
    assert result.is_error
    assert text.startswith("unknown tool 'read_everything'.")
    assert text.endswith('Next: search(query="<what you are looking for>")')
    assert text.count("\n") == 0


async def test_json_text_format_keeps_the_response_object_as_text(make_server, monkeypatch
                                                                  ) -> None:
    monkeypatch.setenv("SARI_TEXT_FORMAT", "json")
    server: SariServer = make_server()
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool("read", {"mode": "file", "target": "pkg/app.py"})
    assert json.loads(text_of(result)) == result.structured_content


@pytest.mark.parametrize("name, arguments", [
    ("search", {"query": "import"}),
    ("search", {"query": "nothing-matches-this"}),
    ("read", {"mode": "file", "target": "pkg/app.py"}),
    ("read", {"mode": "file", "target": "missing.py"}),
    ("read", {"mode": "snippet", "target": "pkg/app.py", "start_line": 1, "end_line": 2}),
    ("read_file", {"path": "pkg/app.py"}),
    ("write", {"path": "new.py", "content": "y = 2\n"}),
    ("edit", {"path": "pkg/app.py", "old_string": "no such text", "new_string": "x"}),
])
async def test_output_schemas_describe_the_real_fields(make_server, name: str,
                                                       arguments: dict[str, Any]) -> None:
    server = make_server()
    entry = server.catalog.get(name)
    assert entry is not None and entry.tool.output_schema is not None
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool(name, arguments)
    structured = result.structured_content
    jsonschema.validate(structured, entry.tool.output_schema)
    payload = set(entry.tool.output_schema["properties"]) - {"ok", "error", "meta"}
    if structured["ok"]:
        assert payload & set(structured), (name, sorted(structured))


async def test_clients_that_show_structured_content_instead_get_text_only(make_server
                                                                         ) -> None:
    """Claude Code and Codex show the model the structured content when a result has any,
    and drop the text: they get the text alone, and no output schemas to demand more."""
    import mcp_types as types

    server = make_server()
    claude = types.Implementation(name="claude-code", version="2.1.0")
    async with Client(server.lowlevel, mode="legacy", client_info=claude) as client:
        listed = (await client.list_tools()).tools
        result = await client.call_tool("read", {"mode": "file", "target": "pkg/app.py"})
    assert all(tool.output_schema is None for tool in listed)
    assert result.structured_content is None
    assert text_of(result).split("\n")[1] == "1\timport os"
    other = types.Implementation(name="my-agent", version="1")
    async with Client(server.lowlevel, mode="legacy", client_info=other) as client:
        result = await client.call_tool("read", {"mode": "file", "target": "pkg/app.py"})
    assert result.structured_content is not None


def test_structured_content_can_be_forced_either_way() -> None:
    assert ServerOptions(structured_content="always").structured_for("claude-code")
    assert not ServerOptions(structured_content="never").structured_for("my-agent")
    assert not ServerOptions().structured_for("codex-mcp-client")
    assert ServerOptions().structured_for(None)
