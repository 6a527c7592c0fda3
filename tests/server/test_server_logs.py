"""Server logging: stderr and a file in the state folder, at SARI_LOG_LEVEL."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from sari_core.server.logs import configure_logging


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    """configure_logging replaces the root handlers: give pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.mark.parametrize(("value", "stderr_level", "file_level"), [
    (None, logging.WARNING, logging.INFO),
    ("debug", logging.DEBUG, logging.DEBUG),
    ("ERROR", logging.ERROR, logging.ERROR),
    ("15", 15, 15),
    ("loud", logging.WARNING, logging.INFO),
])
def test_levels_and_destinations(root_logger: logging.Logger, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch, value: str | None,
                                 stderr_level: int, file_level: int) -> None:
    monkeypatch.setenv("SARI_STATE_DIR", str(tmp_path))
    if value is None:
        monkeypatch.delenv("SARI_LOG_LEVEL", raising=False)
    else:
        monkeypatch.setenv("SARI_LOG_LEVEL", value)
    path = configure_logging()
    assert path == tmp_path / "logs" / "server.log"
    streams = [h for h in root_logger.handlers if type(h) is logging.StreamHandler]
    files = [h for h in root_logger.handlers if isinstance(h, logging.FileHandler)]
    assert len(streams) == 1 and len(files) == 1 and len(root_logger.handlers) == 2
    assert streams[0].level == stderr_level and files[0].level == file_level
    logging.getLogger("sari_core.test").error("written to the file")
    files[0].flush()
    assert "written to the file" in path.read_text(encoding="utf-8")
