"""``bench/real_sessions.py`` on a repository built here: a session kept on its
``entire/checkpoints/v1`` branch is chosen, rebuilt from the copy and replayed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bench_modules import load_bench

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replay"))
from transcripts import TranscriptWriter, git_workspace, numbered  # noqa: E402

real_sessions = load_bench("real_sessions")

MODULE = "".join(f"def step_{n}(x):\n    return x + {n}\n\n\n" for n in range(120))


def _git(root: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@sari.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@sari.invalid",
                        "GIT_AUTHOR_DATE": "2020-01-02T09:00:00+00:00",
                        "GIT_COMMITTER_DATE": "2020-01-02T09:00:00+00:00",
                        "HOME": str(root), "PATH": "/usr/bin:/bin:/usr/local/bin"})


def test_a_kept_session_is_chosen_rebuilt_and_replayed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for policy in ("sari_budget", "sari_relevance", "sari_aggregation", "sari_refgate"):
        pytest.importorskip(policy)  # the default policies the replay runs
    repo = git_workspace(tmp_path / "origin", {"app/steps.py": MODULE, "README.md": "hi\n"})
    steps = str(repo / "app" / "steps.py")
    writer = TranscriptWriter(repo)
    for _ in range(real_sessions.MIN_READS):
        writer.call("Read", {"file_path": steps}, numbered(MODULE))
    writer.call("Edit", {"file_path": steps, "old_string": "x + 110", "new_string": "x - 110"},
                "The file has been updated.")
    _git(repo, "checkout", "-q", "--orphan", "entire/checkpoints/v1")
    _git(repo, "rm", "-rq", "--cached", ".")
    kept = repo / "ab" / "cdef012345" / "0"
    kept.mkdir(parents=True)
    writer.write(kept / "full.jsonl")
    (kept / "metadata.json").write_text(json.dumps({"agent": "Claude Code"}))
    _git(repo, "add", "ab")
    _git(repo, "commit", "-qm", "Checkpoint")
    _git(repo, "checkout", "-qf", "main")
    copy = f"team/app={repo / '.git'}"
    manifest = tmp_path / "sessions.json"
    assert real_sessions.main(["select", "--copy", copy, "--manifest", str(manifest)]) == 0
    [entry] = json.loads(manifest.read_text())
    assert entry["repository"] == "team/app" and entry["path"] == "ab/cdef012345/0/full.jsonl"
    assert entry["reads"] == real_sessions.MIN_READS
    into = tmp_path / "rebuilt"
    assert real_sessions.main(["rebuild", "--copy", copy, "--into", str(into),
                               "--manifest", str(manifest)]) == 0
    capsys.readouterr()
    out = tmp_path / "replay.json"
    assert real_sessions.main(["replay", "--into", str(into), "--manifest", str(manifest),
                               "--json", str(out)]) == 0
    table = capsys.readouterr().out
    [session] = json.loads(out.read_text())["sessions"]
    assert session["coverage"] == 1.0 and session["calls_recorded"] == 9
    assert "native Read/Grep calls: 8" in table
    fraction = json.loads(out.read_text())["fraction"]
    assert fraction["native_calls"] == 8 and fraction["acted_on"] >= 1
    # The edit was replayed on a private copy: the repository and the rebuilt one are as
    # they were.
    assert "x + 110" in (repo / "app" / "steps.py").read_text()
    assert "x + 110" in (into / "workspaces" / "team+app" / "app" / "steps.py").read_text()
