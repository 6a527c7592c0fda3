"""What a secret looks like in text, and how it is taken out.

The patterns a plugin uses to keep secrets out of what it shows or stores: secretguard
redacts payloads with them before the model sees them, the execution log redacts records
with them before they reach a database. Redaction keeps the line count of the text (a
multi-line secret becomes a marker followed by the same number of newlines), so line
numbers in a response, and any edit the model plans from them, stay right.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

# How a redaction starts in the text: ``[REDACTED:<kind>]``.
REDACTION_MARK = "[REDACTED:"
_KEY_LABEL = r"[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?"
_KEY_END = rf"-----END {_KEY_LABEL}-----"
_SECRET_WORD = (
    r"(?:api[_-]?key|apikey|secret|secret[_-]?key|token|passw(?:or)?d|pwd|"
    r"access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)"
)
# A variable name holding a secret word anywhere (DB_PASSWORD_PRIMARY, API_KEY_ID), of
# bounded length: an unbounded [\w.-]* tried from every word boundary of a long run like
# "a.a.a." takes time quadratic in the run.
_SECRET_VARIABLE = rf"(?=[\w.-]{{0,64}}{_SECRET_WORD})[\w.-]{{1,128}}"
# A literal default: not a template (${X}, <x>, {x}, %s) and at least three characters.
_LITERAL = r"(?![$<{%\[])[^\"'`\n]{3,}"


@dataclass(frozen=True)
class SecretPattern:
    """A kind of secret; ``group`` is the part replaced (0 = the whole match)."""

    kind: str
    regex: re.Pattern[str]
    group: int = 0


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    # A whole key block, or its start when the read window ends inside it.
    SecretPattern("private_key", re.compile(rf"-----BEGIN {_KEY_LABEL}-----.*?(?:{_KEY_END}|\Z)", re.S)),
    # The window started inside a key block: everything up to its END line is key material.
    SecretPattern("private_key", re.compile(rf"\A.*?{_KEY_END}", re.S)),
    # The window lies wholly inside a key block: two or more lines of bare base64.
    SecretPattern("key_material", re.compile(
        r"(?:^[ \t\"']*[A-Za-z0-9+/]{40,}={0,2}[\"',\\n \t]*(?:\n|\Z)){2,}", re.M)),
    SecretPattern("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    SecretPattern("aws_secret_access_key", re.compile(
        r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"), 1),
    SecretPattern("github_token", re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    SecretPattern("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    SecretPattern("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+")),
    SecretPattern("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    SecretPattern("stripe_key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{16,}\b")),
    # scheme://user:password@host (git remotes, database URLs): the password only; template
    # values (${PASS}, <password>) and the placeholder words of example files are left alone.
    # The scheme is bounded: unbounded, a long run of "a-a-a-" took time quadratic in it.
    SecretPattern("url_credentials", re.compile(
        r"\b[a-z][a-z0-9+.-]{0,31}://[^/\s:@\"']*:((?![$<{%])(?!(?:password|passwd|pass|secret|"
        r"changeme|example|x+|\*+)@)[^/\s@\"']+)@", re.I), 1),
    # An HTTP Authorization header (git's http.extraHeader, curl lines): the credential.
    SecretPattern("authorization_header", re.compile(
        r"(?i)\bauthorization\s*:\s*(?:bearer|basic|token|digest)\s+([A-Za-z0-9._~+/=-]{6,})"),
        1),
    # The literal default of a secret-named environment lookup: os.environ.get("DB_PASSWORD",
    # "..."), os.getenv, environ.setdefault, env("X", default="..."), config(...), Ruby's
    # ENV.fetch; then JavaScript's process.env.X || "..." (or ??); then shell's ${X:-...}.
    SecretPattern("env_default", re.compile(
        rf"(?i)\b(?:getenv|environ\.get|environ\.setdefault|env(?:\.\w+)?|config|fetch)"
        rf"\(\s*([\"']){_SECRET_VARIABLE}\1\s*,\s*(?:default\s*=\s*)?([\"'])({_LITERAL})\2"), 3),
    SecretPattern("env_default", re.compile(
        rf"(?i)\bprocess\.env(?:\.{_SECRET_VARIABLE}|\[\s*([\"']){_SECRET_VARIABLE}\1\s*\])"
        rf"\s*(?:\|\||\?\?)\s*([\"'`])({_LITERAL})\2"), 3),
    SecretPattern("env_default", re.compile(
        rf"(?i)\$\{{{_SECRET_VARIABLE}:?[-=]((?![$<{{%\[])[^}}\s\"']{{3,}})\}}"), 1),
    # api_key = "...", "password": "...": the quoted value only; placeholders are left alone.
    # The name's secret word is matched alone: what precedes it in the name changes nothing.
    SecretPattern("assignment", re.compile(
        rf"(?i){_SECRET_WORD}[\"']?\s*[:=]\s*([\"'])((?![$<{{%\[])[^\"'\s]{{8,}})\1"), 2),
)


def _marker(kind: str, replaced: str) -> str:
    return f"{REDACTION_MARK}{kind}]" + "\n" * replaced.count("\n")


def redact_secrets(text: str, extra_patterns: Iterable[str] = ()
                   ) -> tuple[str, Counter[str]]:
    """Replace likely secrets in ``text``; return the new text and a count per kind."""
    found: Counter[str] = Counter()
    patterns = [*SECRET_PATTERNS, *(SecretPattern("custom", re.compile(p)) for p in extra_patterns)]
    for pattern in patterns:
        def replace(match: re.Match[str], pattern: SecretPattern = pattern) -> str:
            found[pattern.kind] += 1
            whole, start, end = match.group(0), *match.span(pattern.group)
            offset = match.start(0)
            secret = whole[start - offset:end - offset]
            return whole[:start - offset] + _marker(pattern.kind, secret) + whole[end - offset:]

        text = pattern.regex.sub(replace, text)
    return text, found
