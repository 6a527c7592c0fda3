"""A definition shown with a search hit is file text: its secrets are redacted too."""

from __future__ import annotations

from pathlib import Path

from secret_samples import GITHUB_TOKEN

from sari_core import Kernel
from sari_core.engine import Workspace
from sari_secretguard import SecretguardPlugin


def test_a_token_in_a_shown_definition_is_redacted(tmp_path: Path) -> None:
    (tmp_path / "deploy.py").write_text(
        "def publish_release_artifacts():\n"
        f"    token = '{GITHUB_TOKEN}'\n"
        "    return upload(token)\n", encoding="utf-8")
    engine = Workspace([tmp_path], index_path=tmp_path.parent / "shown.sqlite", watch=False)
    with Kernel(engine, plugins=[SecretguardPlugin()], load_entry_points=False,
                analytics_sinks=[]) as kernel:
        engine.ensure_index(progress=False)
        served = kernel.execute_search({"query": "publish the release artifacts"})
    first = served["matches"][0]
    assert first["symbol"] == "publish_release_artifacts" and "def publish" in first["context"]
    assert GITHUB_TOKEN not in first["context"]
