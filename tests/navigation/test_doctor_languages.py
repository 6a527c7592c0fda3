"""`sari doctor` lists the languages with symbols and marks those navigated exactly."""

from __future__ import annotations

import importlib.util

from sari_core.cli.commands.doctor import check_languages, find_executable
from sari_core.engine.index.grammars import GRAMMARS


def test_doctor_lists_every_language_and_which_a_server_navigates() -> None:
    check = check_languages()
    assert check.status == "ok", check.detail
    listed = [item.split(" ")[0] for item in check.detail.split(", ")]
    assert listed == list(GRAMMARS)
    assert {"ruby", "php", "csharp", "kotlin", "swift", "scala", "lua", "shell"} <= set(listed)
    exact = importlib.util.find_spec("sari_lspgate") is not None \
        and find_executable("basedpyright-langserver") is not None
    assert ("python (exact)" in check.detail) is exact
