"""Calls handed to policies under the names the engine's responses use.

With several roots a response names a file ``<root folder>/<path>``, but the engine also
finds a path spelled without that prefix (``shop/cart.py`` for the first root's
``shop/cart.py``, shown as ``shop/shop/cart.py``), as a client names a file of the
project it runs in. Policies compare a read with the search hits it follows by name, so
such a read is renamed before they see it: otherwise a search that returned the file
would not count for the read of it.
"""

from __future__ import annotations

from sari_core.engine_protocol import Engine, NamesFiles
from sari_core.models import ReadCall
from sari_core.targets import normalize_path, root_prefixes


def engine_name(engine: Engine, spelling: str) -> str | None:
    """The engine's name for ``spelling`` when that is the same path under a root's prefix;
    None when the spelling already is the engine's name (or the engine cannot tell)."""
    prefixes = root_prefixes(engine.roots)
    if prefixes is None or not isinstance(engine, NamesFiles):
        return None
    spelled = normalize_path(spelling, engine.roots)
    name = engine.file_name(spelling) if spelled else None
    if name is None or name == spelled:
        return None
    return name if any(name == f"{prefix}/{spelled}" for prefix in prefixes) else None


def read_as_named(engine: Engine, call: ReadCall) -> ReadCall:
    """``call`` with its file (``path`` for a symbol read) under the engine's name."""
    field = "path" if call.mode == "symbol" else "target"
    spelling = getattr(call, field)
    name = engine_name(engine, spelling) if spelling else None
    return call if name is None else call.model_copy(update={field: name})
