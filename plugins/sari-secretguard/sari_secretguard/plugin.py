"""Refuse reads of secret files; redact likely secrets before a payload reaches the model."""

from __future__ import annotations

from collections import Counter

from sari_core import (
    NextCall,
    Plugin,
    ReadCall,
    ReadResult,
    ReasonCodeSpec,
    SearchCall,
    SearchResult,
    Session,
    SettingsSpec,
    Verdict,
    hookimpl,
    redact_secrets,
)
from sari_secretguard.diffs import withhold_files
from sari_secretguard.patterns import cut, matches_glob
from sari_secretguard.settings import SecretguardSettings

SECTION = "secretguard"
SECRET_FILE_BLOCKED = "SECRET_FILE_BLOCKED"
SECRET_REDACTED = "SECRET_REDACTED"
WITHHELD = "[withheld by secretguard: secret file]"
# A line cut by max_preview_chars is read again this far past the cut, so a secret the
# cut ran through is recognised whole and redacted before the text is cut again.
CUT_MARGIN_CHARS = 4096
WHOLE = 1 << 40  # a character cap no payload reaches


class SecretguardPlugin(Plugin):
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
        found: Counter[str] = Counter()
        if result.diff is not None:
            result.diff = _clean_diff(call, result, session, settings, found)
        elif result.preview_degraded and settings.redact:
            # The cap cut a line: redact the line whole, then cut the redacted text.
            wider = session.probe_read(_with_cap(call, len(result.text) + CUT_MARGIN_CHARS))
            redacted, found = redact_secrets(wider.text, settings.extra_patterns)
            result.text = cut(redacted, len(result.text))
        elif settings.redact:
            result.text, found = redact_secrets(result.text, settings.extra_patterns)
        if settings.redact and result.diff is not None:
            result.text, in_text = redact_secrets(result.text, settings.extra_patterns)
            found += in_text
        return _redacted(found, result.path)

    @hookimpl(tryfirst=True)
    def on_search_complete(self, call: SearchCall, result: SearchResult,
                           session: Session) -> Verdict | None:
        settings: SecretguardSettings = session.settings(SECTION)
        found: Counter[str] = Counter()
        if call.kind in ("text", "regex"):
            found["secret_file"] += _drop_secret_files(call, result, session, settings)
        for match in result.matches:
            if _is_secret(match.path, settings):  # found by name: the name is not the secret
                match.snippet = WITHHELD
                match.context = None if match.context is None else WITHHELD
                found["secret_file"] += 1
            elif settings.redact:
                match.snippet, in_snippet = redact_secrets(match.snippet, settings.extra_patterns)
                found += in_snippet
                if match.context:  # the definition shown with the hit is file text too
                    match.context, in_context = redact_secrets(match.context, settings.extra_patterns)
                    found += in_context
        return _redacted(+found, f"the results of {call.query!r}")


def _is_secret(path: str | None, settings: SecretguardSettings) -> bool:
    blocked = [*settings.blocked_globs, *settings.extra_blocked_globs]
    return bool(path) and matches_glob(path, blocked) and not matches_glob(path, settings.allowed_globs)


def _with_cap(call: ReadCall, chars: int) -> ReadCall:
    return call.model_copy(update={"max_preview_chars": chars})


def _clean_diff(call: ReadCall, result: ReadResult, session: Session,
                settings: SecretguardSettings, found: Counter[str]) -> str:
    """The diff window with every secret file's section withheld and secrets redacted.

    A window can start or end inside a file's section, so the sections are found in
    the whole diff and the same lines are taken from it again.
    """
    diff = result.diff or ""
    files = [str(name) for name in result.extra.get("files", [])]
    secret_files = [name for name in files if _is_secret(name, settings)]
    if not secret_files and not result.preview_degraded:
        if not settings.redact:
            return diff
        diff, in_diff = redact_secrets(diff, settings.extra_patterns)
        found += in_diff
        return diff
    whole = session.probe_read(call.model_copy(update={
        "offset": None, "limit": None, "max_preview_chars": WHOLE}))
    lines = withhold_files((whole.diff or "").splitlines(keepends=True),
                           lambda name: _is_secret(name, settings), WITHHELD)
    found["secret_file"] += len(secret_files)
    shown = "".join(lines[result.start_line - 1:result.end_line])
    if settings.redact:
        shown, in_diff = redact_secrets(shown, settings.extra_patterns)
        found += in_diff
    return cut(shown, len(diff)) if result.preview_degraded else shown


def _drop_secret_files(call: SearchCall, result: SearchResult, session: Session,
                       settings: SecretguardSettings) -> int:
    """Remove matches in secret files and leave them out of ``total``: a count that moves
    with a guessed prefix of a secret would confirm it. Returns how many files went."""
    shown_files = {match.path for match in result.matches}
    secret_shown = {path for path in shown_files if _is_secret(path, settings)}
    result.matches = [match for match in result.matches if match.path not in secret_shown]
    if result.total <= len(shown_files):  # every matching file was among the matches
        result.total -= len(secret_shown)
        return len(secret_shown)
    every_file = session.matching_files(call) if result.index_ready else None
    if every_file is not None:
        secret = sum(1 for path in every_file if _is_secret(path, settings))
        result.total -= secret
        return secret
    # The files beyond the matches cannot be told apart: report only what is shown.
    result.total = len(shown_files - secret_shown)
    result.truncated = True
    return len(secret_shown)


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
