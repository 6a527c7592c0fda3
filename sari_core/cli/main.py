"""``sari``: builds the argparse CLI from core command modules and plugin commands.

Each module in :mod:`sari_core.cli.commands` has ``register(registry)``; plugins
add theirs through the ``sari_register_commands`` hook.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

from sari_core import __version__
from sari_core.cli import commands as core_commands
from sari_core.kernel.commands import CommandRegistry
from sari_core.kernel.loading import PLUGINS_DIR_ENV

# Given a core command (or ``--version``), only that command's module is imported: every
# command's start-up counts (an MCP client spawns ``serve`` and waits for ``initialize``; a
# client runs ``sari hook`` on each of its tool calls), and loading every plugin to list
# their commands took most of it. A plugin cannot take a core command's name (the registry
# refuses a name twice), so nothing a plugin adds can change what such a command does.
VERSION_FLAG = "--version"


def core_command_module(name: str) -> str | None:
    """The module of core command ``name`` (``new-plugin`` is ``new_plugin``), or None."""
    module = name.replace("-", "_")
    if not module.isidentifier() or module.startswith("_"):
        return None
    qualified = f"{core_commands.__name__}.{module}"
    return qualified if importlib.util.find_spec(qualified) is not None else None


def build_registry(only: str | None = None) -> CommandRegistry:
    registry = CommandRegistry()
    if only == VERSION_FLAG:
        return registry
    core_module = core_command_module(only) if only else None
    if core_module is not None:
        importlib.import_module(core_module).register(registry)
        return registry
    for module_info in sorted(pkgutil.iter_modules(core_commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{core_commands.__name__}.{module_info.name}")
        module.register(registry)
    from sari_core.kernel.manager import SariPluginManager

    pm = SariPluginManager()
    try:
        pm.load_entry_points(strict=False, listing=False)
    except Exception as exc:  # noqa: BLE001 - a broken plugin must not take `sari doctor` down with it
        print(f"sari: warning: plugins not loaded: {exc}", file=sys.stderr)
    for command in pm.commands():
        registry.add(command.name, command.help, command.configure, command.run)
    return registry


def build_parser(registry: CommandRegistry) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sari", description="Policy layer for the tools LLM coding agents call.")
    parser.add_argument("--version", action="version", version=f"sari {__version__}")
    add_plugins_dir(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in registry.commands():
        sub_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub_parser)
        sub_parser.set_defaults(run_command=command.run)
    return parser


def add_plugins_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plugins-dir", metavar="DIR", type=Path,
                        help="a folder of local policy modules, loaded like installed plugins "
                        f"(as {PLUGINS_DIR_ENV}=DIR)")


def name_plugins_dir(argv: Sequence[str]) -> list[str]:
    """``--plugins-dir`` before anything loads plugins: it is the operator's
    ``SARI_PLUGINS_DIR`` for this process (and the servers and commands it runs).

    :return: the arguments without it (the command first).
    """
    early = argparse.ArgumentParser(add_help=False)
    add_plugins_dir(early)
    known, rest = early.parse_known_args(argv)
    if known.plugins_dir is not None:
        os.environ[PLUGINS_DIR_ENV] = str(known.plugins_dir.expanduser().resolve())
    return rest


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("SARI_LOG_LEVEL", "WARNING").upper(),
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = name_plugins_dir(argv)
    parser = build_parser(build_registry(rest[0] if rest else None))
    args = parser.parse_args(argv)
    if not getattr(args, "run_command", None):
        parser.print_help()
        return 2
    try:
        return int(args.run_command(args) or 0)
    except BrokenPipeError:
        # The reader went away (`sari search ... | head`): not an error; silence the
        # interpreter's own flush of stdout on exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        # (imported here: the fast commands load the settings only when they need them)
        from sari_core.engine.index.schema import IndexBusy
        from sari_core.kernel.settings import SettingsError

        if not isinstance(exc, (SettingsError, IndexBusy)):
            raise
        # A setting the user wrote wrong, an index another process keeps locked: one line
        # naming it, never a traceback.
        print(f"sari {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
