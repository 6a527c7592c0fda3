"""Who may set a setting: the operator alone, or the workspace too.

The workspace belongs to the agent: it can write ``sari.toml`` and ``pyproject.toml``
like any other file. A setting that runs a program, or that can weaken a guard, is
therefore declared operator-only by the model that owns it::

    command: Annotated[list[str], OperatorOnly("runs a program")] = Field(...)
    max_reads: Annotated[int, OperatorOnly("a higher limit weakens the budget",
                                           workspace_may="lower")] = Field(25, ge=1)

The settings loader then honours it only from the operator's side (the user's own
config file, the environment, explicit kernel overrides) unless the operator trusts the
workspace, and ignores it in a workspace file with a warning naming the key. The
kernel knows no setting by name: the marker is all it looks at.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

# The directions a workspace file may still move an operator-only setting, because that
# direction only makes Sari stricter: a lower number, a higher number, a list holding at
# least the baseline's entries, true, false; or an ordered tuple of choices from the
# loosest to the strictest (a workspace may pick one no looser than the baseline).
Direction = Literal["lower", "raise", "add", "enable", "disable"] | tuple[Any, ...]


@dataclass(frozen=True)
class OperatorOnly:
    """Field metadata: only the operator may set this setting (or loosen it).

    :ivar why: what the setting can do in the wrong hands, shown in the warning and in
        the configuration reference (``runs a program``, ``turns redaction off``).
    :ivar workspace_may: a direction in which a workspace file may still move the value,
        since it only tightens (None: a workspace value is never honoured).
    """

    why: str
    workspace_may: Direction | None = None

    def allows(self, workspace_value: Any, baseline: Any) -> bool:
        """Whether ``workspace_value`` is no looser than ``baseline`` (the value the
        setting has without the workspace files)."""
        rule = self.workspace_may
        try:
            if rule is None:
                return False
            if isinstance(rule, tuple):
                return rule.index(workspace_value) >= rule.index(baseline)
            if rule == "add":
                return isinstance(workspace_value, list) and all(
                    item in workspace_value for item in baseline)
            if rule in ("enable", "disable"):
                return workspace_value is (rule == "enable")
            if isinstance(workspace_value, bool) or not isinstance(workspace_value, (int, float)):
                return False
            return workspace_value <= baseline if rule == "lower" else workspace_value >= baseline
        except (TypeError, ValueError):  # a value of the wrong type is no tightening
            return False

    def describe(self) -> str:
        """Who may set it, in words for the reference and the warning."""
        rule = self.workspace_may
        if rule is None:
            return "operator only"
        if isinstance(rule, tuple):
            return f"operator; a workspace may only go towards `{rule[-1]}`"
        return {"lower": "operator; a workspace may only lower it",
                "raise": "operator; a workspace may only raise it",
                "add": "operator; a workspace may only add entries",
                "enable": "operator; a workspace may only set it to true",
                "disable": "operator; a workspace may only set it to false"}[rule]


def operator_only(model: type[BaseModel], field: str) -> OperatorOnly | None:
    """The marker of ``model.field``, if the field carries one."""
    info = model.model_fields.get(field)
    if info is None:
        return None
    return next((item for item in info.metadata if isinstance(item, OperatorOnly)), None)


def operator_only_fields(model: type[BaseModel]) -> dict[str, OperatorOnly]:
    """Every operator-only field of ``model``, by name."""
    return {name: marker for name in model.model_fields
            if (marker := operator_only(model, name)) is not None}


def is_trusted(workspace: Path, trusted: Iterable[str | Path]) -> bool:
    """Whether ``workspace`` is one of the folders the operator trusts, or inside one."""
    try:
        root = workspace.expanduser().resolve()
    except OSError:
        return False
    for entry in trusted:
        try:
            folder = Path(entry).expanduser().resolve()
        except (OSError, RuntimeError):
            continue
        if root == folder or folder in root.parents:
            return True
    return False
