"""A process that swaps a workspace folder for a symlink to outside, over and over.

``python folder_swapper.py FOLDER OUTSIDE STOP_FILE HOLD_SECONDS`` renames ``FOLDER`` away, puts
a symlink to ``OUTSIDE`` in its place, then puts the folder back, until
``STOP_FILE`` exists (or 120 s pass). It runs in its own process so the swaps
interleave with the engine's calls on another core, not at the GIL's pace. The
folder is back in place when it exits.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

LIMIT_SECONDS = 120.0
HOLD_SECONDS = 0.0002  # by default each state (folder, symlink) lasts about this long


def _hold(seconds: float) -> None:
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


def _restore(folder: str, parked: str) -> None:
    """Put the parked folder back; files a writer created meanwhile in a new folder of
    the same name are moved into it first."""
    while True:
        try:
            os.rename(parked, folder)
            return
        except OSError:
            if os.path.islink(folder):
                os.unlink(folder)
                continue
            for name in os.listdir(folder):
                with contextlib.suppress(OSError):  # a temporary file renamed meanwhile
                    os.replace(os.path.join(folder, name), os.path.join(parked, name))
            try:
                os.rmdir(folder)
            except OSError:
                continue


def swap(folder: str, outside: str, stop: str, hold: float = HOLD_SECONDS) -> int:
    parked = folder + ".parked"
    swaps = 0
    deadline = time.monotonic() + LIMIT_SECONDS
    while not os.path.exists(stop) and time.monotonic() < deadline:
        os.rename(folder, parked)
        try:
            os.symlink(outside, folder)
        except FileExistsError:  # a writer made the folder again in the gap
            pass
        else:
            _hold(hold)
            os.unlink(folder)
            swaps += 1
        _restore(folder, parked)
        _hold(hold)
    return swaps


def start(folder: Path, outside: Path, stop: Path, hold: float = HOLD_SECONDS
          ) -> subprocess.Popen[str]:
    """Start swapping in a child process (stop it with :func:`finish`); each state lasts
    about ``hold`` seconds."""
    return subprocess.Popen([sys.executable, __file__, str(folder), str(outside), str(stop),
                             str(hold)], stdout=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str], stop: Path) -> int:
    """Stop the swapping; the number of swaps made."""
    stop.touch()
    out, _ = process.communicate(timeout=LIMIT_SECONDS)
    assert process.returncode == 0, out
    return int(out.strip() or 0)


if __name__ == "__main__":
    print(swap(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
