"""The literal default of a secret-named environment lookup is a secret in clear."""

from __future__ import annotations

import time

import pytest

from sari_core import SECRET_PATTERNS, redact_secrets

DEFAULT = "hunter2" + "hunter2"


@pytest.mark.parametrize("line", [
    f'DB = os.environ.get("DB_PASSWORD", "{DEFAULT}")',
    f"DB = os.getenv('DB_PASSWORD', '{DEFAULT}')",
    f'os.environ.setdefault("DJANGO_SECRET_KEY", "{DEFAULT}")',
    f'KEY = env("SECRET_KEY", default="{DEFAULT}")',
    f'KEY = env.str("STRIPE_API_KEY", default="{DEFAULT}")',
    f'TOKEN = config("API_TOKEN", default="{DEFAULT}")',
    f'token = ENV.fetch("GITHUB_TOKEN", "{DEFAULT}")',
    f'const p = process.env.DB_PASSWORD || "{DEFAULT}";',
    f"const p = process.env['DB_PASSWORD'] ?? `{DEFAULT}`;",
    f"PASS=${{DB_PASSWORD:-{DEFAULT}}}",
])
def test_the_literal_default_is_redacted(line: str) -> None:
    text, found = redact_secrets(line)
    assert DEFAULT not in text
    assert found["env_default"] == 1


@pytest.mark.parametrize("line", [
    'HOST = os.environ.get("DB_HOST", "localhost")',  # not a secret by name
    'P = os.environ.get("DB_PASSWORD", "${FROM_VAULT}")',  # a template
    'P = os.environ.get("DB_PASSWORD", "")',
    'P = os.environ.get("DB_PASSWORD")',
])
def test_other_lookups_are_left_alone(line: str) -> None:
    assert redact_secrets(line)[0] == line


def test_long_runs_cost_linear_time() -> None:
    # Unbounded name patterns took seconds to minutes on 50 KB runs like these.
    texts = ["a-" * 25000, "a." * 25000, "${a." * 10000, 'os.getenv("' + "a" * 50000 + '", "x")']
    started = time.perf_counter()
    for text in texts:
        for pattern in SECRET_PATTERNS:
            pattern.regex.sub("", text)
    assert time.perf_counter() - started < 20
