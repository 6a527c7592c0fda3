"""``sari hook CLIENT EVENT``: run a coding client's hook through Sari's plugins.

Reads the hook's JSON from stdin, asks every plugin (``on_client_hook``) and
prints what the client's hook protocol expects. Claude Code: exit 0 with JSON
on stdout; ``{"decision": "block", "reason": ...}`` to block after a tool;
``hookSpecificOutput.additionalContext`` to inject context.

A client runs this in a process of its own on each of its tool calls, so only the
plugins that answer the event are imported: those that declare it in their metadata
(see :func:`sari_core.kernel.loading.declared_client_hooks`) and those that declare
nothing, and the operator's local policies (their modules declare their events
themselves). When none answers, neither the kernel nor any plugin is imported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sari_core.kernel.loading import plugin_and_hook_entry_points, plugins_answering
from sari_core.kernel.policy_folder import plugins_dir, policy_modules

if TYPE_CHECKING:
    from sari_core.kernel.commands import CommandRegistry
    from sari_core.models import ClientHookResult

CLIENTS = ("claude-code",)
# Claude Code's hook event names, as its settings.json spells them.
CLAUDE_EVENTS = {
    "post-tool-use": "PostToolUse",
    "pre-tool-use": "PreToolUse",
    "pre-compact": "PreCompact",
    "session-start": "SessionStart",
    "stop": "Stop",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("client", choices=CLIENTS, help="the client whose hook this is")
    parser.add_argument("event", choices=sorted(CLAUDE_EVENTS), help="the hook event")


def claude_output(event_name: str, result: ClientHookResult) -> dict[str, Any]:
    output: dict[str, Any] = {}
    if result.block:
        output["decision"] = "block"
        output["reason"] = result.reason
    if result.additional_context:
        output["hookSpecificOutput"] = {"hookEventName": event_name,
                                        "additionalContext": result.additional_context}
    return output


def run(args: argparse.Namespace) -> int:
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        print(f"sari hook: stdin is not JSON: {exc}", file=sys.stderr)
        return 1
    workspace = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    plugins, declarations = plugin_and_hook_entry_points()
    answering = plugins_answering(args.client, args.event, plugins, declarations)
    # The operator's local policies declare their events in the modules themselves.
    policy_folder = plugins_dir(workspace=Path(workspace))
    local = policy_folder is not None and bool(policy_modules(policy_folder))
    if not answering and not local:
        return 0  # what the fold of no answers prints: nothing
    # (imported here: the kernel and the models cost more than the rest of this process)
    from sari_core.kernel.manager import SariPluginManager
    from sari_core.models import ClientHookEvent

    event = ClientHookEvent(client=args.client, event=args.event, payload=payload,
                            workspace=workspace)
    pm = SariPluginManager()
    pm.load_entry_points(only=answering, entry_points=plugins)
    if local and policy_folder is not None:
        from sari_core.kernel.local_policies import load_local_policies

        load_local_policies(pm, policy_folder)
    folded, failures = pm.client_hook(event)
    for failure in failures:
        print(f"sari hook: {failure}", file=sys.stderr)
    output = claude_output(CLAUDE_EVENTS[args.event], folded)
    if output:
        print(json.dumps(output))
    return 0


def register(registry: CommandRegistry) -> None:
    registry.add("hook", "Run a coding client's hook (e.g. Claude Code PostToolUse) through "
                 "Sari's plugins; reads the hook JSON on stdin.", configure, run)
