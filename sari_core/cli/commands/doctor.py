"""``sari doctor``: check the installation — Python, git, the index, plugins and what they
depend on (a plugin's ``sari_doctor_checks``: a database, a service), language servers,
how long ``sari serve`` takes to answer ``initialize`` (phase by phase), and which client
hooks are installed and whether they reach a server.

Each check reports ``ok``, ``warn`` (works, with less) or ``error`` (broken);
the exit status is 1 when any check is an error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from sari_core.kernel.commands import CommandRegistry

Status = Literal["ok", "warn", "error"]
LANGUAGE_SERVERS = ("ruff", "basedpyright-langserver")
MIN_PYTHON = (3, 10)


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", "-w", action="append", metavar="PATH", default=[],
                        help="workspace to check (default: the current folder)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a report")


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    status: Status = "ok" if sys.version_info[:2] >= MIN_PYTHON else "error"
    return Check("python", status, f"{version} at {sys.executable}; sari-core "
                 f"{_version('sari-core')}, mcp {_version('mcp')}")


def _run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=15,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def check_git(roots: list[Path]) -> list[Check]:
    git = shutil.which("git")
    if git is None:
        return [Check("git", "warn", "git not found on PATH: read mode diff_preview is "
                      "unavailable; install git")]
    done = _run([git, "--version"])
    checks = [Check("git", "ok", (done.stdout.strip() if done else "git") + f" at {git}")]
    for root in roots:
        inside = _run([git, "rev-parse", "--show-toplevel"], cwd=root)
        if inside is not None and inside.returncode == 0:
            checks.append(Check("git repository", "ok", f"{root} is in {inside.stdout.strip()}"))
        else:
            checks.append(Check("git repository", "warn", f"{root} is not in a git repository: "
                                "diff_preview has no baseline"))
    return checks


def _writable(folder: Path) -> str | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return str(exc)
    return None


def check_folders() -> list[Check]:
    from sari_core.locations import cache_dir, log_dir, state_dir

    checks = []
    for label, folder in (("state folder", state_dir()), ("cache folder", cache_dir()),
                          ("log folder", log_dir())):
        problem = _writable(folder)
        checks.append(Check(label, "error" if problem else "ok",
                            f"{folder}: {problem}" if problem else str(folder)))
    return checks


def check_index(roots: list[Path]) -> Check:
    """Open the workspace engine and report what it says about its index."""
    try:
        from sari_core.engine import Workspace
    except ImportError as exc:
        return Check("index", "error", f"the workspace engine cannot be imported: {exc}")
    from sari_core.engine.files.exclusions import ExcludeError, configured_excludes

    try:
        engine = Workspace(roots, exclude=configured_excludes(roots[0]))
    except ExcludeError as exc:
        return Check("index", "error", str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken index is reported, not a crash
        return Check("index", "error", f"opening the workspace failed: {type(exc).__name__}: "
                     f"{exc}")
    try:
        describe = getattr(engine, "index_status", None)
        status = describe() if callable(describe) else None
        if isinstance(status, dict) and "ready" in status:
            # This process built nothing: an index a full build completed (`sari index`, a
            # server) is ready, whatever is still being built now.
            status["ready"] = bool(getattr(engine, "index_complete", status["ready"]))
    except Exception as exc:  # noqa: BLE001 - same: the report names the failure
        return Check("index", "error", f"reading the index failed: {type(exc).__name__}: {exc}")
    finally:
        engine.close()
    if not isinstance(status, dict) or not status:
        return Check("index", "ok", "workspace opens; the index is built by `sari serve` in "
                     "the background")
    return Check("index", "ok", ", ".join(f"{key}={value}" for key, value in status.items()))


def check_exclusions(roots: list[Path]) -> Check:
    """The ``exclude`` rules, each with the number of files it keeps out of every root."""
    from sari_core.engine.files.exclusions import ExcludeError, exclude_rules, excluded_counts
    from sari_core.engine.files.ignore import IgnoreRules

    try:
        rules = exclude_rules(roots[0])
    except ExcludeError as exc:
        return Check("exclusions", "error", str(exc))
    if not rules:
        return Check("exclusions", "ok", "none configured ([tool.sari] exclude in "
                     "pyproject.toml, exclude in sari.toml or the user's config.toml)")
    counts = dict.fromkeys((rule.pattern for rule in rules), 0)
    for root in roots:  # the files the walk lists without the rules
        found = excluded_counts(rules, (entry.rel for entry in IgnoreRules(root).walk()))
        for pattern, count in found.items():
            counts[pattern] += count
    return Check("exclusions", "ok", "; ".join(
        f"{rule.pattern} (from {rule.source}) excludes {counts[rule.pattern]} file"
        f"{'' if counts[rule.pattern] == 1 else 's'}" for rule in rules))


def check_plugins(roots: list[Path]) -> list[Check]:
    from sari_core.kernel.builtin import register_builtins
    from sari_core.kernel.core_settings import CoreSettings
    from sari_core.kernel.manager import SariPluginManager
    from sari_core.kernel.settings import SettingsError, SettingsSpec, SettingsStore

    pm = SariPluginManager()
    register_builtins(pm)
    try:
        infos = pm.load_entry_points()
    except Exception as exc:  # noqa: BLE001 - a broken plugin is a finding, not a crash
        return [Check("plugins", "error", f"loading plugins failed: {exc}")]
    checks = []
    if not infos:
        checks.append(Check("plugins", "ok", "none installed: sari-core runs policy-free"))
    for info in infos:
        state = "enabled" if info.enabled else "disabled (SARI_PLUGINS/SARI_DISABLE_PLUGINS)"
        checks.append(Check(f"plugin {info.name}", "ok",
                            f"{info.distribution or '?'} {info.version or ''} {state}".strip()))
    specs = [SettingsSpec("core", CoreSettings)]
    try:
        specs += pm.settings_specs()
    except RuntimeError as exc:  # a plugin failed to declare its settings: names it
        checks.append(Check("settings", "error", str(exc)))
    try:
        store = SettingsStore.load(specs, roots[0])
    except SettingsError as exc:
        checks.append(Check("settings", "error", str(exc)))
    else:
        sections = ", ".join(store.sections())
        trusted = ", a workspace the operator trusts" if store.trusted_workspace else ""
        checks.append(Check("settings", "ok",
                            f"valid for {roots[0]}{trusted} (sections: {sections})"))
        # What the workspace's own files tried and the server ignores (it still starts).
        checks += [Check("workspace config", "warn", notice) for notice in store.notices]
    return checks


def find_executable(name: str) -> str | None:
    """On PATH, or next to this interpreter (a virtualenv's bin folder is often not on PATH)."""
    found = shutil.which(name)
    if found:
        return found
    local = Path(sys.executable).parent / name
    return str(local) if local.is_file() and os.access(local, os.X_OK) else None


# What pip installs each language server from.
LANGUAGE_SERVER_PACKAGES = {"ruff": "ruff", "basedpyright-langserver": "basedpyright"}
EDIT_VALIDATOR = "sari-lspgate"  # the plugin that validates edits with them


def check_language_servers() -> list[Check]:
    """The language servers sari-lspgate validates edits with; without that plugin they are
    not used, and installing one would change nothing."""
    if _version(EDIT_VALIDATOR) == "not installed":
        return [Check("language servers", "ok", f"not used: {EDIT_VALIDATOR}, which validates "
                      f"edits with them, is not installed (pip install {EDIT_VALIDATOR})")]
    checks = []
    for name in LANGUAGE_SERVERS:
        path = find_executable(name)
        if path is None:
            checks.append(Check(name, "warn", "not found: edits of Python files are not "
                                f"validated by {EDIT_VALIDATOR} (pip install "
                                f"{LANGUAGE_SERVER_PACKAGES[name]})"))
        else:
            checks.append(Check(name, "ok", path))
    return checks


def check_languages() -> Check:
    """The languages with symbols, and which of them a language server navigates exactly."""
    from sari_core.engine.index.grammars import GRAMMARS
    from sari_core.engine.index.symbols import supported_now
    from sari_core.kernel.builtin import register_builtins
    from sari_core.kernel.manager import SariPluginManager

    pm = SariPluginManager()
    register_builtins(pm)
    try:
        pm.load_entry_points(strict=False)
        exact = set(pm.navigation_languages())
    except Exception as exc:  # noqa: BLE001 - a broken plugin is reported by check_plugins
        exact = set()
        unknown_note = f" (exact navigation unknown: {exc})"
    else:
        unknown_note = ""
    names = [f"{language}{' (exact)' if language in exact else ''}"
             for language in GRAMMARS if supported_now(language)]
    broken = [language for language in GRAMMARS if not supported_now(language)]
    detail = ", ".join(names) + unknown_note
    if broken:
        return Check("languages", "warn", f"{detail}; grammars failing to load: "
                     f"{', '.join(broken)}")
    return Check("languages", "ok", detail)


# Clients wait this long for `initialize` before giving up on a server (Codex's default
# MCP start-up timeout is 10 s); a start-up over half of it is worth a warning.
STARTUP_WARN_SECONDS = 5.0


def check_startup(roots: list[Path]) -> Check:
    """Start ``sari serve`` the way a client does and report where its start-up goes."""
    from sari_core.server.startup import measure

    try:
        measured = measure(roots[0])
    except (OSError, RuntimeError, TimeoutError) as exc:
        return Check("start-up", "error", f"`sari serve` did not answer initialize: {exc}")
    status: Status = "ok" if measured.initialize_seconds <= STARTUP_WARN_SECONDS else "warn"
    return Check("start-up", status, measured.describe())


def check_client_hooks(roots: list[Path]) -> list[Check]:
    """Which of Sari's client hooks are installed, and whether each reaches a server."""
    from sari_core.native.inspection import inspect_hooks

    return [Check(found.name, found.status, found.detail) for found in inspect_hooks(roots[0])]


def check_plugin_dependencies(roots: list[Path]) -> list[Check]:
    """What installed plugins depend on outside Sari (a database, a service), as they say."""
    from sari_core.kernel.builtin import register_builtins
    from sari_core.kernel.manager import SariPluginManager

    pm = SariPluginManager()
    register_builtins(pm)
    try:
        pm.load_entry_points(strict=False)
    except Exception:  # noqa: BLE001 - a broken plugin is reported by check_plugins
        return []
    return [Check(check.name, check.status, check.detail)
            for check in pm.doctor_checks(roots[0])]


def collect(roots: list[Path]) -> list[Check]:
    return [check_python(), *check_git(roots), *check_folders(), check_index(roots),
            check_exclusions(roots),
            *check_plugins(roots), *check_plugin_dependencies(roots),
            *check_language_servers(), check_languages(), check_startup(roots),
            *check_client_hooks(roots)]


def run(args: argparse.Namespace) -> int:
    roots = [Path(p).expanduser().resolve() for p in args.workspace] or [Path.cwd().resolve()]
    missing = [root for root in roots if not root.is_dir()]
    checks = [Check("workspace", "error", f"{root} is not a folder") for root in missing]
    if not missing:
        checks = collect(roots)
    if args.json:
        print(json.dumps([asdict(check) for check in checks], indent=2))
    else:
        for check in checks:
            print(f"[{check.status:<5}] {check.name:<24} {check.detail}")
    failed = sum(check.status == "error" for check in checks)
    if not args.json:
        warned = sum(check.status == "warn" for check in checks)
        print(f"\n{len(checks)} checks: {failed} errors, {warned} warnings.")
    return 1 if failed else 0


def register(registry: CommandRegistry) -> None:
    registry.add("doctor", "Check the installation: Python, git, index, plugins and their "
                 "settings, language servers, start-up time, client hooks.", configure, run)
