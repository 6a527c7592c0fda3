"""Refuse reads of secret files; redact likely secrets before a payload reaches the model."""

from __future__ import annotations

from collections import Counter

from sari_core import (
    NextCall,
    ReadCall,
    ReadResult,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    Verdict,
    hookimpl,
)
from sari_secretguard.patterns import matches_glob, redact
from sari_secretguard.settings import SecretguardSettings

SECTION = "secretguard"
SECRET_FILE_BLOCKED = "SECRET_FILE_BLOCKED"
SECRET_REDACTED = "SECRET_REDACTED"
WITHHELD = "[withheld by secretguard: secret file]"


class SecretguardPlugin:
    """The worked example of the plugin author guide."""

    name = SECTION  # the same name whether loaded from the entry point or passed to a Kernel
    fail_closed = True  # if this plugin breaks, refuse the call rather than leak

    @hookimpl
    def sari_register_settings(self) -> SettingsSpec:
        return SettingsSpec(section=SECTION, model=SecretguardSettings)

    @hookimpl
    def sari_register_reason_codes(self) -> list[ReasonCodeSpec]:
        return [
            ReasonCodeSpec(SECRET_FILE_BLOCKED, "The target is a secret file by name; Sari never "
                           "serves it.", "error", {"tool": "search", "arguments": {
                               "query": "<where the code loads the value>"}}, rank=80),
            ReasonCodeSpec(SECRET_REDACTED, "Likely secrets in the payload were replaced by "
                           "[REDACTED:<kind>] markers.", "warning", rank=81),
        ]

    @hookimpl(tryfirst=True)
    def on_read_enter(self, call: ReadCall, session: Session) -> Verdict | None:
        path = call.path if call.mode == "symbol" and call.path else call.target
        return _refusal(path) if _is_secret(path, session.settings(SECTION)) else None

    @hookimpl(tryfirst=True)  # redact before every plain and trylast plugin sees the text
    def on_read_exit(self, call: ReadCall, result: ReadResult, session: Session) -> Verdict | None:
        settings: SecretguardSettings = session.settings(SECTION)
        if _is_secret(result.path, settings):  # a symbol or a ref that resolved to one
            return _refusal(result.path)
        if not settings.redact:
            return None
        result.text, found = redact(result.text, settings.extra_patterns)
        if result.diff is not None:
            result.diff, in_diff = redact(result.diff, settings.extra_patterns)
            found += in_diff
        return _redacted(found, result.path)

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> Verdict | None:
        settings: SecretguardSettings = session.settings(SECTION)
        found: Counter[str] = Counter()
        for match in result.matches:
            if _is_secret(match.path, settings):
                match.snippet = WITHHELD
                found["secret_file"] += 1
            elif settings.redact:
                match.snippet, in_snippet = redact(match.snippet, settings.extra_patterns)
                found += in_snippet
        return _redacted(found, f"the results of {call.query!r}")


def _is_secret(path: str | None, settings: SecretguardSettings) -> bool:
    blocked = [*settings.blocked_globs, *settings.extra_blocked_globs]
    return bool(path) and matches_glob(path, blocked) and not matches_glob(path, settings.allowed_globs)


def _refusal(path: str) -> Verdict:
    return Verdict.block(
        SECRET_FILE_BLOCKED, message=f"{path} is a secret file; Sari does not serve its content.",
        hint="Find where the code reads the value instead, or ask the user for what you need.",
        next_calls=(NextCall(tool="search", arguments={"query": path.rsplit("/", 1)[-1]}),))


def _redacted(found: Counter[str], where: str) -> Verdict | None:
    if not found:
        return None
    kinds = ", ".join(sorted(found))
    return Verdict.warn(SECRET_REDACTED, annotations={"redacted": dict(sorted(found.items()))},
                        message=f"Redacted {sum(found.values())} likely secret(s) ({kinds}) from "
                        f"{where}; the originals are not available through Sari.")
