"""edit and write through Kernel.execute_mutation: exactness, line endings, modes, safety."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine_repo import CRLF, FILES, LATIN1, git, write

from sari_core.engine import Workspace
from sari_core.kernel import Kernel
from sari_core.models import MutationCall, SearchCall


def test_edit_replaces_an_exact_string(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "return helper",
                                                "new_string": "return assistant"})
    assert response["ok"] is True, response
    assert response["changes"] == [{"path": "src/app.py", "status": "modified",
                                    "lines_before": 13, "lines_after": 13}]
    assert "return assistant(call)" in (repo / "src" / "app.py").read_text()


def test_edit_without_a_match_is_refused_with_a_hint(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_mutation("edit", {"path": "src/app.py",
                                                "old_string": "def  helper(value):",
                                                "new_string": "def aid(value):"})
    assert response["ok"] is False and response["error"]["code"] == "EDIT_NO_MATCH"
    assert "whitespace" in response["error"]["hint"]
    follow = response["meta"]["stabilization"]["next_calls"][0]
    assert follow["arguments"]["mode"] == "snippet" and follow["arguments"]["start_line"] <= 12
    assert (repo / "src" / "app.py").read_text() == FILES["src/app.py"]
    near = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "def helpr(value):",
                                            "new_string": "x"})
    assert "closest line is 12" in near["error"]["hint"]


def test_edit_with_the_wrong_count_is_ambiguous(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "return",
                                                "new_string": "yield"})
    assert response["ok"] is False and response["error"]["code"] == "EDIT_AMBIGUOUS"
    assert "lines 8, 13" in response["error"]["message"]
    assert "expected_occurrences=2" in response["error"]["hint"]
    assert (repo / "src" / "app.py").read_text() == FILES["src/app.py"]
    done = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "return",
                                            "new_string": "yield", "expected_occurrences": 2})
    assert done["ok"] and done["replacements"] == 2
    assert (repo / "src" / "app.py").read_text().count("yield") == 2
    too_many = kernel.execute_mutation("edit", {"path": "src/app.py", "old_string": "yield",
                                                "new_string": "return", "expected_occurrences": 3})
    assert too_many["error"]["code"] == "EDIT_AMBIGUOUS"


def test_crlf_files_stay_crlf(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_mutation("edit", {"path": CRLF,
                                                "old_string": "first line\nsecond line\n",
                                                "new_string": "first line\ninserted\nsecond line\n"})
    assert response["ok"], response
    assert (repo / CRLF).read_bytes() == b"first line\r\ninserted\r\nsecond line\r\nthird line\r\n"
    written = kernel.execute_mutation("write", {"path": CRLF, "content": "one\ntwo\n"})
    assert written["ok"] and (repo / CRLF).read_bytes() == b"one\r\ntwo\r\n"


def test_file_mode_and_encoding_are_kept(kernel: Kernel, repo: Path) -> None:
    script = write(repo, "tools/run.sh", "#!/bin/sh\necho old\n")
    os.chmod(script, 0o640)
    assert kernel.execute_mutation("edit", {"path": "tools/run.sh", "old_string": "old",
                                            "new_string": "new"})["ok"]
    assert stat.S_IMODE(script.stat().st_mode) == 0o640
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert kernel.execute_mutation("edit", {"path": LATIN1, "old_string": "crème",
                                            "new_string": "crêpe"})["ok"]
    assert (repo / LATIN1).read_bytes() == "café crêpe brûlée - déjà vu\n".encode("latin-1")


def test_write_creates_files_and_parent_folders(kernel: Kernel, repo: Path) -> None:
    response = kernel.execute_mutation("write", {"path": "pkg/deep/new_module.py",
                                                 "content": "VALUE = 42\n"})
    assert response["ok"], response
    assert response["changes"][0]["status"] == "created"
    created = repo / "pkg" / "deep" / "new_module.py"
    assert created.read_text() == "VALUE = 42\n"
    assert stat.S_IMODE(created.stat().st_mode) & 0o600 == 0o600
    assert not [name for name in os.listdir(created.parent) if name.endswith(".sari-tmp")]
    assert kernel.execute_search({"query": "VALUE = 42"})["matches"][0]["path"] == \
        "pkg/deep/new_module.py"


def test_write_overwrites_and_refuses_odd_targets(kernel: Kernel, repo: Path) -> None:
    assert kernel.execute_mutation("write", {"path": "docs/notes.md", "content": "new\n"})["ok"]
    assert (repo / "docs" / "notes.md").read_text() == "new\n"
    folder = kernel.execute_mutation("write", {"path": "src", "content": "x"})
    assert folder["error"]["code"] == "NOT_A_FILE"
    below_file = kernel.execute_mutation("write", {"path": "src/app.py/inner.py", "content": "x"})
    assert below_file["ok"] is False
    binary = kernel.execute_mutation("write", {"path": "data/blob.bin", "content": "text"})
    assert binary["error"]["code"] == "BINARY_FILE"
    git_dir = kernel.execute_mutation("write", {"path": ".git/config", "content": "x"})
    assert git_dir["error"]["code"] == "PROTECTED_PATH"


def test_a_file_changed_between_plan_and_apply_is_not_overwritten(workspace: Workspace,
                                                                  repo: Path) -> None:
    changes = workspace.plan_mutation(MutationCall(tool="edit", path="src/other.py",
                                                   old_string="Writer", new_string="Author"))
    (repo / "src" / "other.py").write_text("someone else's text\n")
    from sari_core.errors import SariError

    try:
        workspace.apply_mutation(changes)
    except SariError as exc:
        assert exc.code == "EDIT_NO_MATCH" and "changed on disk" in exc.message
    else:
        raise AssertionError("the stale plan was applied")
    assert (repo / "src" / "other.py").read_text() == "someone else's text\n"


def test_written_files_are_indexed_before_the_next_search(workspace: Workspace) -> None:
    changes = workspace.plan_mutation(MutationCall(tool="write", path="src/fresh.py",
                                                   content="def fresh_symbol():\n    pass\n"))
    workspace.apply_mutation(changes)
    result = workspace.search(SearchCall(query="fresh_symbol", kind="symbol"))
    assert [(m.path, m.line) for m in result.matches] == [("src/fresh.py", 1)]
    assert workspace.poll_changes() == []


def test_diff_preview_shows_an_edit(kernel: Kernel, repo: Path) -> None:
    kernel.execute_mutation("edit", {"path": "src/other.py", "old_string": "Writer",
                                     "new_string": "Author"})
    response = kernel.execute_read({"mode": "diff_preview", "target": "src/other.py"})
    assert "-class Writer:" in response["diff"] and "+class Author:" in response["diff"]
    git(repo, "add", "src/other.py")
    staged = kernel.execute_read({"mode": "diff_preview", "target": "src/other.py",
                                  "against": "INDEX"})
    assert "+class Author:" in staged["diff"]
