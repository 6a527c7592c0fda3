"""The tools a Sari server offers, and which kernel entry point serves each one.

Core tools come from :mod:`sari_core.server.schemas`; plugin tools from
``kernel.tools`` (each :class:`~sari_core.kernel.tools.ToolSpec` carries a pydantic
input model, whose JSON schema, compacted, is the tool's).

Every tool is callable; only the ones meant for the model are listed (``tools/list``
is paid for on every turn): the deprecated read wrappers only with ``legacy_tools``,
and tools for the client program (``audience="client"``) never.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from sari_core.arguments import LEGACY_READ_TOOLS
from sari_core.kernel.identity import SessionIdentity
from sari_core.kernel.tools import ToolSpec
from sari_core.server.options import ServerOptions, load_options
from sari_core.server.output_schemas import output_schema
from sari_core.server.schemas import LEGACY_TOOL_NAMES, core_tools

if TYPE_CHECKING:  # (the pipeline loads on the kernel's thread, after initialize)
    from sari_core.kernel import Kernel

READ_ONLY_CORE_TOOLS = frozenset({"search", "read", *LEGACY_READ_TOOLS})

# What clients show as each core tool's name (a definition's own "title" wins).
CORE_TITLES: dict[str, str] = {
    "search": "Search code",
    "read": "Read code",
    "read_file": "Read a file (deprecated)",
    "read_symbol": "Read a symbol (deprecated)",
    "get_snippet": "Read a snippet (deprecated)",
    "dry_run_diff": "Preview a diff (deprecated)",
    "edit": "Edit a file",
    "write": "Write a file",
}

# destructiveHint and idempotentHint only mean something when readOnlyHint is false, so they
# are left out here.
READ_ONLY_ANNOTATIONS = {"read_only_hint": True, "open_world_hint": False}
# A plugin tool that is not declared read-only may change state (its own, at least), never
# the world outside the workspace.
STATEFUL_ANNOTATIONS = {"read_only_hint": False, "open_world_hint": False}

Invoke = Callable[[Mapping[str, Any], SessionIdentity], dict[str, Any]]
"""``invoke(arguments, identity) -> response``: one synchronous kernel call, in the session
``identity`` names (the transport's and the client's, never an argument's)."""


@dataclass(frozen=True)
class ToolEntry:
    """One tool: what clients see (``tool``) and how it is served (``invoke``).

    :ivar read_only: a core tool that never writes (search, read and its wrappers).
    :ivar listed: shown in ``tools/list`` (an unlisted tool is still callable).
    """

    tool: types.Tool
    invoke: Invoke
    read_only: bool = False
    listed: bool = True


class ToolCatalog:
    """Every tool of one kernel, by name, in a stable order (core tools first)."""

    def __init__(self, kernel: Kernel, options: ServerOptions | None = None) -> None:
        self.kernel = kernel
        self.options = options if options is not None else load_options(
            kernel.roots[0] if kernel.roots else None)
        self._entries: dict[str, ToolEntry] = {}
        legacy = self.options.legacy_tools
        for definition in core_tools():
            name = definition["name"]
            self._add(definition, self._core_invoke(name),
                      listed=legacy or name not in LEGACY_TOOL_NAMES,
                      schema=output_schema(name, legacy_read=name in LEGACY_TOOL_NAMES))
        for name in sorted(kernel.tools):
            if name in self._entries:
                raise ValueError(f"plugin tool {name!r} clashes with a core tool")
            spec = kernel.tools[name]
            listed = spec.audience == "model" and (legacy or not spec.deprecated)
            self._add(plugin_definition(spec), self._plugin_invoke(name), listed=listed,
                      schema=output_schema(name))

    @property
    def text_format(self) -> str:
        """``model`` or ``json``: what the text block of every result carries."""
        return self.options.text_format

    def _add(self, definition: dict[str, Any], invoke: Invoke, *, listed: bool,
             schema: dict[str, Any]) -> None:
        tool = types.Tool(
            name=definition["name"],
            title=definition.get("title") or CORE_TITLES.get(definition["name"]),
            description=definition["description"],
            input_schema=definition["input_schema"],
            output_schema=schema,
            annotations=types.ToolAnnotations(**definition["annotations"])
            if definition.get("annotations") else None,
        )
        core_read = definition["name"] in READ_ONLY_CORE_TOOLS
        self._entries[tool.name] = ToolEntry(tool, invoke, read_only=core_read, listed=listed)

    def _core_invoke(self, name: str) -> Invoke:
        kernel = self.kernel
        if name == "search":
            return lambda args, who: kernel.execute_search(args, identity=who)
        if name == "read" or name in LEGACY_READ_TOOLS:
            return lambda args, who: kernel.execute_read(args, identity=who, entrypoint=name)
        if name in ("edit", "write"):
            return lambda args, who: kernel.execute_mutation(name, args, identity=who)
        raise ValueError(f"no kernel entry point for core tool {name!r}")

    def _plugin_invoke(self, name: str) -> Invoke:
        kernel = self.kernel
        return lambda args, who: kernel.execute_tool(name, args, identity=who)

    def get(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def names(self) -> list[str]:
        return list(self._entries)

    def tools(self, output_schemas: bool = True) -> list[types.Tool]:
        """The tools listed to clients (``tools/list``); without output schemas for a client
        that gets no structured content."""
        listed = [entry.tool for entry in self._entries.values() if entry.listed]
        if output_schemas:
            return listed
        return [tool.model_copy(update={"output_schema": None}) for tool in listed]

    def input_schema(self, name: str) -> dict[str, Any] | None:
        entry = self._entries.get(name)
        return entry.tool.input_schema if entry else None


def plugin_definition(spec: ToolSpec) -> dict[str, Any]:
    """A plugin tool's definition: its input model's JSON schema, without ``session_id``."""
    schema = compact_schema(copy.deepcopy(spec.input_model.model_json_schema()))
    schema.pop("description", None)  # the model's docstring; the tool has its description
    schema.setdefault("type", "object")
    # Any tool takes session_id (the kernel reads it before validating, as a scope only);
    # a model never needs it, so it is not listed (it would cost tokens on every turn), and
    # neither is what the tool names unlisted.
    properties = schema.setdefault("properties", {})
    for name in {"session_id", *spec.unlisted}:
        properties.pop(name, None)
    if spec.unlisted:  # the listing no longer names every argument it accepts
        schema.pop("additionalProperties", None)
        schema["required"] = [n for n in schema.get("required", []) if n in properties]
    if not schema.get("required", True):  # an empty list says nothing, every turn
        schema.pop("required")
    description = spec.description
    if spec.deprecated and not description.startswith("DEPRECATED"):
        description = f"DEPRECATED: {description}"
    title = spec.title or spec.name.replace("_", " ").capitalize()
    annotations = READ_ONLY_ANNOTATIONS if spec.read_only else STATEFUL_ANNOTATIONS
    return {"name": spec.name, "title": title, "description": description,
            "input_schema": schema, "annotations": dict(annotations)}


_NAMED_SCHEMAS = frozenset({"properties", "$defs", "patternProperties"})
# Lower bounds no model crosses on purpose (an empty text, a negative or zero count): the
# input model still enforces them, with a structured refusal naming the field.
_TRIVIAL_BOUNDS = {"minLength": (1,), "minimum": (0, 1), "exclusiveMinimum": (0,)}


def compact_schema(node: Any) -> Any:
    """A pydantic JSON schema without what a model does not need to fill it.

    Drops ``title``s, ``default: null`` and trivial lower bounds (``minLength: 1``,
    ``minimum: 0`` or ``1``: the input model enforces them), turns an optional field's
    ``anyOf: [X, {"type": "null"}]`` into ``X`` (leaving the field out means None), and
    an ``anyOf`` of bare types into one ``type`` list.
    """
    if isinstance(node, list):
        return [compact_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NAMED_SCHEMAS and isinstance(value, dict):  # keys are names, not keywords
            out[key] = {name: compact_schema(schema) for name, schema in value.items()}
        elif key != "title" and not (key == "default" and value is None) \
                and value not in _TRIVIAL_BOUNDS.get(key, ()):
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if isinstance(options, list):
        kept = [option for option in options if option != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(options):
            out.pop("anyOf")
            out = {**kept[0], **out}
        elif kept and all(option.keys() == {"type"} for option in kept):
            # anyOf of bare types says no more than a list of types, in fewer tokens
            out.pop("anyOf")
            out = {"type": [option["type"] for option in kept], **out}
    return out
