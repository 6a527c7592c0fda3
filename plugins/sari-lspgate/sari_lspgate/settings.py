"""The ``[tool.sari.lspgate]`` settings section: which validators run, what gates, how long to wait."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from sari_core import OperatorOnly, Tightens

SECTION = "lspgate"

SeverityName = Literal["error", "warning", "information", "hint"]
ParserName = Literal["cargo-json", "tsc", "go-vet", "gnu"]

RUNS_A_PROGRAM = OperatorOnly("runs a program")
# A validator that cannot start or answer in time counts as unavailable, which lets the
# edit through (failure_mode open): a workspace may not shorten the waits either.
WAIT = OperatorOnly("a shorter wait makes validators unavailable, a longer one holds edits")


class LanguageServerConfig(BaseModel):
    """A language server spoken to over LSP (stdio) for the files its patterns match."""

    name: str = Field(description="Short name shown in diagnostics and warnings, e.g. gopls.")
    command: list[str] = Field(
        min_length=1, description="Command line that starts the server on stdio.")
    patterns: list[str] = Field(
        min_length=1,
        description="Glob patterns of workspace-relative paths, matched from the right "
                    "('*.rs' matches every Rust file, 'src/*.go' Go files in any src folder).")
    language_id: str | None = Field(
        None, description="LSP languageId of the documents; guessed from the extension if unset.")
    initialization_options: dict[str, Any] | None = Field(
        None, description="initializationOptions sent with the initialize request.")
    settings: dict[str, Any] | None = Field(
        None, description="Answer to workspace/configuration requests, by section name.")
    settle_seconds: float = Field(
        0.0, ge=0.0,
        description="After the first diagnostics of a document version, wait this long for "
                    "further publications of the same version (servers that publish in steps).")
    enabled: bool = Field(True, description="Set false to keep the entry but not run it.")


class CommandValidatorConfig(BaseModel):
    """A checker run as a command (no server) whose output a parser turns into diagnostics."""

    name: str = Field(description="Short name shown in diagnostics and warnings.")
    command: list[str] = Field(
        min_length=1,
        description="Command line; '{file}' is replaced by the changed file's absolute path and "
                    "'{root}' by the workspace root.")
    patterns: list[str] = Field(
        min_length=1, description="Glob patterns of the workspace-relative paths it checks.")
    parser: ParserName = Field(
        description="How to read its output: cargo-json (cargo check --message-format=json), "
                    "tsc (tsc --noEmit --pretty false), go-vet (go vet), gnu (file:line:col: msg).")
    cwd: str | None = Field(
        None, description="Working folder relative to the workspace root (default: the root).")
    enabled: bool = Field(True, description="Set false to keep the entry but not run it.")


class LspGateSettings(BaseModel):
    """What validates an edit, what gates the session, and what happens when a validator fails."""

    enabled: Annotated[bool, OperatorOnly(
        "false turns the gate off", workspace_may="enable")] = Field(
        True, description="Validate mutations and gate the session; false turns the plugin off.")
    ruff: Annotated[bool, OperatorOnly("false stops a validator", workspace_may="enable")] = Field(
        True, description="Validate Python files with `ruff server` (syntax errors and lint).")
    basedpyright: Annotated[bool, OperatorOnly(
        "false stops a validator", workspace_may="enable")] = Field(
        True, description="Validate Python files with `basedpyright-langserver --stdio` "
                          "(type errors).")
    python: Annotated[str | None, RUNS_A_PROGRAM] = Field(
        None,
        description="Interpreter basedpyright asks for the installed packages' search paths "
                    "(it runs it); null means the interpreter Sari itself runs on.")
    workspace_venv: Annotated[bool, OperatorOnly(
        "runs the workspace's own interpreter", workspace_may="disable")] = Field(
        False,
        description="Let basedpyright pick the workspace's own environment (its .venv, "
                    "running .venv/bin/python) when python is not set. Only for a workspace "
                    "the operator trusts: the agent can write that interpreter.")
    python_patterns: Annotated[list[str], OperatorOnly(
        "a pattern left out leaves those files unvalidated", workspace_may="add")] = Field(
        default_factory=lambda: ["*.py", "*.pyi"],
        description="Files the built-in Python servers (ruff, basedpyright) validate.")
    language_servers: Annotated[list[LanguageServerConfig], RUNS_A_PROGRAM] = Field(
        default_factory=list,
        description="Further language servers: name, command, patterns (rust-analyzer, gopls, "
                    "typescript-language-server --stdio...).")
    command_validators: Annotated[list[CommandValidatorConfig], RUNS_A_PROGRAM] = Field(
        default_factory=list,
        description="Checkers run as commands with a diagnostics parser (cargo check "
                    "--message-format=json, tsc --noEmit, go vet).")
    gate_severities: Annotated[list[SeverityName], OperatorOnly(
        "a severity left out no longer gates", workspace_may="add")] = Field(
        default_factory=lambda: ["error"],
        description="Diagnostic severities that gate the session when an edit introduces them.")
    failure_mode: Annotated[Literal["open", "closed"], OperatorOnly(
        "open lets edits through unvalidated", workspace_may=("open", "closed"))] = Field(
        "open",
        description="When a validator is missing, hangs or crashes: open lets the edit through "
                    "with an LSP_UNAVAILABLE warning; closed gates the file as if it had an error.")
    startup_timeout_seconds: Annotated[float, WAIT] = Field(
        30.0, gt=0.0, description="Longest wait for a language server to start and initialize.")
    diagnostics_timeout_seconds: Annotated[float, WAIT] = Field(
        15.0, gt=0.0,
        description="Longest wait for a language server's diagnostics of one document version "
                    "(the first one after a start may also use startup_timeout_seconds).")
    command_timeout_seconds: Annotated[float, WAIT] = Field(
        120.0, gt=0.0, description="Longest run of a command validator; it is killed after.")
    max_restarts: Annotated[int, OperatorOnly(
        "fewer restarts make a crashing validator unavailable sooner",
        workspace_may="raise")] = Field(
        5, ge=0,
        description="Restarts of a crashed language server allowed within 10 minutes; past it "
                    "the server counts as unavailable until the window has passed.")
    gate_external_changes: Annotated[bool, OperatorOnly(
        "false lets changes made outside Sari pass", workspace_may="enable")] = Field(
        True, description="Changes made outside Sari (noticed on disk) gate the session too; "
                          "false only reports their new errors as a warning.")
    max_examples: Annotated[int, Tightens("either", "only shapes a gate summary")] = Field(
        5, ge=1, description="Diagnostics listed in a gate summary (file:line - message).")
    navigation: Annotated[bool, Tightens(
        "either", "chooses which source answers navigation, no guard")] = Field(
        True, description="Answer references, callers and implementations searches from the "
                          "language servers already running (exact), not from the index alone.")
    prewarm: Annotated[bool, OperatorOnly(
        "starts language servers before any edit asks for them")] = Field(
        False, description="Start the Python servers in the background when the kernel starts "
                           "instead of at the first edit of a Python file.")


def load_settings(workspace: Path) -> LspGateSettings:
    """The section as a kernel at ``workspace`` would read it (pyproject, sari.toml, env),
    for the CLI and client hooks, which run without a kernel."""
    from sari_core import SettingsSpec, SettingsStore

    store = SettingsStore.load([SettingsSpec(SECTION, LspGateSettings)], workspace)
    settings: LspGateSettings = store.get(SECTION)
    return settings
