"""Ways a secret could still reach the model with secretguard on, each tried through the server.

The server is the real one (``SariServer`` over the real engine on a git workspace on
disk), driven by the official MCP client; every assertion is about what the model
would see of the tool result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from served_http import make_git_workspace

from sari_core import Kernel
from sari_core.server import SariServer

SecretguardPlugin = pytest.importorskip("sari_secretguard").SecretguardPlugin

# Fake secrets, assembled so that no scanner takes this file for a leak.
AWS_KEY_ID = "AKIA" + "Q3EXAMPLEZ7KEY4ID"[:16]
DB_PASSWORD = "hunter2-" + "correct-horse"
BEARER = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ENV = f"AWS_ACCESS_KEY_ID={AWS_KEY_ID}\nDB_PASSWORD={DB_PASSWORD}\nMODE=production\n"
RSA = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = make_git_workspace(tmp_path / "ws")
    (root / ".env").write_text(ENV, encoding="utf-8")  # untracked, as it should be
    (root / "keys").mkdir()
    (root / "keys" / "id_rsa").write_text(RSA, encoding="utf-8")
    return root


@pytest.fixture
def client(workspace: Path) -> Iterator[SariServer]:
    """The server; each call below connects to it with the official client."""
    with Kernel(roots=[workspace], plugins=[SecretguardPlugin()], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        kernel.engine.wait_for_index(60)
        yield SariServer(kernel)


async def call(server: SariServer, tool: str, arguments: dict[str, Any]
               ) -> tuple[dict[str, Any], str]:
    """The response object and everything the model would see of it."""
    async with Client(server.lowlevel, mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
    assert result.structured_content is not None
    return result.structured_content, json.dumps(result.model_dump(mode="json"))


def assert_no_secret(seen: str) -> None:
    for secret in (AWS_KEY_ID, AWS_KEY_ID[:12], DB_PASSWORD, "b3BlbnNzaC1rZXktdjEA"):
        assert secret not in seen


@pytest.mark.parametrize(("tool", "arguments"), [
    ("read", {"mode": "diff_preview", "target": "."}),
    ("read", {"mode": "diff_preview", "target": ".", "against": "WORKTREE"}),
    ("read", {"mode": "diff_preview", "target": "keys"}),
    ("dry_run_diff", {"path": "."}),
])
async def test_a_diff_of_a_folder_withholds_untracked_secret_files(
        client: SariServer, tool: str, arguments: dict[str, Any]) -> None:
    response, seen = await call(client, tool, arguments)
    assert response["ok"] is True, response
    assert_no_secret(seen)
    assert "[withheld by secretguard: secret file]" in response["diff"]
    if arguments.get("target") != "keys":
        assert "return 42" in response["diff"]  # the rest of the diff is still there


async def test_every_window_of_a_diff_withholds_the_secret_section(client: SariServer) -> None:
    whole, _ = await call(client, "read", {"mode": "diff_preview", "target": "."})
    total = whole["meta"].get("total_lines") or len(whole["diff"].splitlines())
    for offset in range(total + 1):
        response, seen = await call(client, "read", {"mode": "diff_preview", "target": ".",
                                                     "offset": offset, "limit": 2})
        assert_no_secret(seen)
        assert response["ok"] is True


@pytest.mark.parametrize(("path", "near_miss"), [
    (".env", f"DB_PASSWORD={DB_PASSWORD[:-2]}xx"),
    ("keys/id_rsa", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAC"),
])
async def test_an_edit_that_misses_never_quotes_the_secret_file(
        client: SariServer, workspace: Path, path: str, near_miss: str) -> None:
    before = (workspace / path).read_text()
    response, seen = await call(client, "edit", {"path": path, "old_string": near_miss,
                                                 "new_string": "x"})
    assert response["ok"] is False
    assert_no_secret(seen.replace(json.dumps(near_miss)[1:-1], ""))
    assert (workspace / path).read_text() == before
    for suggested in response["meta"]["stabilization"]["next_calls"]:
        followed, shown = await call(client, suggested["tool"], suggested["arguments"])
        assert_no_secret(shown)


async def test_search_totals_do_not_confirm_a_guessed_prefix(
        client: SariServer, workspace: Path) -> None:
    right, wrong = AWS_KEY_ID[:14], AWS_KEY_ID[:13] + "9"
    for guess in (right, wrong):
        alone, seen = await call(client, "search", {"query": guess})
        assert alone["total"] == 0 and alone["matches"] == [], guess
        assert_no_secret(seen.replace(guess, ""))
    # The agent writes a decoy holding both guesses: it ranks first, so the secret file
    # would hide behind it, counted in the total only.
    wrote, _ = await call(client, "write", {"path": "decoy.txt",
                                            "content": f"{right}\n{wrong}\n" * 3})
    assert wrote["ok"] is True
    totals = []
    for guess in (right, wrong):
        response, seen = await call(client, "search", {"query": guess, "limit": 1})
        assert [m["path"] for m in response["matches"]] == ["decoy.txt"]
        totals.append(response["total"])
    assert totals == [1, 1]
    regex, _ = await call(client, "search", {"query": "AKIA[A-Z0-9]{10}", "kind": "regex",
                                             "limit": 1})
    assert regex["total"] == 1  # the decoy only


@pytest.mark.parametrize("cap", [24, 30, 40])
async def test_a_cap_that_cuts_a_key_short_still_redacts_it(
        client: SariServer, workspace: Path, cap: int) -> None:
    prefix = "#" * (cap - 19) + " "  # the cap ends 18 characters into the 20-character id
    (workspace / "config.py").write_text(f"{prefix}{AWS_KEY_ID} = 'value'\n", encoding="utf-8")
    response, seen = await call(client, "read", {"mode": "file", "target": "config.py",
                                                 "max_preview_chars": cap})
    assert response["ok"] is True
    assert AWS_KEY_ID[:18] not in seen and AWS_KEY_ID[:8] not in seen
    assert "[REDACTED:aws_access_key_id]" in response["text"]


async def test_git_credentials_are_refused_or_redacted(client: SariServer, workspace: Path) -> None:
    config = workspace / ".git" / "config"
    config.write_text(config.read_text() + (
        '[remote "origin"]\n\turl = https://deploy:' + DB_PASSWORD + '@git.example/app.git\n'
        '[http]\n\textraHeader = AUTHORIZATION: bearer ' + BEARER + "\n"), encoding="utf-8")
    copied = workspace / "ci" / "gitconfig"
    copied.parent.mkdir()
    copied.write_text(config.read_text(), encoding="utf-8")
    for target in (".git/config", "ci/gitconfig"):
        response, seen = await call(client, "read", {"mode": "file", "target": target})
        assert DB_PASSWORD not in seen and BEARER not in seen and BEARER[:12] not in seen
    served, _ = await call(client, "read", {"mode": "file", "target": "ci/gitconfig"})
    assert "git.example/app.git" in served["text"]  # the rest of the file is served
    found, seen = await call(client, "search", {"query": "extraHeader"})
    assert BEARER not in seen
