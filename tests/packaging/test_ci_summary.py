"""The CI summary names the interpreter an env was skipped for, not only tox's "SKIP"."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SUMMARY = Path(__file__).resolve().parents[2] / ".ci" / "summarize.py"


def _summarize():
    spec = importlib.util.spec_from_file_location("ci_summarize", SUMMARY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_skipped_env_is_named_with_the_missing_interpreter(tmp_path: Path, capsys) -> None:
    result = {"testenvs": {
        "py310-core": {
            "python": {"version_info": [3, 10, 0, "", 0]},
            "result": {"success": True, "exit_code": 0, "skipped": True},
            "setup": [{"retcode": 2, "err": "error: No interpreter found for Python 3.10 in "
                                            "managed installations or search path\n"}]},
        "py311-core": {
            "result": {"success": True, "exit_code": 0, "skipped": False},
            "test": [{"output": "===== 12 passed, 1 skipped in 3.0s ====="}]},
    }}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    assert _summarize().main(str(path)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("py310-core: skipped: Python 3.10 interpreter not found (error: No "
                        "interpreter found for Python 3.10 in managed installations or search "
                        "path)")
    assert "py311-core: 12 passed, 1 skipped in 3.0s" in lines
    assert lines[-1] == "ci: 1 env(s) skipped for a missing interpreter: py310-core"
