"""A regex with a required literal: the trigram index picks the candidate files and
ripgrep reads just those. The files found are the index's own answer, case rules, globs
and line anchors included."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine import Workspace
from sari_core.engine.scan import regex_routing
from sari_core.engine.search.regex import compile_query
from sari_core.engine.search.regex_plan import regex_files
from sari_core.models import SearchCall

FILES = {
    "pkg/errors.py": "class BadThing(Exception):\n    pass\n\n\ndef check(self):\n"
                     "    raise ValueError(f\"bad {self}\")\n",
    "pkg/main.py": "import os\nimport sys\n\nRELEASE_DATE = '2024-01-31'\n",
    "pkg/other.py": "import osmosis\nfrom os import path\nRAISE valueerror(\n",
    "docs/notes.md": "Raise ValueError( when bad.\nimport os\n",
}
PATTERNS = [r"import (os|sys)$", r"raise \w+Error\(", r"^class \w+\(Exception\)",
            r"RELEASE_\w+ = ", r"from os import \w+"]


@pytest.fixture
def engine(tmp_path: Path) -> Workspace:
    for rel, text in FILES.items():
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text(text)
    workspace = Workspace([tmp_path / "tree"], index_path=tmp_path / "index.sqlite",
                          watch=False)
    workspace.ensure_index(progress=False)
    return workspace


@pytest.mark.parametrize("case_sensitive", [False, True])
@pytest.mark.parametrize("glob", [None, "*.py"])
def test_ripgrep_over_the_candidates_finds_the_index_s_own_files(
        engine: Workspace, case_sensitive: bool, glob: str | None) -> None:
    with engine:
        for pattern in PATTERNS:
            call = SearchCall(query=pattern, kind="regex", case_sensitive=case_sensitive,
                              path_glob=glob)
            by_rg = regex_routing.ripgrep_among_candidates(engine.scan, engine.store, call)
            by_index = regex_files(engine.store, compile_query(pattern,
                                                               case_sensitive=case_sensitive),
                                   glob=glob)
            assert by_rg is not None
            assert [hit.path for hit in by_rg] == [hit.path for hit in by_index], pattern
            shown = engine.search(call)
            assert shown.total == len(by_index)
