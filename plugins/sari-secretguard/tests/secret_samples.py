"""Fake secrets, assembled at run time so that no scanner mistakes this repository for a leak."""

from __future__ import annotations

import base64
import hashlib

KEY_LABEL = "RSA " + "PRIVATE KEY"


def key_body(lines: int = 6) -> list[str]:
    """Deterministic base64 lines shaped like a PEM body (64 characters each)."""
    blob = b"".join(hashlib.sha512(str(i).encode()).digest() for i in range(lines))
    text = base64.b64encode(blob).decode()
    return [text[i:i + 64] for i in range(0, 64 * lines, 64)]


def pem_block(lines: int = 6) -> str:
    return "\n".join([f"-----BEGIN {KEY_LABEL}-----", *key_body(lines), f"-----END {KEY_LABEL}-----"])


def source_with_key() -> str:
    """A Python module with a private key pasted into it, the way it happens."""
    return (
        '"""Deploy helper."""\n'
        "\n"
        "import os\n"
        "\n"
        f'DEPLOY_KEY = """{pem_block()}"""\n'
        "\n"
        "\n"
        "def connect(host):\n"
        "    return os.system(f'ssh {host}')\n"
    )


AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SLACK_TOKEN = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
API_KEY_VALUE = "sk3cr3t-" + "value-1234567890"
