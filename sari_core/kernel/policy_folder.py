"""Where the operator's policy folder is, and its modules: read without importing them.

Kept apart from :mod:`sari_core.kernel.local_policies`, which imports and registers the
modules, so that a command that only needs to know whether there are any (``sari hook``,
run on each of a client's tool calls) imports neither the kernel nor pydantic.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from sari_core.kernel.loading import PLUGINS_DIR_ENV
from sari_core.locations import config_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_KEY = "plugins_dir"


def plugins_dir(environ: Mapping[str, str] | None = None,
                workspace: Path | None = None, workspaces: Iterable[Path] = ()) -> Path | None:
    """The operator's policy folder, resolved; None when none is named.

    ``SARI_PLUGINS_DIR`` first, else ``plugins_dir`` at the top of the user's own config
    file (relative to that file's folder) — unless that file lies in ``workspace`` or any
    of ``workspaces`` (every root of a workspace), where the agent could write it.
    """
    env = os.environ if environ is None else environ
    raw = env.get(PLUGINS_DIR_ENV, "").strip()
    if raw:
        return Path(raw).expanduser().resolve()
    path = config_file(env)
    roots = [*([workspace] if workspace is not None else []), *workspaces]
    if any(root.resolve() in path.resolve().parents for root in roots):
        return None
    try:
        named = tomllib.loads(path.read_text(encoding="utf-8")).get(CONFIG_KEY)
    except (OSError, tomllib.TOMLDecodeError):
        return None  # no file, or one the settings loader reports itself
    if not isinstance(named, str) or not named.strip():
        return None
    return (path.parent / Path(named.strip()).expanduser()).resolve()


def policy_modules(folder: Path) -> list[Path]:
    """The policy modules of ``folder``, by name."""
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*.py") if not path.name.startswith("_"))
