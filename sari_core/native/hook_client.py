"""The thin command hook: a client's ``PreToolUse`` call, sent to a resident Sari.

Run by the client on each of its tool calls, so it imports the standard library only
(the client runs it as ``python -I -S hook_client.py ...``: no site packages, no Sari
package, no kernel). It reads the hook's JSON on stdin, posts it to ``/hooks/<client>``
of a running ``sari serve --transport http`` with the server's bearer token, and prints
the answer. Usage::

    python -I -S hook_client.py CLIENT --url http://127.0.0.1:8765 [--token-file FILE]
        [--timeout SECONDS]
    python -I -S hook_client.py CLIENT --offline

(``--offline``: only the secret-file list below, no server; what Claude Code runs, for
reads of secret files only, beside a hook into the server it already runs.)

Fail safe: when the server is down, slow (no answer within ``--timeout``) or answers
anything but JSON, the call goes ahead untouched, except that a call naming a secret
file (the default secret-file globs of sari-secretguard, kept in step by a test) is
still refused. The session is never wedged: the hook always exits 0 within the timeout.
"""

from __future__ import annotations

import _socket  # the C module: socket.py would import enum, selectors and more
import os
import sys

# json, shlex and fnmatch are imported where they are needed: a call the server answers
# passes its bytes through without parsing them, and costs the imports nothing.

DEFAULT_TIMEOUT = 3.0
DEFAULT_URL = "http://127.0.0.1:8765"
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
SECRET_REFUSAL = ("{path} is a secret file; Sari does not serve its content. Find where the "
                  "code reads the value instead, or ask the user for what you need.")
OFFLINE_REFUSAL = ("{path} is a secret file; Sari does not serve its content (Sari's server "
                   "did not answer, so its own secret-file list decided). Find where the code "
                   "reads the value instead, or ask the user for what you need.")


def _matches(path: str, globs: tuple[str, ...]) -> bool:
    import fnmatch

    parts = [part for part in path.replace("\\", "/").lower().split("/") if part]
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(tail, glob.lower()) for tail in tails for glob in globs)


def is_secret_path(path: str) -> bool:
    """Whether ``path`` (or a trailing part of it) names a secret file."""
    return _matches(path, SECRET_GLOBS) and not _matches(path, SHARED_GLOBS)


def named_paths(payload: dict) -> list[str]:
    """Every path a tool call names: its path arguments, and each word of a shell command."""
    import json
    import shlex

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


def secret_named(payload: dict) -> str | None:
    """The first secret file a tool call names, or None."""
    return next((path for path in named_paths(payload) if is_secret_path(path)), None)


def offline_answer(payload: dict, refusal: str = OFFLINE_REFUSAL) -> dict:
    """What to answer without the server: refuse a call naming a secret file, else nothing."""
    path = secret_named(payload)
    if path is None:
        return {}
    return {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": refusal.format(path=path)}}


def _host_port(url: str) -> tuple[str, int]:
    """Host and port of an ``http://host:port[/...]`` URL (without urllib: see the imports)."""
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    if rest.startswith("["):  # [v6]:port
        host, _, port = rest[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    return host or "127.0.0.1", int(port) if port.isdigit() else 80


def post(url: str, path: str, body: bytes, token: str | None, timeout: float) -> bytes:
    """POST ``body`` to ``path`` of the server at ``url``: plain HTTP/1.1 over a socket (the
    standard library's HTTP client would import ssl, which costs more than the rest).

    :raises OSError: the server is unreachable or slow; ValueError: it did not answer 200.
    """
    host, port = _host_port(url)
    headers = [f"POST {path} HTTP/1.1", f"Host: {url.split('://', 1)[-1].split('/', 1)[0]}",
               "Content-Type: application/json", f"Content-Length: {len(body)}",
               "Connection: close"]
    if token:
        headers.append(f"Authorization: Bearer {token}")
    request = ("\r\n".join(headers) + "\r\n\r\n").encode() + body
    # The host as bytes: a str would load the idna codec to look it up.
    family, kind, proto, _, address = _socket.getaddrinfo(
        host.encode(), port, 0, _socket.SOCK_STREAM)[0]
    conn = _socket.socket(family, kind, proto)
    try:
        conn.settimeout(timeout)
        conn.connect(address)
        conn.sendall(request)
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        conn.close()
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
    url = _option(argv, "--url") or DEFAULT_URL
    timeout = float(_option(argv, "--timeout") or DEFAULT_TIMEOUT)
    raw = sys.stdin.buffer.read()
    if "--offline" not in argv:
        try:
            answer = post(url, f"/hooks/{client}", raw, _token(_option(argv, "--token-file")),
                          timeout).strip()
        except (OSError, ValueError) as exc:
            print(f"sari hook: the server did not answer ({exc}); the call goes ahead unless "
                  "it names a secret file", file=sys.stderr)
        else:
            if answer.startswith(b"{"):
                if answer != b"{}":
                    sys.stdout.buffer.write(answer)  # the server's JSON, passed through as is
                return 0
            print("sari hook: the server's answer is not JSON; the call goes ahead unless it "
                  "names a secret file", file=sys.stderr)
    import json

    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        return 0  # not a hook payload: nothing to decide
    if not isinstance(payload, dict):
        return 0
    # Only the secret-file list: beside a hook that asks Sari (--offline), or without Sari.
    answer_object = offline_answer(payload, SECRET_REFUSAL if "--offline" in argv
                                   else OFFLINE_REFUSAL)
    if answer_object:
        sys.stdout.write(json.dumps(answer_object))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
