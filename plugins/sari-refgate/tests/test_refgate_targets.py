"""Read targets and search paths are compared in one workspace-relative spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_refgate.targets import normalize_path


@pytest.mark.parametrize(("spelling", "expected"), [
    ("app/x.py", "app/x.py"),
    ("./app/x.py", "app/x.py"),
    ("app//lib/../x.py", "app/x.py"),
    ("app\\x.py", "app/x.py"),
    ("/work/ws/app/x.py", "app/x.py"),
    ("/elsewhere/app/x.py", "/elsewhere/app/x.py"),
])
def test_one_root(spelling: str, expected: str) -> None:
    assert normalize_path(spelling, [Path("/work/ws")]) == expected


def test_several_roots_are_named_by_their_folder_like_the_engine_does() -> None:
    roots = [Path("/work/api"), Path("/work/web")]
    assert normalize_path("/work/web/src/x.ts", roots) == "web/src/x.ts"
    assert normalize_path("web/src/x.ts", roots) == "web/src/x.ts"
    same_names = [Path("/a/app"), Path("/b/app")]
    assert normalize_path("/b/app/x.py", same_names) == "app~1/x.py"
