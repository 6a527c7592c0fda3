"""Secretguard tests run only where sari-secretguard is installed."""

from importlib.util import find_spec

# Without sari-secretguard installed nothing here can run: the folder is left out of collection.
# (A module-level importorskip in a conftest stops pytest itself from starting.)
PLUGIN_MISSING = find_spec("sari_secretguard") is None
collect_ignore_glob = ["*"] if PLUGIN_MISSING else []


def pytest_report_header() -> str | None:
    return "sari-secretguard is not installed: plugins/sari-secretguard/tests is left out" if PLUGIN_MISSING else None

