"""Reading the kernel's responses in tests: the stabilization block, follow-up calls, JSON form."""

from __future__ import annotations

import json
from typing import Any

Response = dict[str, Any]


def stabilization(response: Response) -> dict[str, Any]:
    """``meta.stabilization``: reason codes, warnings, next calls, annotations."""
    return response["meta"]["stabilization"]  # type: ignore[no-any-return]


def run_next_call(kernel: Any, next_call: dict[str, Any], **kw: Any) -> Response:
    """Run a response's ready-to-run call exactly as given (a search or a read)."""
    if next_call["tool"] == "search":
        return kernel.execute_search(next_call["arguments"], **kw)  # type: ignore[no-any-return]
    assert next_call["tool"] == "read"
    return kernel.execute_read(next_call["arguments"], **kw)  # type: ignore[no-any-return]


def as_received(response: Response) -> Response:
    """The response as a client decodes it (JSON), without the per-kernel execution id."""
    decoded: Response = json.loads(json.dumps(response))
    decoded["meta"].pop("execution_id", None)
    return decoded
