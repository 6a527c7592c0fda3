"""Sari's own folders are out of reach of its tools, whatever the workspace roots are.

The operator's config (``config.toml``, the policy folder it names), Sari's state (the
HTTP token, the execution log, the server log) and its cache (the index, which holds every
file's text) steer or record Sari itself. A workspace root may hold them — a home folder
served as a workspace, as any one of several roots — and then an agent could read the
token, search the log, or write a config and a policy module the next server obeys. So
every root is checked, and a ``read``, ``search``, ``edit`` or ``write`` of a path inside
one of these folders is refused (a search leaves such files out, and out of its count).

The rule is a kernel guard the kernel registers itself, whatever plugins are
installed; with no Sari folder inside or above a root it is not registered at all (the
engine already refuses paths that leave the roots, symlinks included).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import platformdirs

from sari_core.errors import ErrorCode
from sari_core.kernel.manager import hookimpl
from sari_core.kernel.policy_folder import plugins_dir
from sari_core.kernel.sessions import Session
from sari_core.kernel.verdicts import Verdict
from sari_core.locations import cache_dir, config_file, state_dir
from sari_core.models import MutationEvent, ReadCall, ReadResult, SearchCall, SearchResult
from sari_core.targets import normalize_path, root_prefixes

GUARD_NAME = "sari.own-folders-guard"
HINT = ("Sari's own config, state, cache and policy folders are the operator's; they are "
        "changed outside the agent's tools.")


def _real(path: Path | str) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def own_folders(environ: Mapping[str, str] | None = None,
                roots: Sequence[Path] = ()) -> list[str]:
    """Every folder (and file) of Sari's own, as real paths: the state, cache and config
    folders (as set, and the platform's defaults), the operator's config file and the
    policy folder."""
    found = [state_dir(), cache_dir(), config_file(environ),
             Path(platformdirs.user_state_dir("sari")), Path(platformdirs.user_cache_dir("sari")),
             Path(platformdirs.user_config_dir("sari"))]
    policies = plugins_dir(environ, workspaces=roots)
    if policies is not None:
        found.append(policies)
    return sorted({_real(path) for path in found})


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def reachable_folders(roots: Iterable[Path], folders: Iterable[str]) -> list[str]:
    """The folders of ``folders`` that lie inside a root, or hold one."""
    real_roots = [_real(root) for root in roots]
    return [folder for folder in folders
            if any(_inside(folder, root) or _inside(root, folder) for root in real_roots)]


class OwnFoldersGuard:
    """Refuses reads, searches and writes of paths inside Sari's own folders.

    :param roots: the workspace roots, in the engine's order.
    :param folders: the real paths of Sari's folders reachable through them.
    """

    def __init__(self, roots: Sequence[Path], folders: Sequence[str]) -> None:
        self.roots = list(roots)
        self.folders = list(folders)
        self._prefixes = root_prefixes(self.roots)

    def owns(self, path: str | None) -> bool:
        """Whether ``path`` (as a call or a response names it) lies in one of the folders,
        under any root it may belong to."""
        if not path:
            return False
        if os.path.isabs(path):
            return self._owns_real(_real(path))
        name = normalize_path(path, self.roots)
        candidates: list[tuple[Path, str]] = [(root, name) for root in self.roots]
        if self._prefixes is not None:
            head, _, rest = name.partition("/")
            if head in self._prefixes:
                candidates.insert(0, (self.roots[self._prefixes.index(head)], rest))
        return any(self._owns_real(_real(root / rel)) for root, rel in candidates)

    def _owns_real(self, real: str) -> bool:
        return any(_inside(real, folder) for folder in self.folders)

    def _refusal(self, path: str) -> Verdict:
        return Verdict.block(error_code=ErrorCode.PROTECTED_PATH,
                             message=f"{path!r} is in one of Sari's own folders, which its "
                                     "tools do not read, search or write.",
                             hint=HINT)

    @hookimpl(tryfirst=True)
    def on_read_enter(self, call: ReadCall) -> Verdict | None:
        for path in (call.target, call.path):
            if self.owns(path):
                return self._refusal(str(path))
        return None

    @hookimpl(tryfirst=True)
    def on_read_exit(self, call: ReadCall, result: ReadResult) -> Verdict | None:
        if self.owns(result.path):
            return self._refusal(result.path)
        # A diff of a folder holding one of them (a home folder under git) shows its files.
        files = result.extra.get("files", []) if result.diff is not None else []
        owned = [str(name) for name in files if self.owns(str(name))]
        return self._refusal(owned[0]) if owned else None

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> None:
        shown = {match.path for match in result.matches}
        owned = {path for path in shown if self.owns(path)}
        if owned:
            result.matches = [match for match in result.matches if match.path not in owned]
        if result.total <= len(shown):
            result.total -= len(owned)
            return
        # Files beyond the matches count too: a count that moves with a guessed prefix of
        # the token would confirm it.
        every_file = session.matching_files(call) if result.index_ready else None
        if every_file is not None:
            result.total -= sum(1 for path in every_file if self.owns(path))
        elif owned:
            result.total = len(shown - owned)
            result.truncated = True

    @hookimpl(tryfirst=True)
    def on_mutation(self, event: MutationEvent) -> Verdict | None:
        if event.phase != "before":
            return None
        refused = [change.path for change in event.changes
                   if self._owns_real(_real(change.abs_path)) or self.owns(change.path)]
        return self._refusal(refused[0]) if refused else None
