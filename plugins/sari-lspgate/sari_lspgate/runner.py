"""Runs the validators of a change: one warm server per workspace root and language server,
command validators on disk, baselines from before the change.

The runner owns the asyncio loop thread and every process on it. Its methods are
synchronous (the kernel's hooks are) and return values — a validator that cannot run
yields a result with ``status="unavailable"``, never an exception.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sari_core import SearchCall, SearchResult, canonical_root
from sari_lspgate.answers import AnswerCache
from sari_lspgate.command_validator import CommandValidator
from sari_lspgate.diagnostics import Diagnostic
from sari_lspgate.event_loop import LoopThread
from sari_lspgate.lsp_server import LanguageServer
from sari_lspgate.navigation import Answer, DefinitionSource, ExactNavigator, Outlines
from sari_lspgate.python_servers import basedpyright_settings, builtin_servers
from sari_lspgate.settings import LanguageServerConfig, LspGateSettings
from sari_lspgate.validators import (
    ValidatorResult,
    ValidatorUnavailable,
    language_id_for,
    matches,
)

log = logging.getLogger(__name__)

BASELINE_CACHE_ENTRIES = 512
# Beyond every validator's own bound: only a bug could make a run wait this long.
SAFETY_MARGIN_SECONDS = 30.0


@dataclass(frozen=True)
class ChangeTarget:
    """One file to validate.

    :ivar path: workspace-relative display path (what diagnostics and summaries show).
    :ivar old_text: the content before the change; None when the file did not exist.
    :ivar old_known: False when the content before the change is unknown (a client hook
        that could not reconstruct it): then nothing is known to have been there before.
    :ivar new_text: the content after; None when the change deleted the file.
    """

    root: Path
    abs_path: Path
    path: str
    old_text: str | None
    new_text: str | None
    old_known: bool = True


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class ValidationRunner:
    """Validators for the workspace roots, warm across calls.

    :param definitions: where navigation finds a name's definitions (Sari's index);
        without it, each server is asked (``workspace/symbol``).
    """

    def __init__(self, settings: LspGateSettings, roots: Sequence[Path],
                 definitions: DefinitionSource | None = None) -> None:
        self.settings = settings
        self.definitions = definitions
        self.roots = [Path(canonical_root(root)) for root in roots] or [Path.cwd()]
        self.server_configs = builtin_servers(settings)
        # The built-in basedpyright gets its interpreter per root (basedpyright_settings).
        self._basedpyright = next((c for c in self.server_configs if c.name == "basedpyright"
                                   and settings.basedpyright), None)
        self.command_configs = [c for c in settings.command_validators if c.enabled]
        self._language_ids = {c.name: c.language_id for c in self.server_configs
                              if c.language_id}
        self.loop = LoopThread()
        self._servers: dict[tuple[Path, str], LanguageServer] = {}
        self._commands: dict[tuple[Path, str], CommandValidator] = {}
        self._baselines: OrderedDict[tuple[str, str, str], list[Diagnostic]] = OrderedDict()
        # (root, command) -> (epoch, diagnostics): runs before a write, and the last run.
        self._command_before: dict[tuple[Path, str], tuple[int, list[Diagnostic]]] = {}
        self._command_last: dict[tuple[Path, str], tuple[int, list[Diagnostic]]] = {}
        self._lock = threading.Lock()
        self._epoch = 0
        self._closed = False
        self._outlines: Outlines = {}  # navigation's document symbols, by file version
        self._answers: AnswerCache[Answer] = AnswerCache()  # navigation's answers
        # A server's worst case: start, a fresh first analysis, the second text, and one
        # restart and retry after a crash.
        startup, diagnostics = settings.startup_timeout_seconds, settings.diagnostics_timeout_seconds
        worst_server = 4 * startup + 4 * diagnostics
        self._run_timeout = worst_server + settings.command_timeout_seconds + SAFETY_MARGIN_SECONDS

    # --- targets and validators ------------------------------------------------------

    def root_of(self, abs_path: Path) -> Path:
        for root in self.roots:
            if abs_path == root or root in abs_path.parents:
                return root
        return self.roots[0]

    def display_path(self, abs_path: Path) -> str:
        root = self.root_of(abs_path)
        try:
            return abs_path.relative_to(root).as_posix()
        except ValueError:
            return abs_path.as_posix()

    def covers(self, path: str) -> bool:
        """Whether any validator checks files like ``path``."""
        return any(matches(path, c.patterns) for c in self.server_configs) or any(
            matches(path, c.patterns) for c in self.command_configs)

    def _server(self, root: Path, config: LanguageServerConfig) -> LanguageServer:
        key = (root, config.name)
        with self._lock:
            server = self._servers.get(key)
            if server is None:
                s = self.settings
                server = LanguageServer(
                    config.name, config.command, root,
                    initialization_options=config.initialization_options,
                    settings=(basedpyright_settings(s, root) if config is self._basedpyright
                              else config.settings),
                    settle_seconds=config.settle_seconds,
                    startup_timeout=s.startup_timeout_seconds,
                    diagnostics_timeout=s.diagnostics_timeout_seconds,
                    max_restarts=s.max_restarts)
                self._servers[key] = server
            return server

    def _command(self, root: Path, name: str) -> CommandValidator:
        key = (root, name)
        with self._lock:
            validator = self._commands.get(key)
            if validator is None:
                config = next(c for c in self.command_configs if c.name == name)
                validator = CommandValidator(config, root, self.settings.command_timeout_seconds)
                self._commands[key] = validator
            return validator

    def navigators(self) -> list[tuple[LanguageServer, list[str]]]:
        """Every server that was started, with the path patterns it serves."""
        with self._lock:
            started = dict(self._servers)
        patterns = {config.name: config.patterns for config in self.server_configs}
        return [(server, patterns.get(name, [])) for (_, name), server in started.items()]

    def navigate(self, call: SearchCall) -> SearchResult | None:
        """An exact answer from a running server, or None (see :mod:`sari_lspgate.navigation`).

        An answer computed since the last change is served again without asking
        (:mod:`sari_lspgate.answers` says when it holds).
        """
        servers = [(server, found) for server, found in self.navigators() if server.running]
        if not servers or self._closed:
            return None
        navigator = ExactNavigator(servers, self.display_path, self._outlines, self._answers,
                                   self._generation)
        kept = navigator.kept(call)
        if kept is not None:
            return kept
        definitions = []
        if self.definitions is not None:
            try:  # read here, on the caller's thread: the index is the caller's
                # the whole query: Class.method, module.func or path:line names one definition
                definitions = list(self.definitions(call.query, call.match))
            except Exception as exc:  # noqa: BLE001 - the server can still resolve the name
                log.info("lspgate: no definitions from the index: %r", exc)
        return self.loop.run(navigator.answer(call, definitions), timeout=self._run_timeout)

    def _generation(self, server: LanguageServer) -> tuple[int, int, int]:
        """What a kept answer of ``server`` depends on besides its files: the change epoch
        (moved by every change seen) and the server process and the texts sent to it."""
        with self._lock:
            epoch = self._epoch
        return (epoch, *server.generation)

    def server_pids(self) -> dict[str, int]:
        """Validator name -> process id of its running server (first root first)."""
        with self._lock:
            servers = list(self._servers.items())
        pids: dict[str, int] = {}
        for (_, name), server in servers:
            if server.pid is not None:
                pids.setdefault(name, server.pid)
        return pids

    # --- the phases of a change ------------------------------------------------------

    def before_write(self, targets: Sequence[ChangeTarget]) -> None:
        """Take the baselines that only exist before the write: command validators read disk."""
        jobs = []
        for target in targets:
            for config in self.command_configs:
                if not matches(target.path, config.patterns):
                    continue
                key = (target.root, config.name)
                with self._lock:
                    last = self._command_last.get(key)
                    if last is not None and last[0] == self._epoch:
                        # Nothing changed on disk since that run: it is the baseline.
                        self._command_before[key] = (self._epoch, last[1])
                        continue
                jobs.append((key, self._command(target.root, config.name), target.abs_path))
        if not jobs or self._closed:
            return

        async def run_all() -> list[list[Diagnostic] | None]:
            async def one(validator: CommandValidator, abs_path: Path) -> list[Diagnostic] | None:
                try:
                    return await validator.run(abs_path)
                except ValidatorUnavailable:
                    return None  # unknown baseline; the run after the write reports why
            return list(await asyncio.gather(*(one(v, p) for _, v, p in jobs)))

        results = self.loop.run(run_all(), self._run_timeout)
        with self._lock:
            for (key, _, _), found in zip(jobs, results, strict=True):
                if found is not None:
                    self._command_before[key] = (self._epoch, found)

    def note_change(self) -> None:
        """Files changed on disk (a write, or a change seen outside Sari), validated or not:
        a command validator's earlier run no longer describes the project."""
        with self._lock:
            self._epoch += 1

    def validate(self, target: ChangeTarget) -> list[ValidatorResult]:
        """Every validator covering ``target``: its baseline and its diagnostics now."""
        with self._lock:
            epoch = self._epoch
        servers = [self._server(target.root, c) for c in self.server_configs
                   if matches(target.path, c.patterns)]
        commands = [self._command(target.root, c.name) for c in self.command_configs
                    if matches(target.path, c.patterns)]
        if (not servers and not commands) or self._closed:
            return []

        async def run_all() -> list[ValidatorResult]:
            jobs = [self._validate_lsp(server, target) for server in servers]
            jobs += [self._validate_command(command, target, epoch) for command in commands]
            return list(await asyncio.gather(*jobs))

        return self.loop.run(run_all(), self._run_timeout)

    def check(self, targets: Sequence[ChangeTarget]) -> list[ValidatorResult]:
        """Diagnostics of the files as they are (``sari gate check``): no baseline."""
        plain = [ChangeTarget(t.root, t.abs_path, t.path, None, t.new_text, old_known=False)
                 for t in targets]

        async def run_all() -> list[ValidatorResult]:
            jobs = []
            seen_commands: set[tuple[Path, str]] = set()
            for target in plain:
                for config in self.server_configs:
                    if matches(target.path, config.patterns):
                        jobs.append(self._validate_lsp(self._server(target.root, config), target))
                for config in self.command_configs:
                    key = (target.root, config.name)
                    if matches(target.path, config.patterns) and key not in seen_commands:
                        seen_commands.add(key)
                        jobs.append(self._validate_command(
                            self._command(target.root, config.name), target, -1))
            return list(await asyncio.gather(*jobs))

        return self.loop.run(run_all(), self._run_timeout)

    # --- one validator ---------------------------------------------------------------

    async def _validate_lsp(self, server: LanguageServer, target: ChangeTarget
                            ) -> ValidatorResult:
        started = time.perf_counter()
        language_id = self._language_ids.get(server.name) or language_id_for(target.path)
        restarted = False
        try:
            baseline: list[Diagnostic] | None = None
            if target.old_known:
                baseline = [] if target.old_text is None else None
                if target.old_text is not None:
                    key = (server.name, str(target.abs_path), _digest(target.old_text))
                    baseline = self._cached(key)
                    if baseline is None:
                        baseline, restarted = await server.diagnostics(
                            target.abs_path, target.path, target.old_text, language_id)
                        self._remember(key, baseline)
            current: list[Diagnostic] = []
            if target.new_text is not None:
                current, again = await server.diagnostics(target.abs_path, target.path,
                                                          target.new_text, language_id)
                restarted = restarted or again
                # The next edit's "before" is this edit's "after": known from earlier.
                self._remember((server.name, str(target.abs_path), _digest(target.new_text)),
                               current)
        except ValidatorUnavailable as failure:
            return ValidatorResult.unavailable(server.name, "lsp", failure, [target.path],
                                               (time.perf_counter() - started) * 1000)
        return ValidatorResult(validator=server.name, kind="lsp", files=[target.path],
                               baseline=baseline, current=current, restarted=restarted,
                               elapsed_ms=(time.perf_counter() - started) * 1000)

    async def _validate_command(self, command: CommandValidator, target: ChangeTarget,
                                epoch: int) -> ValidatorResult:
        started = time.perf_counter()
        key = (target.root, command.name)
        with self._lock:
            before = self._command_before.pop(key, None)
        # Only a run from just before this change is its baseline (one change since it);
        # a vetoed write or an interleaved change leaves the baseline unknown.
        baseline = before[1] if before is not None and before[0] == epoch - 1 else None
        try:
            current = await command.run(target.abs_path)
        except ValidatorUnavailable as failure:
            return ValidatorResult.unavailable(command.name, "command", failure, [target.path],
                                               (time.perf_counter() - started) * 1000)
        if epoch >= 0:
            with self._lock:
                self._command_last[key] = (epoch, current)
        files = sorted({d.path for d in current} | {d.path for d in baseline or []}
                       | {target.path})
        return ValidatorResult(validator=command.name, kind="command", files=files,
                               baseline=baseline, current=current,
                               elapsed_ms=(time.perf_counter() - started) * 1000)

    def _cached(self, key: tuple[str, str, str]) -> list[Diagnostic] | None:
        with self._lock:
            found = self._baselines.get(key)
            if found is not None:
                self._baselines.move_to_end(key)
            return None if found is None else list(found)

    def _remember(self, key: tuple[str, str, str], diagnostics: list[Diagnostic]) -> None:
        with self._lock:
            self._baselines[key] = list(diagnostics)
            self._baselines.move_to_end(key)
            while len(self._baselines) > BASELINE_CACHE_ENTRIES:
                self._baselines.popitem(last=False)

    # --- lifecycle -------------------------------------------------------------------

    def prewarm(self) -> None:
        """Start the servers of the first root in the background; failures surface later."""
        root = self.roots[0]
        for config in self.server_configs:
            server = self._server(root, config)

            async def start(server: LanguageServer = server) -> None:
                try:
                    await server.warm()
                except ValidatorUnavailable as failure:
                    log.warning("lspgate: %s", failure.reason)

            self.loop.submit(start())

    def close(self) -> None:
        """Shut every server down (politely, then by force) and stop the loop."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            servers = list(self._servers.values())
        if servers and self.loop.running:
            async def stop_all() -> None:
                await asyncio.gather(*(server.stop() for server in servers),
                                     return_exceptions=True)
            try:
                self.loop.run(stop_all(), SAFETY_MARGIN_SECONDS)
            except Exception as exc:  # noqa: BLE001 - shutting down: report, never raise
                log.warning("lspgate: stopping language servers: %r", exc)
        self.loop.close()
