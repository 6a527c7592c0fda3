"""While the first index builds, an MCP client hears about it: progress for a call that
sent a progress token, one log line per call, and search answers that are right."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from sari_core.engine import Workspace
from sari_core.engine.index.indexer import Indexer
from sari_core.kernel import Kernel
from sari_core.server import SariServer


async def test_a_call_during_the_first_build_reports_progress_and_logs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def execute_read(path):\n    return path\n", encoding="utf-8")
    release = threading.Event()
    real_refresh = Indexer.refresh

    def held_refresh(self: Indexer, **kwargs: Any) -> Any:
        release.wait(30)
        return real_refresh(self, **kwargs)

    monkeypatch.setattr(Indexer, "refresh", held_refresh)
    engine = Workspace([root], index_path=tmp_path / "index.sqlite", watch=False)
    progress: list[tuple[float, float | None, str | None]] = []
    logged: list[Any] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_log(params: Any) -> None:
        logged.append(params.data)

    try:
        engine.start_background_index()
        with Kernel(engine) as kernel:
            server = SariServer(kernel)
            async with Client(server.lowlevel, mode="legacy", logging_callback=on_log) as client:
                result = await client.call_tool("search", {"query": "def execute_read"},
                                                progress_callback=on_progress)
                text = result.content[0].text
                await anyio.sleep(0.1)
            assert "app.py" in text and "index is still being built" in text
            assert progress and "building the index" in str(progress[0][2])
            assert any("building the index" in str(data) for data in logged)
            release.set()
            assert engine.wait_for_index(60)
            assert engine.index_progress() is None
    finally:
        release.set()
        engine.close()
