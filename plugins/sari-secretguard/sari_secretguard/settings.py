"""Settings of the ``[tool.sari.secretguard]`` section."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, Field, field_validator

from sari_core import OperatorOnly, Tightens

# Globs match a workspace-relative path or any trailing part of it, case-insensitively:
# ``.aws/credentials`` matches ``home/.aws/credentials``, ``*.pem`` matches ``certs/site.pem``.
DEFAULT_BLOCKED_GLOBS = [
    ".env", ".env.*", "*.env", ".envrc",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".aws/credentials", ".netrc", "_netrc", ".git-credentials", ".pgpass",
    ".pypirc", ".npmrc", ".docker/config.json", ".kube/config",
    "credentials.json", "application_default_credentials.json",
    "*service-account*.json", "*service_account*.json", "*serviceaccount*.json",
    "*.tfstate", "*.tfvars",
    ".git/config",  # remote URLs with passwords, http.extraHeader tokens
]
# Files that look like secrets by name but are meant to be shared.
DEFAULT_ALLOWED_GLOBS = [".env.example", ".env.sample", ".env.template", "*.pub"]


class SecretguardSettings(BaseModel):
    """What counts as a secret file, and whether payloads are redacted."""

    blocked_globs: Annotated[list[str], OperatorOnly(
        "a glob left out serves that secret file", workspace_may="add")] = Field(
        default_factory=lambda: list(DEFAULT_BLOCKED_GLOBS),
        description="Files whose reads are refused and whose search snippets are withheld.",
    )
    extra_blocked_globs: Annotated[list[str], Tightens(
        "add", "a glob left out serves those files")] = Field(
        default_factory=list,
        description="More globs to block, added to blocked_globs (so a team keeps the defaults).",
    )
    allowed_globs: Annotated[list[str], OperatorOnly(
        "an allowed glob serves files a blocked glob hides")] = Field(
        default_factory=lambda: list(DEFAULT_ALLOWED_GLOBS),
        description="Exceptions: files matching these are served even if a blocked glob matches.",
    )
    redact: Annotated[bool, OperatorOnly(
        "false serves secrets in clear", workspace_may="enable")] = Field(
        True, description="Redact likely secrets (private keys, tokens) from read and search payloads.",
    )
    extra_patterns: Annotated[list[str], OperatorOnly(
        "each pattern runs over every payload, and a slow one stalls every read")] = Field(
        default_factory=list,
        description="More regular expressions whose matches are redacted (whole match).",
    )

    @field_validator("extra_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:  # stop the kernel at start, naming the key, not mid-call
                raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None
        return patterns
