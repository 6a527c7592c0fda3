"""The tool schemas a client sees agree with the validation the kernel applies."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from sari_core import arguments
from sari_core.kernel.tools import ToolSpec
from sari_core.models import SearchCall
from sari_core.server import schemas
from sari_core.server.catalog import plugin_definition

TOOLS = {tool["name"]: tool for tool in schemas.core_tools()}


def properties(name: str) -> set[str]:
    return set(TOOLS[name]["input_schema"]["properties"])


def test_read_schema_is_exactly_the_read_arguments() -> None:
    expected = set(arguments.COMMON_READ_ARGS) | set(arguments.MODE_ONLY_ARGS)
    assert properties("read") | (schemas.PROGRAM_ARGUMENTS & expected) == expected
    assert not properties("read") & schemas.PROGRAM_ARGUMENTS


def test_mode_only_arguments_name_their_mode() -> None:
    """Each mode-only argument's one-line description starts with the mode it belongs to."""
    properties = TOOLS["read"]["input_schema"]["properties"]
    for argument, mode in arguments.MODE_ONLY_ARGS.items():
        assert properties[argument]["description"].startswith(f"{mode}: "), argument


def test_search_schema_is_exactly_the_search_call() -> None:
    # literal is no argument: a search is literal when the client names its kind
    assert properties("search") == set(SearchCall.model_fields) - {"session_id", "literal"}


def test_a_search_limit_above_the_maximum_is_served_not_refused(tmp_path) -> None:
    """The listing names no maximum (it would cost tokens every turn): a larger limit gets
    the largest page and says more exist, where a refusal would cost the model a turn."""
    from sari_core import Kernel
    from sari_core.engine import Workspace

    for n in range(arguments.SEARCH_LIMIT_MAX + 10):  # one hit per file: no per-file cap
        (tmp_path / f"m{n}.py").write_text(f"needle_{n} = {n}\n", encoding="utf-8")
    with Kernel(Workspace([tmp_path]), plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        served = kernel.execute_search({"query": "needle_", "limit": 500})
        assert served["ok"], served
        assert len(served["matches"]) == arguments.SEARCH_LIMIT_MAX
        assert served["total"] > arguments.SEARCH_LIMIT_MAX
        refused = kernel.execute_search({"query": "needle_", "limit": 0})
        assert refused["error"]["code"] == "INVALID_ARGS" and refused["error"]["hint"]


@pytest.mark.parametrize("tool", sorted(arguments.LEGACY_READ_TOOLS))
def test_every_wrapper_argument_translates_to_a_valid_read_argument(tool: str) -> None:
    mode = arguments.LEGACY_READ_TOOLS[tool][0]
    sample = {name: "x" for name in properties(tool)}
    translated = arguments.legacy_read_args(tool, sample)
    for key in translated:
        owner = arguments.MODE_ONLY_ARGS.get(key)
        assert key in arguments.COMMON_READ_ARGS or key == "mode" or owner == mode, (tool, key)


@pytest.mark.parametrize("tool", ["edit", "write"])
def test_mutation_schemas_are_accepted_by_the_kernel(tool: str) -> None:
    sample = {"path": "a.py", "old_string": "a", "new_string": "b", "expected_occurrences": 1,
              "content": "c", "session_id": "s"}
    given = {key: sample[key] for key in properties(tool)}
    call = arguments.parse_mutation(tool, given)
    assert call.tool == tool
    required = set(TOOLS[tool]["input_schema"]["required"])
    for key in required:
        with pytest.raises(Exception, match=f"{key} is required"):
            arguments.parse_mutation(tool, {k: v for k, v in given.items() if k != key})


def test_program_arguments_are_accepted_but_not_listed(tmp_path) -> None:
    """What only programs pass is not listed (the listing then claims no closed set), yet
    every core tool accepts it, and an unknown argument is refused with the valid ones."""
    from sari_core import Kernel
    from sari_core.engine import Workspace

    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    for tool in TOOLS.values():
        assert not set(tool["input_schema"]["properties"]) & schemas.PROGRAM_ARGUMENTS
        assert "additionalProperties" not in tool["input_schema"]
    with Kernel(Workspace([tmp_path]), plugins=[], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        served = kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "s",
                                      "preview_mode": "snippet", "max_preview_chars": 50})
        assert served["ok"], served
        refused = kernel.execute_read({"mode": "file", "target": "a.py", "bogus": 1})
        assert refused["error"]["code"] == "INVALID_ARGS"
        assert "session_id" in refused["error"]["hint"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str


class Loose(BaseModel):
    query: str


def _handler(args: BaseModel, session: object) -> dict[str, object]:
    return {"ok": True}


def test_plugin_tools_do_not_list_session_id() -> None:
    loose = plugin_definition(ToolSpec("loose", "A loose tool.", Loose, _handler))
    strict = plugin_definition(ToolSpec("strict", "A strict tool.", Strict, _handler,
                                        deprecated=True))
    assert "session_id" not in loose["input_schema"]["properties"]
    assert "session_id" not in strict["input_schema"]["properties"]
    assert strict["description"].startswith("DEPRECATED: ")
    assert loose["input_schema"]["required"] == ["query"]
