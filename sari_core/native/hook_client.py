"""The thin command hook: a client's ``PreToolUse`` call, sent to a resident Sari.

Run by the client on each of its tool calls, so it imports the standard library only
(the client runs it as ``python -I -S hook_client.py ...``: no site packages, no Sari
package, no kernel). It reads the hook's JSON on stdin, posts it to ``/hooks/<client>``
of a running ``sari serve --transport http`` with the server's bearer token, and prints
the answer. Usage::

    python -I -S hook_client.py CLIENT --url http://127.0.0.1:8765 [--token-file FILE]
        [--timeout SECONDS]

Fail safe: when the server is down, slow (no answer within ``--timeout``) or answers
anything but JSON, the call goes ahead untouched, except that a call naming a secret
file (the default secret-file globs of sari-secretguard, kept in step by a test) is
still refused. The session is never wedged: the hook always exits 0 within the timeout.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import socket
import sys
from urllib.parse import urlsplit

DEFAULT_TIMEOUT = 3.0
TOKEN_ENV = "SARI_HTTP_TOKEN"
# The default secret-file globs of sari-secretguard (a test keeps the two lists equal).
SECRET_GLOBS = (
    ".env", ".env.*", "*.env", ".envrc",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".aws/credentials", ".netrc", "_netrc", ".git-credentials", ".pgpass",
    ".pypirc", ".npmrc", ".docker/config.json", ".kube/config",
    "credentials.json", "application_default_credentials.json",
    "*service-account*.json", "*service_account*.json", "*serviceaccount*.json",
    "*.tfstate", "*.tfvars",
    ".git/config",
)
SHARED_GLOBS = (".env.example", ".env.sample", ".env.template", "*.pub")
OFFLINE_REFUSAL = ("{path} is a secret file; Sari does not serve its content (Sari's server "
                   "did not answer, so its own secret-file list decided). Find where the code "
                   "reads the value instead, or ask the user for what you need.")


def _matches(path: str, globs: tuple[str, ...]) -> bool:
    parts = [part for part in path.replace("\\", "/").lower().split("/") if part]
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(tail, glob.lower()) for tail in tails for glob in globs)


def is_secret_path(path: str) -> bool:
    """Whether ``path`` (or a trailing part of it) names a secret file."""
    return _matches(path, SECRET_GLOBS) and not _matches(path, SHARED_GLOBS)


def named_paths(payload: dict) -> list[str]:
    """Every path a tool call names: its path arguments, and each word of a shell command."""
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = {}
    if not isinstance(tool_input, dict):
        return []
    paths = [str(tool_input[key]) for key in ("file_path", "notebook_path", "path")
             if isinstance(tool_input.get(key), str)]
    command = tool_input.get("command")
    if isinstance(command, list):
        paths.extend(str(word) for word in command)
    elif isinstance(command, str):
        try:
            paths.extend(shlex.split(command))
        except ValueError:  # an unclosed quote: the words as they stand
            paths.extend(command.split())
    return paths


def offline_answer(payload: dict) -> dict:
    """What to answer without the server: refuse a call naming a secret file, else nothing."""
    for path in named_paths(payload):
        if is_secret_path(path):
            return {"hookSpecificOutput": {
                "hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": OFFLINE_REFUSAL.format(path=path)}}
    return {}


def post(url: str, path: str, body: bytes, token: str | None, timeout: float) -> bytes:
    """POST ``body`` to ``path`` of the server at ``url`` (plain HTTP/1.1 over a socket: the
    standard library's HTTP client would import ssl, which costs more than the rest).

    :raises OSError: the server is unreachable or slow; ValueError: it did not answer 200.
    """
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    headers = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}",
               "Content-Type: application/json", f"Content-Length: {len(body)}",
               "Connection: close"]
    if token:
        headers.append(f"Authorization: Bearer {token}")
    request = ("\r\n".join(headers) + "\r\n\r\n").encode() + body
    with socket.create_connection((host, port), timeout=timeout) as conn:
        conn.settimeout(timeout)
        conn.sendall(request)
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    head, _, answer = b"".join(chunks).partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if len(status) < 2 or status[1] != b"200":
        raise ValueError(f"the server answered {head[:80]!r}")
    return answer


def _token(token_file: str | None) -> str | None:
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV].strip()
    if token_file:
        try:
            with open(token_file, encoding="utf-8") as handle:
                return handle.read().strip() or None
        except OSError:
            return None
    return None


def _option(argv: list[str], name: str) -> str | None:
    if name in argv and argv.index(name) + 1 < len(argv):
        return argv[argv.index(name) + 1]
    return None


def main(argv: list[str]) -> int:
    client = argv[0] if argv and not argv[0].startswith("-") else "claude-code"
    url = _option(argv, "--url") or "http://127.0.0.1:8765"
    timeout = float(_option(argv, "--timeout") or DEFAULT_TIMEOUT)
    raw = sys.stdin.buffer.read()
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        return 0  # not a hook payload: nothing to decide
    if not isinstance(payload, dict):
        return 0
    try:
        answer = json.loads(post(url, f"/hooks/{client}", raw,
                                 _token(_option(argv, "--token-file")), timeout) or b"{}")
    except (OSError, ValueError) as exc:
        print(f"sari hook: the server did not answer ({exc}); the call goes ahead unless it "
              "names a secret file", file=sys.stderr)
        answer = offline_answer(payload)
    if isinstance(answer, dict) and answer:
        sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
