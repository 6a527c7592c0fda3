"""``sari hook CLIENT EVENT`` imports only the plugins that answer the event.

A client runs the command in a process of its own on each of its tool calls. Plugins
declare the events they answer in their metadata (the ``sari.client_hooks`` entry-point
group); a plugin that declares nothing is still imported and asked about every event.
Each test installs small real distributions (a ``dist-info`` folder on ``PYTHONPATH``)
next to whatever plugins this environment has, and runs the command in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

from sari_core.kernel.loading import (
    CLIENT_HOOKS_GROUP,
    declared_client_hooks,
    plugin_and_hook_entry_points,
    plugins_answering,
)
from sari_core.testing import check_client_hook_declaration

POLICY = '''\
from sari_core import ClientHookResult, hookimpl


class {cls}:
    @hookimpl
    def on_client_hook(self, event):
        return ClientHookResult(additional_context="{name} saw " + event.event)
'''

# Reports what the command printed and which modules it imported, after running it.
PROBE = """\
import io, json, sys
sys.stdin = io.StringIO('{"cwd": "."}')
from sari_core.cli.main import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as report:
    json.dump({"code": code, "modules": sorted(sys.modules)}, report)
"""


def install_policy(site: Path, name: str, declarations: list[str] | None) -> None:
    """A distribution ``NAME-policy`` with one plugin ``NAME`` that answers every event.

    :param declarations: its ``sari.client_hooks`` entry names; None declares nothing.
    """
    module, cls = f"{name}_policy", f"{name.title()}Policy"
    (site / f"{module}.py").write_text(POLICY.format(cls=cls, name=name), encoding="utf-8")
    info = site / f"{name}_policy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-policy\n"
                                   "Version: 0.1\n", encoding="utf-8")
    value = f"{module}:{cls}"
    text = f"[sari]\n{name} = {value}\n"
    if declarations is not None:
        text += f"\n[{CLIENT_HOOKS_GROUP}]\n" + "".join(f"{d} = {value}\n" for d in declarations)
    (info / "entry_points.txt").write_text(text, encoding="utf-8")


def run_hook(site: Path | None, event: str, tmp_path: Path, **env: str
             ) -> tuple[dict[str, object], set[str]]:
    """(what the hook printed, as JSON; {} for nothing) and the modules it imported."""
    environment = {**os.environ, **env}
    if site is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [os.environ.get("PYTHONPATH")])])
    report = tmp_path / f"report-{event}.json"
    done = subprocess.run([sys.executable, "-c", PROBE, str(report), "hook", "claude-code",
                           event], capture_output=True, text=True, env=environment,
                          cwd=tmp_path, check=True)
    facts = json.loads(report.read_text(encoding="utf-8"))
    assert facts["code"] == 0, done.stderr
    return (json.loads(done.stdout) if done.stdout.strip() else {}), set(facts["modules"])


def plugin_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if m.startswith("sari_") and not m.startswith("sari_core")}


def test_an_event_no_plugin_answers_imports_no_plugin_nor_the_kernel(tmp_path: Path) -> None:
    """The installed plugins declare their events: none answers ``stop``."""
    output, modules = run_hook(None, "stop", tmp_path)
    assert output == {}
    assert plugin_modules(modules) == set()
    assert not {"sari_core.kernel.manager", "pluggy", "pydantic"} & modules


def test_a_declared_plugin_is_imported_and_answers_only_for_its_events(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "stopper", ["stopper.claude-code.stop"])
    install_policy(site, "quiet", ["quiet"])  # declares it answers no event
    output, modules = run_hook(site, "stop", tmp_path)
    assert output == {"hookSpecificOutput": {"hookEventName": "Stop",
                                             "additionalContext": "stopper saw stop"}}
    assert "stopper_policy" in modules and "quiet_policy" not in modules
    output, modules = run_hook(site, "pre-tool-use", tmp_path)
    assert output == {}
    assert not {"stopper_policy", "quiet_policy", "sari_core.kernel.manager"} & modules


def test_a_plugin_that_declares_nothing_is_asked_about_every_event(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "legacy", None)
    for event, name in (("stop", "Stop"), ("pre-tool-use", "PreToolUse")):
        output, modules = run_hook(site, event, tmp_path)
        assert output == {"hookSpecificOutput": {"hookEventName": name,
                                                 "additionalContext": f"legacy saw {event}"}}
        assert "legacy_policy" in modules
        # The installed plugins that declare other events are still not imported.
        assert plugin_modules(modules) == set()


def test_the_deny_and_allow_lists_keep_a_plugin_out_before_it_is_imported(
        tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "legacy", None)
    for env in ({"SARI_DISABLE_PLUGINS": "legacy"}, {"SARI_PLUGINS": "secretguard"}):
        output, modules = run_hook(site, "stop", tmp_path, **env)
        assert output == {}
        assert "legacy_policy" not in modules and "sari_core.kernel.manager" not in modules


def test_a_declaration_naming_another_object_counts_as_none(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A declaration is tied to the plugin's own ``sari`` value: one left behind when the
    plugin moved (or one written for another plugin) makes it undeclared, so it is asked."""
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "moved", ["moved"])
    text = (site / "moved_policy-0.1.dist-info" / "entry_points.txt").read_text()
    (site / "moved_policy-0.1.dist-info" / "entry_points.txt").write_text(
        text.replace(f"[{CLIENT_HOOKS_GROUP}]\nmoved = moved_policy:MovedPolicy",
                     f"[{CLIENT_HOOKS_GROUP}]\nmoved = old_home:MovedPolicy"))
    monkeypatch.syspath_prepend(str(site))
    plugins, declarations = plugin_and_hook_entry_points()
    assert "moved" not in declared_client_hooks(plugins, declarations)
    assert "moved" in plugins_answering("claude-code", "stop", plugins, declarations)


def test_every_installed_plugin_declares_the_events_it_answers() -> None:
    """First-party plugins declare, and their declarations match the plugins themselves."""
    plugins, _ = plugin_and_hook_entry_points()
    for entry in plugins:
        assert check_client_hook_declaration(entry.name) is not None, entry.name


def test_a_declaration_that_hides_an_answer_fails_the_check(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "hider", ["hider"])  # answers every event, declares none
    install_policy(site, "honest", ["honest.claude-code.stop"])
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(pluggy.PluginValidationError, match="has on_client_hook but declares"):
        check_client_hook_declaration("hider")
    assert check_client_hook_declaration("honest") == {("claude-code", "stop")}
    with pytest.raises(LookupError):
        check_client_hook_declaration("nobody")


def test_sari_plugins_shows_what_each_plugin_declares(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_policy(site, "stopper", ["stopper.claude-code.stop"])
    install_policy(site, "quiet", ["quiet"])
    install_policy(site, "legacy", None)
    env = {**os.environ, "PYTHONPATH": str(site), "SARI_PLUGINS": "stopper,quiet,legacy"}
    command = [sys.executable, "-m", "sari_core.cli.main", "plugins"]
    rows = json.loads(subprocess.run([*command, "--json"], capture_output=True, text=True,
                                     env=env, check=True).stdout)
    declared = {row["name"]: row.get("client_hooks") for row in rows
                if not row["name"].startswith("sari.")}
    assert {name: declared[name] for name in ("stopper", "quiet", "legacy")} == {
        "stopper": ["claude-code stop"], "quiet": [], "legacy": None}
    table = subprocess.run(command, capture_output=True, text=True, env=env).stdout
    assert "client hooks: claude-code stop" in table
    assert "none declared, so `sari hook` imports it for every event" in table


LOCAL_POLICY = '''\
from sari_core import ClientHookResult, hookimpl

client_hook_events = {("claude-code", "stop")}


@hookimpl
def on_client_hook(event):
    return ClientHookResult(additional_context="the team's rule saw " + event.event)
'''


def test_the_operators_local_policies_answer_client_hooks(tmp_path: Path) -> None:
    """A policy module in the operator's folder (``SARI_PLUGINS_DIR``) is registered like an
    installed plugin, ``client_hook_events`` included: ``sari hook`` asks it too."""
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "team_rule.py").write_text(LOCAL_POLICY, encoding="utf-8")
    output, modules = run_hook(None, "stop", tmp_path, SARI_PLUGINS_DIR=str(folder))
    assert output == {"hookSpecificOutput": {"hookEventName": "Stop",
                                             "additionalContext": "the team's rule saw stop"}}
    assert "sari_local_policies.team_rule" in modules
    output, _ = run_hook(None, "stop", tmp_path, SARI_PLUGINS_DIR=str(folder),
                         SARI_DISABLE_PLUGINS="team_rule")
    assert output == {}
