"""Where a client's hooks reach a running Sari server, without a process per call.

* ``mcp_tool`` hooks (Claude Code 2.1.118 and later) call the server's ``hook`` tool over
  the MCP connection the client already has. The tool is not listed to the model (it is
  still callable), and its text is the hook's JSON answer. A hook call binds its MCP
  connection to the client's session (:mod:`sari_core.native.sessions`), so the model's
  own Sari calls on that connection share the native calls' session state.
* ``http`` hooks (Claude Code) and the thin command hook (Codex,
  :mod:`sari_core.native.hook_client`) ``POST`` the hook's JSON to ``/hooks/<client>`` of
  ``sari serve --transport http``, behind the same Host, Origin and bearer-token checks as
  the MCP endpoint.

Both answer through :func:`hook_answer`. A failure inside Sari never refuses the call:
it goes ahead, unless it names a secret file (the thin client's own list decides then).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sari_core.native.calls import CLIENTS, NativeCallError, native_call
from sari_core.native.decide import run_native_call
from sari_core.native.hook_client import offline_answer
from sari_core.native.protocol import PRE_TOOL_USE, answer
from sari_core.native.sessions import bind_connection

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from sari_core.kernel import Kernel
    from sari_core.server.app import SariServer

log = logging.getLogger(__name__)

HOOK_TOOL = "hook"
HOOKS_PATH = "/hooks/"
MAX_HOOK_BYTES = 4 * 1024 * 1024
HOOK_TOOL_DEFINITION: dict[str, Any] = {
    "name": HOOK_TOOL,
    "description": "For the client's own hooks, not the model: a PreToolUse call of the "
                   "client's own tool, answered in the client's hook protocol.",
    "input_schema": {"type": "object", "properties": {
        "client": {"type": "string", "enum": list(CLIENTS)},
        "hook_event_name": {"type": "string"},
        "tool_name": {"type": "string"},
        "tool_input": {"type": ["object", "string"]},
        "session_id": {"type": "string"},
        "cwd": {"type": "string"},
    }, "required": ["tool_name"]},
}


def hook_answer(kernel: Kernel, client: str, payload: Mapping[str, Any],
                mcp_connection: str | None = None) -> dict[str, Any]:
    """The client's answer to one ``PreToolUse`` hook payload (``{}``: go ahead as asked).

    :param mcp_connection: the MCP connection an ``mcp_tool`` hook came on, bound to the
        client's session.
    """
    event = payload.get("hook_event_name")
    if event not in (None, "", PRE_TOOL_USE):
        return {}
    try:
        call = native_call(client, payload)
    except NativeCallError as exc:
        log.info("hook: %s", exc)
        return {}
    if mcp_connection is not None:
        bind_connection(mcp_connection, call)
    try:
        return answer(client, run_native_call(kernel, call))
    except Exception:  # a hook must never wedge the client's session
        log.exception("hook: %s %s failed; the call goes ahead unless it names a secret file",
                      client, call.tool)
        return offline_answer(dict(payload))


def hook_tool_text(kernel: Kernel, arguments: Mapping[str, Any], mcp_connection: str) -> str:
    """The ``hook`` tool's text: the JSON answer (``{}`` for none)."""
    client = str(arguments.get("client") or "claude-code")
    if client not in CLIENTS:
        return "{}"
    return json.dumps(hook_answer(kernel, client, arguments, mcp_connection))


class HookRoutes:
    """ASGI: ``POST /hooks/<client>`` answered by :func:`hook_answer`; the rest to ``app``."""

    def __init__(self, app: ASGIApp, server: SariServer) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(HOOKS_PATH):
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import JSONResponse, PlainTextResponse

        from sari_core.server.workers import Busy

        client = path[len(HOOKS_PATH):].strip("/")
        if client not in CLIENTS:
            response: Any = PlainTextResponse(
                f"no hooks for {client!r}; POST to /hooks/{'|'.join(CLIENTS)}\n", 404)
        elif scope.get("method") != "POST":
            response = PlainTextResponse("POST the hook's JSON\n", 405)
        else:
            body = await Request(scope, receive).body()
            try:
                payload = json.loads(body) if len(body) <= MAX_HOOK_BYTES else None
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                response = PlainTextResponse("the body is not a hook's JSON object\n", 400)
            else:
                try:
                    kernel = await self.server.kernel_ready()
                    answered = await self.server.workers.run(
                        HOOK_TOOL, f"hooks:{client}", hook_answer, kernel, client, payload)
                except Busy:
                    answered = offline_answer(payload)
                except Exception:  # the kernel failed to open: the call goes ahead
                    log.exception("hook: no kernel to answer %s", client)
                    answered = offline_answer(payload)
                response = JSONResponse(answered)
        await response(scope, receive, send)
