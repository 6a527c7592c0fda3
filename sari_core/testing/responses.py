"""Reading a kernel's responses in a plugin's tests: the stabilization block, the ready-to-run
follow-up calls, and the response as a client decodes it."""

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
    if next_call["tool"] != "read":
        raise ValueError(f"next call names tool {next_call['tool']!r}; expected search or read")
    return kernel.execute_read(next_call["arguments"], **kw)  # type: ignore[no-any-return]


def as_received(response: Response) -> Response:
    """The response as a client decodes it (JSON), without the per-kernel execution id, so two
    kernels' answers to the same call compare equal."""
    decoded: Response = json.loads(json.dumps(response))
    decoded["meta"].pop("execution_id", None)
    return decoded
