"""The language client reads the server process from pygls's own attribute (pygls names it
nowhere publicly): a pygls release it was not written for is said in the log."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from sari_lspgate import lsp_client


def test_the_installed_pygls_is_one_the_client_was_written_for() -> None:
    lsp_client.pygls_checked.cache_clear()
    assert lsp_client.pygls_checked(), version("pygls")


def test_another_pygls_release_is_said_in_the_log(monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(lsp_client, "PYGLS_WRITTEN_FOR", ((1, 0),))
    lsp_client.pygls_checked.cache_clear()
    try:
        with caplog.at_level("WARNING", logger=lsp_client.__name__):
            assert not lsp_client.pygls_checked()
        said = caplog.text
        assert f"pygls {version('pygls')} found" in said and "written for 1.0" in said
    finally:
        lsp_client.pygls_checked.cache_clear()
