"""The thin hook's own secret-file list, used when Sari's server does not answer, is
secretguard's default list: a secret refused online is refused offline too."""

from __future__ import annotations

from sari_core.native import hook_client
from sari_secretguard.settings import DEFAULT_ALLOWED_GLOBS, DEFAULT_BLOCKED_GLOBS


def test_the_offline_list_is_secretguard_s_defaults() -> None:
    assert list(hook_client.SECRET_GLOBS) == DEFAULT_BLOCKED_GLOBS
    assert list(hook_client.SHARED_GLOBS) == DEFAULT_ALLOWED_GLOBS
