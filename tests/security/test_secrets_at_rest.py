"""No secret literal rests in any file under Sari's state folder.

A model may send a secret (a search for a key it saw, an edit that adds one) and a file may
hold one: what Sari keeps — the execution log (request, response, warning texts), the spool
a shared log falls back to, the server log — keeps none of them verbatim.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from served_http import make_git_workspace

from sari_core import Kernel

SecretguardPlugin = pytest.importorskip("sari_secretguard").SecretguardPlugin
pytest.importorskip("sari_persistence")

# Fake secrets, assembled so that no scanner takes this file for a leak.
AWS_KEY_ID = "AKIA" + "Q3EXAMPLEZ7KEY4IDXX"[:16]
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _files_holding(folder: Path, secrets: tuple[str, ...]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            hits = [secret for secret in secrets if secret.encode() in data]
            if hits:
                found[str(path.relative_to(folder))] = hits
    return found


def test_a_secret_in_a_call_rests_nowhere_in_the_state_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sari_persistence.plugin import PersistencePlugin

    state = tmp_path / "state"
    monkeypatch.setenv("SARI_STATE_DIR", str(state))
    workspace = make_git_workspace(tmp_path / "ws")
    (workspace / "settings.py").write_text(f'GITHUB_TOKEN = "{GITHUB}"\n', encoding="utf-8")
    with Kernel(roots=[workspace], plugins=[SecretguardPlugin(),
                                            PersistencePlugin()],
                load_entry_points=False, analytics_sinks=[]) as kernel:
        kernel.engine.wait_for_index(60)
        searched = kernel.execute_search({"query": AWS_KEY_ID})
        assert searched["ok"] is True
        kernel.execute_search({"query": "GITHUB_TOKEN"})
        kernel.execute_read({"mode": "file", "target": "settings.py"})
        kernel.execute_mutation("write", {"path": "notes.txt",
                                          "content": f"key {AWS_KEY_ID}\n"})
        kernel.execute_read({"mode": "file", "target": f"missing-{AWS_KEY_ID}.py"})
    assert (state / "execution_log.db").exists()
    assert _files_holding(state, (AWS_KEY_ID, GITHUB)) == {}


def test_the_spool_keeps_no_secret(tmp_path: Path) -> None:
    """Records a shared log could not take are spooled as the database would store them."""
    from sari_persistence import spool
    from sari_persistence.records import ExecutionRow, FrameRecord

    row = ExecutionRow(
        id="ex-1", session_key="ws:abc:conn:1", session_id=None, workspace_hash="abc",
        tool="search", arguments={"query": AWS_KEY_ID}, ok=True, target=AWS_KEY_ID,
        error_code=None, reason_codes=(), duration_ms=1.0, timestamp=1,
        response={"query": AWS_KEY_ID, "meta": {"stabilization": {
            "warnings": [f"secretguard redacted 1 secret in the results of {AWS_KEY_ID!r}"]}}},
        source="sari")
    frame = FrameRecord(session_id="chat-1", role="user", content=f"use {GITHUB} please")
    spool.write(tmp_path, [row, frame], 8192, 1000, "here")
    assert _files_holding(tmp_path, (AWS_KEY_ID, GITHUB)) == {}


def test_file_contents_do_not_reach_the_log_at_the_default_level(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The language-server client sends a file's whole text (didOpen); the server log keeps
    INFO by default, so the message it sends is logged at DEBUG only."""
    lsp = pytest.importorskip("lsprotocol.types")
    from sari_lspgate.lsp_client import ValidatingClient

    class Sink:
        def __init__(self) -> None:
            self.sent = b""

        def write(self, data: bytes) -> None:
            self.sent += data

    client = ValidatingClient(tmp_path, {}, lambda _: None, lambda: None,
                              lambda *_: None)
    sink = Sink()
    client.protocol.set_writer(sink)
    opened = lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=(tmp_path / "settings.py").as_uri(), language_id="python", version=1,
        text=f'TOKEN = "{GITHUB}"\n'))
    with caplog.at_level(logging.INFO):
        client.protocol.notify(lsp.TEXT_DOCUMENT_DID_OPEN, opened)
    assert GITHUB.encode() in sink.sent  # it was sent...
    assert GITHUB not in caplog.text  # ...and not logged at INFO
    with caplog.at_level(logging.DEBUG):
        client.protocol.notify(lsp.TEXT_DOCUMENT_DID_OPEN, opened)
    assert "Sending data" in caplog.text  # the operator's DEBUG still shows it
