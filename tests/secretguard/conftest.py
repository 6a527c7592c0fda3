"""Secretguard tests run only where sari-secretguard is installed."""

import pytest

pytest.importorskip("sari_secretguard")
