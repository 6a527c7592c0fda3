"""Secrets redacted before a record is written (on the writer thread, never on the call's path).

A call's arguments (an edit's new text, a write's content), an ingested transcript's tool
results and chat text may carry a key or a token; what reaches the database, shared by a
team or not, has them replaced with ``sari_core``'s secret patterns (the ones sari-secretguard
redacts payloads with), whether or not secretguard is installed; with it, a served call's
response was also redacted before the client got it. Strings shorter than any secret
pattern matches are not scanned (most arguments are paths and short queries: the patterns
cost microseconds per string).
"""

from __future__ import annotations

import re
from typing import Any

from sari_core import redact_secrets

# No secret pattern matches fewer characters than this (s://u:p@ is the shortest).
_SHORTEST_SECRET = 8
# What every one of the secret patterns needs somewhere in the text: a token-like run
# (keys and tokens: 16 or more letters, digits, _ or -; key material: 40 or more base64
# characters), a URL's "://", a PEM "-----" line, or a word naming a secret (assignments,
# headers). Text with none of them (a path, a short query) is not scanned by every pattern.
_MIGHT_HOLD_A_SECRET = re.compile(
    r"[A-Za-z0-9_-]{16,}|[A-Za-z0-9+/=]{40,}|://|-----|xox|(?i:key|secret|token|passw|pwd|"
    r"credential|authorization)")


def redact(text: str) -> str:
    if len(text) < _SHORTEST_SECRET or not _MIGHT_HOLD_A_SECRET.search(text):
        return text
    return redact_secrets(text)[0]


def redact_value(value: Any) -> Any:
    """``value`` with every string in it redacted (the JSON shape is kept)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
