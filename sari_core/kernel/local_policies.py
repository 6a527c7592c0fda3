"""Local policies: a folder of plain Python modules the operator names, loaded like plugins.

A team's five-line rule need not be a distribution. The operator names a folder
(``SARI_PLUGINS_DIR``, ``sari --plugins-dir DIR``, or ``plugins_dir`` in the user's own
config file; never a workspace setting, which an agent could write), and every ``*.py`` module in it (not starting with ``_``) is imported
and registered as a plugin named after the file (``vendor_cap.py`` is ``vendor_cap``), its
module-level ``@hookimpl`` functions its hooks. ``SARI_PLUGINS`` and
``SARI_DISABLE_PLUGINS`` apply to them by that name.

A module that fails to import is reported with its path and line (in the log, and by
``sari plugins``), and the kernel starts without it. Sari's own ``write`` and ``edit``
refuse every path inside the folder (:class:`PolicyFolderGuard`): the policies that bind
an agent are not the agent's to rewrite.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from sari_core.errors import ErrorCode
from sari_core.kernel.loading import ALLOW_ENV, DENY_ENV, PluginInfo, env_names, plugin_enabled
from sari_core.kernel.manager import hookimpl
from sari_core.kernel.policy_folder import policy_modules
from sari_core.kernel.verdicts import Verdict

if TYPE_CHECKING:
    from sari_core.kernel.manager import SariPluginManager
    from sari_core.models import MutationEvent

MODULE_PREFIX = "sari_local_policies."
GUARD_NAME = "sari.policy-folder-guard"

log = logging.getLogger(__name__)


def import_failure(path: Path, exc: BaseException) -> str:
    """``path:line: Error: message`` for a module that failed to import: the line in the
    module itself where it failed (or the line Python could not parse)."""
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{path}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if Path(frame.filename) == path]
    where = f"{path}:{frames[-1].lineno}" if frames else str(path)
    return f"{where}: {type(exc).__name__}: {exc}"


def import_policy(path: Path) -> ModuleType:
    """Import one policy module from its file (a fresh module each time)."""
    name = MODULE_PREFIX + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not an importable Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def load_local_policies(pm: SariPluginManager, folder: Path) -> list[PluginInfo]:
    """Register every policy module of ``folder`` on ``pm``; never raises for a bad module.

    :return: one :class:`PluginInfo` per module, a failed one with its ``path:line`` error.
    """
    allow = env_names(ALLOW_ENV)
    deny = set(env_names(DENY_ENV) or ())
    found: list[PluginInfo] = []
    for path in policy_modules(folder):
        name = path.stem
        enabled = plugin_enabled(name, allow, deny)
        error = None
        if enabled and pm.get_plugin(name) is None:
            try:
                pm.register(import_policy(path), name=name)
            except Exception as exc:  # noqa: BLE001 - reported with its path and line
                error = import_failure(path, exc)
                log.error("local policy %s not loaded: %s", name, error)
        found.append(PluginInfo(name=name, distribution=f"local policy {path}", version=None,
                                hooks=pm.hooks_of(name) if enabled and error is None else (),
                                enabled=enabled and error is None, builtin=False,
                                error=error))
    return found


class PolicyFolderGuard:
    """Refuses Sari's own writes and edits inside the local policy folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def inside(self, path: str) -> bool:
        resolved = Path(os.path.realpath(path))
        return resolved == self.folder or self.folder in resolved.parents

    @hookimpl(tryfirst=True)
    def on_mutation(self, event: MutationEvent) -> Verdict | None:
        if event.phase != "before" or event.source != "sari":
            return None
        refused = [change.path for change in event.changes if self.inside(change.abs_path)]
        if not refused:
            return None
        return Verdict.block(
            error_code=ErrorCode.PROTECTED_PATH,
            message=f"{refused[0]!r} is in the operator's local policy folder "
                    f"({self.folder}), which Sari does not write or edit.",
            hint="Policies are changed by the operator, outside the agent's tools.")
