"""liblz4's partial block decoder, through the library's own C interface.

The ``lz4`` package decodes a block whole and offers no partial decode. liblz4 itself
does: ``LZ4_decompress_safe_partial`` (bounds-checked: it never reads past the block
nor writes past the buffer it is given) is part of its stable interface, and any liblz4
reads the blocks the ``lz4`` package writes (one format). So the system's shared liblz4
is loaded by name. This module was written for liblz4 1.9 and 1.10 (from 1.9.0 the
function stops at the length asked for); another version, or no shared liblz4 at all,
is said in the log once and the caller decodes whole texts.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable
from functools import lru_cache

log = logging.getLogger(__name__)

# The shared library's names, per platform (the first that loads is used).
LIBRARY_NAMES = {
    "linux": ("liblz4.so.1", "liblz4.so"),
    "darwin": ("liblz4.1.dylib", "liblz4.dylib", "/opt/homebrew/lib/liblz4.1.dylib",
               "/usr/local/lib/liblz4.1.dylib"),
    "win32": ("liblz4.dll", "lz4.dll"),
}
WRITTEN_FOR = ((1, 9), (1, 10))  # (major, minor) releases this module was checked against


def version_text(number: int) -> str:
    """``LZ4_versionNumber()``'s value as ``major.minor.release``."""
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def supported(number: int) -> bool:
    """Whether this module was written for liblz4 version ``number``."""
    return (number // 10000, number // 100 % 100) in WRITTEN_FOR


def _load() -> ctypes.CDLL | None:
    for prefix, names in LIBRARY_NAMES.items():
        if sys.platform.startswith(prefix):
            for name in names:
                try:
                    return ctypes.CDLL(name)
                except OSError:
                    continue
    return None


@lru_cache(maxsize=1)
def partial_decoder() -> Callable[..., int] | None:
    """``LZ4_decompress_safe_partial(src, dst, src_size, target_size, dst_capacity)`` of
    a liblz4 this module was written for; None (said once in the log) otherwise."""
    library = _load()
    if library is None:
        log.info("sari: no shared liblz4 here; stored texts are decoded whole")
        return None
    try:
        number = int(library.LZ4_versionNumber())
        function = library.LZ4_decompress_safe_partial
    except AttributeError:
        log.warning("sari: the shared liblz4 lacks its partial decoder; stored texts are "
                    "decoded whole")
        return None
    if not supported(number):
        written = " and ".join(f"{major}.{minor}" for major, minor in WRITTEN_FOR)
        log.warning("sari: liblz4 %s found, the partial decoder was written for %s; "
                    "stored texts are decoded whole", version_text(number), written)
        return None
    function.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int]
    function.restype = ctypes.c_int
    return function
