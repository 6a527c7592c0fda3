"""Who may set a setting: the operator alone, or the workspace too, and in which direction.

The workspace belongs to the agent: it can write ``sari.toml`` and ``pyproject.toml``
like any other file. So every field of every settings model declares which way it is
tighter, on the field itself::

    command: Annotated[list[str], OperatorOnly("runs a program")] = Field(...)
    max_reads: Annotated[int, Tightens("lower", "a higher limit weakens the budget")] = 25
    title: Annotated[str, Tightens("either", "only changes how results look")] = "x"

From a workspace file a value is honoured only when it moves the setting the declared
way from the operator's value (``either``: no value loosens anything); anything else —
a loosening, an operator-only field, a field that declares nothing — is the operator's
alone (their own config file, the environment, explicit kernel overrides, or a workspace
they trust), and the workspace's value is ignored with a warning naming the key. The
kernel knows no setting by name: :func:`workspace_rule` is all it looks at, in one place.
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
# ``either``: no value of the field loosens a guard (how results look, cache tiering), so a
# workspace may set any value.
Direction = Literal["lower", "raise", "add", "enable", "disable", "either"] | tuple[Any, ...]


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
            if rule == "either":
                return True
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
        return {"either": "operator or workspace: no value loosens a guard",
                "lower": "operator; a workspace may only lower it",
                "raise": "operator; a workspace may only raise it",
                "add": "operator; a workspace may only add entries",
                "enable": "operator; a workspace may only set it to true",
                "disable": "operator; a workspace may only set it to false"}[rule]


class Tightens(OperatorOnly):
    """Field metadata: the direction in which the setting is tighter.

    A workspace file may move the value that way only; a looser value is the operator's.
    ``Tightens("lower", why)`` reads as ``OperatorOnly(why, workspace_may="lower")``.

    :param direction: ``lower``, ``raise``, ``add``, ``enable``, ``disable``, an ordered
        tuple of choices from the loosest to the strictest, or ``either`` (no value
        loosens a guard).
    :param why: what a looser value does, shown in the warning and the reference.
    """

    def __init__(self, direction: Direction, why: str) -> None:
        super().__init__(why, workspace_may=direction)


# What a field that declares no direction is treated as: the operator's alone.
UNDECLARED = OperatorOnly("it declares no direction in which it is tighter")


def operator_only(model: type[BaseModel], field: str) -> OperatorOnly | None:
    """The marker (:class:`OperatorOnly` or :class:`Tightens`) of ``model.field``, if any."""
    info = model.model_fields.get(field)
    if info is None:
        return None
    return next((item for item in info.metadata if isinstance(item, OperatorOnly)), None)


def workspace_rule(model: type[BaseModel], field: str) -> OperatorOnly:
    """What a workspace file may do with ``model.field``: its declared marker, or, when it
    declares none, nothing (:data:`UNDECLARED`)."""
    return operator_only(model, field) or UNDECLARED


def undeclared_fields(model: type[BaseModel]) -> list[str]:
    """The fields of ``model`` that declare no direction (a plugin author's omission)."""
    return [name for name in model.model_fields if operator_only(model, name) is None]


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
