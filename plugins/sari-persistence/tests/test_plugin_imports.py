"""Every ``sari`` call loads the plugin; the compaction summary, the Claude Code hooks and the
``sari log`` command are imported only when one of them runs."""

from __future__ import annotations

import argparse
import subprocess
import sys

DEFERRED = ["sari_persistence.claude_code", "sari_persistence.compaction",
            "sari_persistence.cli", "sari_persistence.transcript"]


def test_loading_the_plugin_imports_none_of_what_runs_on_demand() -> None:
    probe = ("import sys\nfrom sari_persistence.plugin import PersistencePlugin\n"
             "plugin = PersistencePlugin()\n"
             "commands = plugin.sari_register_commands()\n"
             f"print(*[m in sys.modules for m in {DEFERRED!r}])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False"] * len(DEFERRED)


def test_the_log_command_configures_and_runs_through_its_module() -> None:
    from sari_persistence import cli
    from sari_persistence.plugin import PersistencePlugin

    [command] = PersistencePlugin().sari_register_commands()
    parser = argparse.ArgumentParser(prog="sari log")
    command.configure(parser)
    expected = argparse.ArgumentParser(prog="sari log")
    cli.configure(expected)
    assert parser.format_help() == expected.format_help()
