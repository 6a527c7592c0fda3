"""Finding the installed plugins reads their metadata with the standard library's reader,
which pydantic imports anyway: no second reader (the ``importlib_metadata`` backport) is
imported for the same answer."""

from __future__ import annotations

import os
import subprocess
import sys

from sari_core.kernel.loading import installed_entry_points


def test_finding_plugins_imports_no_metadata_backport() -> None:
    probe = ("import sys\nfrom sari_core.kernel.manager import SariPluginManager\n"
             "SariPluginManager().load_entry_points(strict=False)\n"
             "print('importlib_metadata' in sys.modules)")
    env = {name: value for name, value in os.environ.items()  # every installed plugin loads
           if name not in ("SARI_PLUGINS", "SARI_DISABLE_PLUGINS")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    assert out == ["False"]


def test_the_standard_reader_finds_the_entry_points_by_name() -> None:
    from importlib.metadata import entry_points

    expected = sorted(entry_point.name for entry_point in entry_points(group="pytest11"))
    found = installed_entry_points("pytest11")
    assert [entry_point.name for entry_point in found] == expected
    assert "sari" in expected  # sari-core's own pytest plugin, so the list is not empty
    assert all(entry_point.dist is not None for entry_point in found)
