"""Throwaway cache and state folders for one bench run, removed when it ends.

A bench that indexes a real tree leaves its index behind otherwise: the standard library's
is about 800 MB, so a folder per run fills a disk within a day of measuring. A folder the
caller names (``SARI_CACHE_DIR``, ``SARI_STATE_DIR`` already set) is the caller's, and kept.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

FOLDERS = (("SARI_CACHE_DIR", "sari-bench-cache-"), ("SARI_STATE_DIR", "sari-bench-state-"))


@contextlib.contextmanager
def scratch_folders() -> Iterator[None]:
    """Point every unset Sari folder at a temporary one for the block, then remove it."""
    with contextlib.ExitStack() as stack:
        for name, prefix in FOLDERS:
            if name not in os.environ:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix))
                os.environ[name] = folder
                stack.callback(os.environ.pop, name, None)
        yield
