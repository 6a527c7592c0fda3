"""The sari-lspgate plugin: validate every mutation, gate the session on what it introduced."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from sari_core import (
    ClientHookEvent,
    ClientHookResult,
    Command,
    CompactionContribution,
    CompactionEvent,
    FileChange,
    MutationEvent,
    Plugin,
    ReadCall,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    Verdict,
    hookimpl,
)
from sari_lspgate import claude_code, cli, policy
from sari_lspgate.diagnostics import LineMap
from sari_lspgate.gate import ChangeOutcome, GateState, apply_results
from sari_lspgate.settings import SECTION, LspGateSettings

if TYPE_CHECKING:
    from sari_core import KernelView
    from sari_lspgate.runner import ChangeTarget, ValidationRunner

log = logging.getLogger(__name__)


class LspGatePlugin(Plugin):
    """After each mutation, real language servers validate the file; new errors gate."""

    name = "lspgate"
    # The `sari hook` events answered by on_client_hook (`sari install --hooks` reads it).
    client_hook_events = frozenset({("claude-code", "post-tool-use")})

    def __init__(self) -> None:
        self.settings: LspGateSettings | None = None
        self.runner: ValidationRunner | None = None
        self._runner_lock = threading.Lock()
        self._roots: list[Path] = []
        self._engine: object | None = None  # where navigation finds definitions

    # --- registration -------------------------------------------------------------------

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=LspGateSettings)

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return policy.reason_code_specs()

    @hookimpl
    def sari_register_commands(self) -> list[Command]:
        return [Command("gate", "LSP gate: validate files with the configured language servers "
                        "and checkers (sari gate check FILE...).", cli.configure, cli.run)]

    # --- lifecycle ----------------------------------------------------------------------

    @hookimpl
    def on_kernel_start(self, kernel: KernelView) -> None:
        settings: LspGateSettings = kernel.settings.get(SECTION)
        self.settings = settings
        self._roots = list(kernel.roots)
        self._engine = kernel.engine
        if settings.enabled and settings.prewarm:
            self._get_runner().prewarm()

    @hookimpl
    def on_kernel_shutdown(self, kernel: KernelView) -> None:
        with self._runner_lock:
            runner, self.runner = self.runner, None
        if runner is not None:
            runner.close()

    def _get_runner(self) -> ValidationRunner:
        # Servers start lazily: a kernel that never edits code never spawns one.
        with self._runner_lock:
            if self.runner is None:
                assert self.settings is not None
                # Imported here: lsprotocol's types take a second to import, and every
                # `sari` command loads the plugins.
                from sari_lspgate.navigation import index_definitions
                from sari_lspgate.runner import ValidationRunner

                self.runner = ValidationRunner(self.settings, self._roots,
                                               index_definitions(self._engine))
            return self.runner

    def _active(self, session: Session) -> LspGateSettings | None:
        """The session's settings when the gate is on (and the kernel started it)."""
        settings: LspGateSettings = session.settings(SECTION)
        return settings if settings.enabled and self.settings is not None else None

    # --- navigation ---------------------------------------------------------------------

    @hookimpl
    def sari_navigate(self, call: SearchCall, session: Session) -> SearchResult | None:
        settings = self._active(session)
        if settings is None or not settings.navigation:
            return None
        with self._runner_lock:
            runner = self.runner
        return runner.navigate(call) if runner is not None else None

    @hookimpl
    def sari_navigation_languages(self) -> list[str]:
        from sari_lspgate.python_servers import builtin_servers
        from sari_lspgate.settings import load_settings
        from sari_lspgate.validators import language_id_for, resolve_executable

        settings = self.settings or load_settings(Path.cwd())
        if not (settings.enabled and settings.navigation):
            return []
        languages = set()
        for config in builtin_servers(settings):
            if config.name == "ruff" or resolve_executable(config.command[0]) is None:
                continue  # ruff answers no references
            sample = config.patterns[0].rsplit("/", 1)[-1].replace("*", "x")
            languages.add(config.language_id or language_id_for(sample))
        return sorted(languages)

    # --- mutations ----------------------------------------------------------------------

    @hookimpl
    def on_mutation(self, event: MutationEvent, session: Session) -> Verdict | None:
        # Policy decisions read the session's settings, as every plugin does; the kernel-start
        # copy only configures the language-server runner.
        settings = self._active(session)
        if settings is None:
            with self._runner_lock:
                runner = self.runner
            if runner is not None and event.phase == "after":
                runner.note_change()  # other sessions' kept navigation answers are stale
            return None
        state = session.namespace(SECTION, GateState)
        if event.phase == "before":
            return self._before(event, session, state, settings)
        return self._after(event, session, state, settings)

    def _before(self, event: MutationEvent, session: Session, state: GateState,
                settings: LspGateSettings) -> Verdict | None:
        if state.gated:
            gated_files = set(state.files)
            others = [path for path in event.paths if path not in gated_files]
            if others:
                return policy.refusal(state, others, settings.max_examples, session.session_id)
        runner = self._get_runner()
        targets = [self._target(runner, change) for change in event.changes
                   if runner.covers(change.path)]
        if targets:
            runner.before_write(targets)
        return None

    def _after(self, event: MutationEvent, session: Session, state: GateState,
               settings: LspGateSettings) -> Verdict | None:
        external = event.source == "external"
        record = not external or settings.gate_external_changes
        was_gated = state.gated
        runner = self._get_runner()
        runner.note_change()
        outcomes: list[ChangeOutcome] = []
        for change in event.changes:
            if change.new_text is None:
                if record:
                    state.forget(change.path)
                continue
            if not runner.covers(change.path):
                continue
            target = self._target(runner, change)
            results = runner.validate(target)
            outcomes.append(apply_results(
                state, change.path, LineMap(change.old_text, change.new_text), results,
                settings.gate_severities, settings.failure_mode, record=record))
        if not outcomes and was_gated == state.gated:
            return None
        return policy.after_change(state, outcomes, was_gated, external=external,
                                   recorded=record, max_examples=settings.max_examples,
                                   failure_mode=settings.failure_mode,
                                   session_id=session.session_id)

    @staticmethod
    def _target(runner: ValidationRunner, change: FileChange) -> ChangeTarget:
        from sari_lspgate.runner import ChangeTarget

        abs_path = Path(change.abs_path)
        return ChangeTarget(root=runner.root_of(abs_path), abs_path=abs_path, path=change.path,
                            old_text=change.old_text, new_text=change.new_text)

    # --- reads, searches, compaction ----------------------------------------------------

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        return self._while_gated(session)

    @hookimpl
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> Verdict | None:
        return self._while_gated(session)

    def _while_gated(self, session: Session) -> Verdict | None:
        settings = self._active(session)
        if settings is None:
            return None
        return policy.while_gated(session.namespace(SECTION, GateState), settings.max_examples)

    @hookimpl
    def on_compaction(self, event: CompactionEvent,
                      session: Session) -> CompactionContribution | None:
        settings = self._active(session)
        if settings is None:
            return None
        lines = policy.compaction_lines(session.namespace(SECTION, GateState),
                                        settings.max_examples)
        return CompactionContribution(lines=lines) if lines else None

    # --- clients with their own edit tools ------------------------------------------------

    @hookimpl
    def on_client_hook(self, event: ClientHookEvent) -> ClientHookResult | None:
        if event.client == "claude-code" and event.event == "post-tool-use":
            return claude_code.post_tool_use(event)
        return None
