"""``sari plugins``: installed policy plugins, their hooks and whether they are enabled.

An installed plugin's row also shows the client hook events it declares it answers (the
events ``sari hook`` imports it for), or that it declares none, so it is imported for each.
"""

from __future__ import annotations

import argparse
import json

from sari_core.kernel.builtin import register_builtins
from sari_core.kernel.commands import CommandRegistry
from sari_core.kernel.loading import declared_client_hooks, plugin_and_hook_entry_points
from sari_core.kernel.local_policies import load_local_policies
from sari_core.kernel.manager import SariPluginManager
from sari_core.kernel.policy_folder import plugins_dir


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    pm = SariPluginManager()
    register_builtins(pm)
    installed, declarations = plugin_and_hook_entry_points()
    declared = declared_client_hooks(installed, declarations)
    infos = pm.load_entry_points(strict=False, entry_points=installed)
    folder = plugins_dir()
    if folder is not None:
        infos += load_local_policies(pm, folder)
    rows = [{"name": name, "distribution": "sari-core (built-in)", "version": None,
             "hooks": list(pm.hooks_of(name)), "enabled": True}
            for name in pm.plugin_names() if name.startswith("sari.")]
    rows += [{"name": i.name, "distribution": i.distribution, "version": i.version,
              "hooks": list(i.hooks), "enabled": i.enabled, "error": i.error,
              "client_hooks": client_hooks(declared.get(i.name))} for i in infos]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not infos:
        print("No policy plugins installed (sari-core runs policy-free). "
              "Install one, e.g. pip install sari-budget.")
    for row in rows:
        state = "enabled" if row["enabled"] else "disabled"
        dist = f"{row['distribution']} {row['version'] or ''}".strip()
        print(f"{row['name']:<16} {dist:<28} {state:<9} hooks: {', '.join(row['hooks']) or '-'}")
        if "client_hooks" in row and row["client_hooks"] != []:
            events = row["client_hooks"]
            print(f"{'':<16} client hooks: "
                  + (", ".join(events) if events is not None
                     else "none declared, so `sari hook` imports it for every event"))
        if row.get("error"):
            print(f"{'':<16} failed to load: {row['error']}")
    return 1 if any(i.error for i in infos) else 0


def client_hooks(declared: frozenset[tuple[str, str]] | None) -> list[str] | None:
    """``["claude-code post-tool-use", ...]``; None when the plugin declares nothing."""
    return None if declared is None else sorted(f"{client} {event}" for client, event in declared)


def register(registry: CommandRegistry) -> None:
    registry.add("plugins", "List installed policy plugins, their hooks and whether enabled.",
                 configure, run)
