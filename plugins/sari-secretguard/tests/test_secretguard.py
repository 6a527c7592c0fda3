"""Secretguard on a real kernel: refusals of secret files, redaction of read and search payloads."""

from __future__ import annotations

import pytest
from secret_samples import (
    API_KEY_VALUE,
    AWS_KEY_ID,
    GITHUB_TOKEN,
    SLACK_TOKEN,
    key_body,
    source_with_key,
)

from sari_core import Kernel
from sari_core.kernel.settings import SettingsError
from sari_core.testing import MemoryEngine
from sari_secretguard import SecretguardPlugin

FILES = {
    ".env": "DATABASE_URL=postgres://app:hunter2@db/app\n",
    ".env.example": "DATABASE_URL=postgres://user:password@localhost/app\n",
    "config/prod.env": "TOKEN=abc\n",
    "deploy/id_rsa": "not even looked at\n",
    "deploy/id_rsa.pub": "ssh-rsa AAAA... deploy@example\n",
    "home/.aws/credentials": "[default]\n",
    "certs/site.pem": "-----BEGIN CERTIFICATE-----\n",
    "keys/prod-service-account.json": "{}\n",
    "src/deploy.py": source_with_key(),
    "src/settings.py": (
        f'AWS_ACCESS_KEY_ID = "{AWS_KEY_ID}"\n'
        f"GH = '{GITHUB_TOKEN}'\n"
        f"SLACK = {SLACK_TOKEN!r}\n"
        f'api_key = "{API_KEY_VALUE}"\n'
        'password = "${DB_PASSWORD}"\n'
        'tokenizer = "whitespace-tokenizer"\n'
    ),
}


def kernel(**settings: object) -> Kernel:
    return Kernel(MemoryEngine(FILES), plugins=[SecretguardPlugin()], load_entry_points=False,
                  analytics_sinks=[], settings={"secretguard": settings} if settings else None)


@pytest.mark.parametrize("target", [".env", "config/prod.env", "deploy/id_rsa",
                                    "home/.aws/credentials", "certs/site.pem",
                                    "keys/prod-service-account.json", "./.env"])
def test_reads_of_secret_files_are_refused(target: str) -> None:
    response = kernel().execute_read({"mode": "file", "target": target})
    assert response["ok"] is False
    assert response["error"]["code"] == "SECRET_FILE_BLOCKED"
    assert "text" not in response
    stabilization = response["meta"]["stabilization"]
    assert stabilization["reason_codes"] == ["SECRET_FILE_BLOCKED"]
    assert stabilization["next_calls"][0]["tool"] == "search"


def test_every_read_mode_and_deprecated_wrapper_is_refused() -> None:
    k = kernel()
    assert k.execute_read({"mode": "snippet", "target": ".env", "start_line": 1,
                           "end_line": 1})["error"]["code"] == "SECRET_FILE_BLOCKED"
    assert k.execute_read({"path": ".env"}, entrypoint="read_file")["error"]["code"] \
        == "SECRET_FILE_BLOCKED"


@pytest.mark.parametrize("target", [".env.example", "deploy/id_rsa.pub"])
def test_shared_lookalikes_are_served(target: str) -> None:
    response = kernel().execute_read({"mode": "file", "target": target})
    assert response["ok"] is True
    assert response["text"] == FILES[target]


def test_a_private_key_in_source_is_redacted_and_line_numbers_survive() -> None:
    response = kernel().execute_read({"mode": "file", "target": "src/deploy.py"})
    assert response["ok"] is True
    text = response["text"]
    assert all(line not in text for line in key_body())
    assert "PRIVATE KEY" not in text
    assert "[REDACTED:private_key]" in text
    assert text.count("\n") == FILES["src/deploy.py"].count("\n")
    assert text.splitlines()[-2] == FILES["src/deploy.py"].splitlines()[-2]  # code after it intact
    stabilization = response["meta"]["stabilization"]
    assert stabilization["reason_codes"] == ["SECRET_REDACTED"]
    assert stabilization["annotations"]["secretguard"] == {"redacted": {"private_key": 1}}
    assert "Redacted 1 likely secret(s) (private_key) from src/deploy.py" in \
        stabilization["warnings"][0]


@pytest.mark.parametrize(("start", "end"), [(5, 7), (7, 9), (8, 10), (10, 14)])
def test_read_windows_that_cut_through_a_key_leak_none_of_it(start: int, end: int) -> None:
    response = kernel().execute_read({"mode": "snippet", "target": "src/deploy.py",
                                      "start_line": start, "end_line": end})
    assert response["ok"] is True
    assert response["text"].count("\n") == end - start + 1
    assert all(line not in response["text"] for line in key_body())
    assert "SECRET_REDACTED" in response["meta"]["stabilization"]["reason_codes"]


def test_tokens_are_redacted_and_placeholders_are_not() -> None:
    response = kernel().execute_read({"mode": "file", "target": "src/settings.py"})
    text = response["text"]
    for secret in (AWS_KEY_ID, GITHUB_TOKEN, SLACK_TOKEN, API_KEY_VALUE):
        assert secret not in text
    assert 'api_key = "[REDACTED:assignment]"' in text
    assert 'password = "${DB_PASSWORD}"' in text
    assert 'tokenizer = "whitespace-tokenizer"' in text
    assert response["meta"]["stabilization"]["annotations"]["secretguard"]["redacted"] == {
        "assignment": 1, "aws_access_key_id": 1, "github_token": 1, "slack_token": 1}


def test_a_clean_read_carries_no_secretguard_trace() -> None:
    clean = kernel().execute_read({"mode": "file", "target": ".env.example"})
    assert clean["meta"]["stabilization"]["reason_codes"] == []
    assert "annotations" not in clean["meta"]["stabilization"]


def test_search_snippets_are_redacted_and_secret_files_left_out() -> None:
    response = kernel().execute_search({"query": "=", "limit": 50})
    by_path = {match["path"]: match["snippet"] for match in response["matches"]}
    assert ".env" not in by_path
    assert "hunter2" not in str(response)
    assert GITHUB_TOKEN not in str(response) and AWS_KEY_ID not in str(response)
    assert by_path[".env.example"].startswith("DATABASE_URL=")
    assert response["meta"]["stabilization"]["reason_codes"] == ["SECRET_REDACTED"]


def test_settings_add_globs_and_patterns_or_turn_redaction_off() -> None:
    k = kernel(extra_blocked_globs=["src/settings.py"], extra_patterns=[r"whitespace-\w+"])
    assert k.execute_read({"mode": "file", "target": "src/settings.py"})["ok"] is False
    k = kernel(blocked_globs=[], extra_patterns=[r"postgres://\w+"])
    served = k.execute_read({"mode": "file", "target": ".env"})
    assert served["ok"] is True and "hunter2" not in served["text"]
    assert "[REDACTED:custom]" in served["text"]
    raw = kernel(redact=False).execute_read({"mode": "file", "target": "src/settings.py"})
    assert GITHUB_TOKEN in raw["text"]


def test_an_invalid_pattern_stops_the_kernel_naming_the_key() -> None:
    with pytest.raises(SettingsError, match=r"secretguard\.extra_patterns"):
        kernel(extra_patterns=["(unclosed"])


def test_a_symbol_read_that_resolves_into_a_secret_file_is_withheld(tmp_path) -> None:
    """The path is only known once the engine resolved the symbol: refused at on_read_exit."""
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "keys.py").write_text('def load_token():\n    return "abc123"\n')
    with Kernel(roots=[tmp_path], plugins=[SecretguardPlugin()], load_entry_points=False,
                analytics_sinks=[],
                settings={"secretguard": {"extra_blocked_globs": ["secrets/*"]}}) as k:
        response = k.execute_read({"mode": "symbol", "target": "load_token"})
    assert response["ok"] is False
    assert response["error"]["code"] == "SECRET_FILE_BLOCKED"
    assert "abc123" not in str(response)
