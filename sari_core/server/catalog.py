"""The tools a Sari server offers, and which kernel entry point serves each one.

Core tools come from :mod:`sari_core.server.schemas`; plugin tools from
``kernel.tools`` (each :class:`~sari_core.tools.ToolSpec` carries a pydantic
input model, whose JSON schema is the tool's).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from sari_core.arguments import LEGACY_READ_TOOLS
from sari_core.kernel import Kernel
from sari_core.server.schemas import OUTPUT_SCHEMA, SESSION_ID_PROPERTY, core_tools
from sari_core.tools import ToolSpec

READ_ONLY_CORE_TOOLS = frozenset({"search", "read", *LEGACY_READ_TOOLS})

# What clients show as each core tool's name (a definition's own "title" wins).
CORE_TITLES: dict[str, str] = {
    "search": "Search the workspace",
    "read": "Read a file, symbol, snippet or diff",
    "read_file": "Read a file (deprecated)",
    "read_symbol": "Read a symbol (deprecated)",
    "get_snippet": "Read a snippet (deprecated)",
    "dry_run_diff": "Preview a diff (deprecated)",
    "edit": "Edit a file",
    "write": "Write a file",
}

READ_ONLY_ANNOTATIONS = {"read_only_hint": True, "destructive_hint": False,
                         "idempotent_hint": True, "open_world_hint": False}
# A plugin tool that is not declared read-only may change state (its own, at least), never
# the world outside the workspace.
STATEFUL_ANNOTATIONS = {"read_only_hint": False, "open_world_hint": False}

Invoke = Callable[[Mapping[str, Any], str], dict[str, Any]]
"""``invoke(arguments, connection_id) -> response``: one synchronous kernel call."""


@dataclass(frozen=True)
class ToolEntry:
    """One tool: what clients see (``tool``) and how it is served (``invoke``).

    :ivar read_only: a core tool that never writes (search, read and its wrappers).
    """

    tool: types.Tool
    invoke: Invoke
    read_only: bool = False


class ToolCatalog:
    """Every tool of one kernel, by name, in a stable order (core tools first)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self._entries: dict[str, ToolEntry] = {}
        for definition in core_tools():
            self._add(definition, self._core_invoke(definition["name"]))
        for name in sorted(kernel.tools):
            if name in self._entries:
                raise ValueError(f"plugin tool {name!r} clashes with a core tool")
            spec = kernel.tools[name]
            self._add(plugin_definition(spec), self._plugin_invoke(name))

    def _add(self, definition: dict[str, Any], invoke: Invoke) -> None:
        tool = types.Tool(
            name=definition["name"],
            title=definition.get("title") or CORE_TITLES.get(definition["name"]),
            description=definition["description"],
            input_schema=definition["input_schema"],
            output_schema=OUTPUT_SCHEMA,
            annotations=types.ToolAnnotations(**definition["annotations"])
            if definition.get("annotations") else None,
        )
        core_read = definition["name"] in READ_ONLY_CORE_TOOLS
        self._entries[tool.name] = ToolEntry(tool, invoke, read_only=core_read)

    def _core_invoke(self, name: str) -> Invoke:
        kernel = self.kernel
        if name == "search":
            return lambda args, conn: kernel.execute_search(args, connection_id=conn)
        if name == "read" or name in LEGACY_READ_TOOLS:
            return lambda args, conn: kernel.execute_read(args, connection_id=conn,
                                                          entrypoint=name)
        if name in ("edit", "write"):
            return lambda args, conn: kernel.execute_mutation(name, args, connection_id=conn)
        raise ValueError(f"no kernel entry point for core tool {name!r}")

    def _plugin_invoke(self, name: str) -> Invoke:
        kernel = self.kernel
        return lambda args, conn: kernel.execute_tool(name, args, connection_id=conn)

    def get(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def names(self) -> list[str]:
        return list(self._entries)

    def tools(self) -> list[types.Tool]:
        return [entry.tool for entry in self._entries.values()]

    def input_schema(self, name: str) -> dict[str, Any] | None:
        entry = self._entries.get(name)
        return entry.tool.input_schema if entry else None


def plugin_definition(spec: ToolSpec) -> dict[str, Any]:
    """A plugin tool's definition: its input model's JSON schema plus ``session_id``."""
    schema = copy.deepcopy(spec.input_model.model_json_schema())
    schema.pop("title", None)
    schema.setdefault("type", "object")
    properties = schema.setdefault("properties", {})
    # Any tool takes session_id (the kernel reads it before validating); only advertise it
    # where the model would not refuse it as an extra field.
    extra = spec.input_model.model_config.get("extra")
    if "session_id" not in properties and extra != "forbid":
        properties["session_id"] = dict(SESSION_ID_PROPERTY)
    description = spec.description
    if spec.deprecated and not description.startswith("DEPRECATED"):
        description = f"DEPRECATED: {description}"
    title = spec.title or spec.name.replace("_", " ").capitalize()
    annotations = READ_ONLY_ANNOTATIONS if spec.read_only else STATEFUL_ANNOTATIONS
    return {"name": spec.name, "title": title, "description": description,
            "input_schema": schema, "annotations": dict(annotations)}
