"""Persistence of a session's tier state: one JSON file per session slot, written atomically.

Files live in ``<state_dir>/ripple/<workspace_hash>/<slot>.json`` — never in the
workspace. A session that names a ``session_id`` has its own slot; connection-keyed
sessions share the workspace's ``default`` slot, since a connection id does not
survive a restart.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from sari_core import private_dir, state_dir

log = logging.getLogger(__name__)
DEFAULT_SLOT = "default"


def slot_name(session_id: str | None) -> str:
    """The file stem of a session's state: hashed, so any session id is a safe name."""
    if not session_id:
        return DEFAULT_SLOT
    return "sid-" + hashlib.sha1(session_id.encode("utf-8")).hexdigest()[:16]


def state_path(workspace_hash: str, session_id: str | None, base: Path | None = None) -> Path:
    return (base or state_dir()) / "ripple" / workspace_hash / f"{slot_name(session_id)}.json"


def load_state(path: Path) -> dict[str, Any] | None:
    """The saved state, or None when there is none or it cannot be read (fresh start)."""
    try:
        with path.open("r", encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as exc:
        log.warning("ripple: ignoring unreadable state file %s: %s", path, exc)
        return None
    if not isinstance(data, dict):
        log.warning("ripple: ignoring state file %s: not a JSON object", path)
        return None
    return data


def save_state(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically: a temporary file in the same folder, fsync, rename."""
    private_dir(path.parent)  # 0700: what a session read is the user's alone (mkstemp: 0600)
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
