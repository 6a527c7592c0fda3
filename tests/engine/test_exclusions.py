"""The ``exclude`` setting: its paths stay out of the index and out of search, and
``sari doctor`` says how many files each rule keeps out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sari_core.cli.main import main
from sari_core.engine.files.exclusions import ExcludeError, configured_excludes, exclude_rules
from sari_core.kernel import Kernel


@pytest.fixture(autouse=True)
def _no_plugins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SARI_PLUGINS", "none")
    monkeypatch.setenv("SARI_CONFIG_FILE", str(tmp_path / "user-config.toml"))
    monkeypatch.delenv("SARI_EXCLUDE", raising=False)


def tree(root: Path) -> Path:
    for rel in ("src/app.py", "data/big.py", "data/deep/more.py", "web/app.min.js",
                "web/app.js"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("needle = 1\n", encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.sari]\nexclude = ["data/**", "*.min.js"]\n', encoding="utf-8")
    return root


def search_paths(capsys, root: Path, *extra: str) -> list[str]:
    assert main(["search", "needle", "--workspace", str(root), "--json", *extra]) == 0
    return sorted(match["path"] for match in json.loads(capsys.readouterr().out)["matches"])


def test_excluded_paths_stay_out_of_search_before_and_after_the_index(tmp_path: Path,
                                                                      capsys) -> None:
    root = tree(tmp_path / "ws")
    assert search_paths(capsys, root) == ["src/app.py", "web/app.js"]  # answered by a scan
    assert main(["index", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 3  # pyproject, app.py, app.js
    assert search_paths(capsys, root) == ["src/app.py", "web/app.js"]  # from the index
    assert search_paths(capsys, root, "--kind", "path") == []  # no path holds "needle"


def test_the_python_api_reads_the_setting_too(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path / "ws")
    monkeypatch.setenv("SARI_EXCLUDE", "src/**")
    kernel = Kernel(roots=[root], load_entry_points=False, analytics_sinks=[])
    try:
        found = kernel.execute_search({"query": "needle"})
        assert sorted(match["path"] for match in found["matches"]) == ["web/app.js"]
        paths = kernel.execute_search({"query": "app", "kind": "path"})["matches"]
        assert sorted(match["path"] for match in paths) == ["web/app.js"]
    finally:
        kernel.close()
    monkeypatch.setenv("SARI_EXCLUDE", "5")
    with pytest.raises(ExcludeError, match="SARI_EXCLUDE"):
        Kernel(roots=[root], load_entry_points=False, analytics_sinks=[])


def test_the_users_config_and_the_environment_add_rules(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path / "ws")
    (tmp_path / "user-config.toml").write_text('exclude = ["web/**"]\n', encoding="utf-8")
    monkeypatch.setenv("SARI_EXCLUDE", "src/**")
    rules = exclude_rules(root)
    assert [(rule.pattern, rule.source) for rule in rules] == [
        ("web/**", str(tmp_path / "user-config.toml")),
        ("data/**", "pyproject.toml [tool.sari]"), ("*.min.js", "pyproject.toml [tool.sari]"),
        ("src/**", "SARI_EXCLUDE")]
    # A broken workspace value is left out (the server still starts); the user's stops it.
    (root / "sari.toml").write_text("exclude = 5\n", encoding="utf-8")
    assert configured_excludes(root) == ["web/**", "data/**", "*.min.js", "src/**"]
    (tmp_path / "user-config.toml").write_text("exclude = 5\n", encoding="utf-8")
    with pytest.raises(ExcludeError, match=r"exclude \(from .*user-config.toml\) must be a list"):
        configured_excludes(root)


def test_doctor_reports_how_many_files_each_rule_excluded(tmp_path: Path, capsys) -> None:
    root = tree(tmp_path / "ws")
    main(["doctor", "--json", "--workspace", str(root)])
    checks = {check["name"]: check for check in json.loads(capsys.readouterr().out)}
    assert checks["exclusions"]["status"] == "ok"
    assert checks["exclusions"]["detail"] == (
        "data/** (from pyproject.toml [tool.sari]) excludes 2 files; "
        "*.min.js (from pyproject.toml [tool.sari]) excludes 1 file")
