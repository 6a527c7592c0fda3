"""A checker run as a command (``cargo check``, ``tsc --noEmit``, ``go vet``...).

Commands check the files on disk, so the baseline of a Sari edit is taken before the
write; their output covers the whole project, so an edit that breaks a caller in
another file is caught too. A command that outlives its timeout is killed with its
whole process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from sari_lspgate.diagnostics import Diagnostic
from sari_lspgate.parsers import PARSERS
from sari_lspgate.settings import CommandValidatorConfig
from sari_lspgate.validators import ValidatorUnavailable, resolve_executable

OUTPUT_TAIL_CHARS = 300


class CommandValidator:
    """One configured command for one workspace root."""

    def __init__(self, config: CommandValidatorConfig, root: Path, timeout: float) -> None:
        self.config = config
        self.name = config.name
        self.root = root
        self.timeout = timeout
        self.cwd = (root / config.cwd).resolve() if config.cwd else root

    def display_path(self, printed: str) -> str:
        """A path as the tool printed it -> workspace-relative (absolute when outside)."""
        path = Path(printed)
        if not path.is_absolute():
            path = self.cwd / path
        path = Path(os.path.normpath(path))
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            try:
                return path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                return path.as_posix()

    async def run(self, abs_path: Path) -> list[Diagnostic]:
        """Run the command and parse every diagnostic it printed.

        :raises ValidatorUnavailable: the executable is missing, the run timed out, or it
            failed without printing a single diagnostic.
        """
        argv = [part.replace("{file}", str(abs_path)).replace("{root}", str(self.root))
                for part in self.config.command]
        executable = resolve_executable(argv[0])
        if executable is None:
            raise ValidatorUnavailable(f"{self.name}: executable {argv[0]!r} not found",
                                       cause="missing")
        try:
            process = await asyncio.create_subprocess_exec(
                executable, *argv[1:], cwd=str(self.cwd), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=sys.platform != "win32")
        except OSError as exc:
            raise ValidatorUnavailable(f"{self.name}: cannot start: {exc}",
                                       cause="missing") from exc
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), self.timeout)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            _kill_group(process)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 5)
            raise ValidatorUnavailable(f"{self.name} did not finish within {self.timeout:g}s",
                                       cause="timeout") from exc
        except asyncio.CancelledError:
            _kill_group(process)
            raise
        out = stdout.decode("utf-8", "replace")
        err = stderr.decode("utf-8", "replace")
        found = PARSERS[self.config.parser](out, err, self.name, self.display_path)
        if process.returncode != 0 and not found:
            tail = (err.strip() or out.strip())[-OUTPUT_TAIL_CHARS:] or "no output"
            raise ValidatorUnavailable(
                f"{self.name} exited with code {process.returncode} and reported no "
                f"diagnostics: {tail}", cause="crashed")
        return found


def _kill_group(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover
            process.kill()
