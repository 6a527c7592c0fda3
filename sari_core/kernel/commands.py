"""CLI subcommand registry shared by the core CLI and plugins (``sari_register_commands``),
and the finding a plugin adds to ``sari doctor`` (``sari_doctor_checks``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Configure = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Command:
    """A ``sari`` subcommand: ``configure`` adds its arguments, ``run`` returns the exit code."""

    name: str
    help: str
    configure: Configure
    run: Run


@dataclass(frozen=True)
class DoctorCheck:
    """One line of ``sari doctor``: ``ok``, ``warn`` (works, with less) or ``error`` (broken).

    :ivar name: what was checked (``execution log``).
    :ivar status: ``error`` makes ``sari doctor`` exit 1.
    :ivar detail: what was found, and for ``warn``/``error`` what to do.
    """

    name: str
    status: Literal["ok", "warn", "error"]
    detail: str


class CommandRegistry:
    """Collects subcommands; ``sari`` builds its argparse parser from them."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}

    def add(self, name: str, help: str, configure: Configure, run: Run) -> None:
        if name in self._commands:
            raise ValueError(f"sari subcommand {name!r} is registered twice")
        self._commands[name] = Command(name, help, configure, run)

    def commands(self) -> list[Command]:
        return [self._commands[name] for name in sorted(self._commands)]
