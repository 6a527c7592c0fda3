"""Telling an MCP client that the first index is still being built.

While the engine builds its index in the background, a tool call that carried a
progress token (``_meta.progressToken``) gets ``notifications/progress`` with the
files indexed so far, once when it starts and then every second while it runs in a
worker thread; every such call also logs one line to the client
(``notifications/message``, where the protocol version allows it). Once the index is
ready nothing is sent.

The model hears it too, once: the first tool call a connection makes while the index
builds carries one sentence saying so (a search answered from the scan says it itself).
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import AsyncIterator
from typing import Any

import anyio

from sari_core.engine_protocol import ReportsIndexProgress

log = logging.getLogger(__name__)

REPORT_EVERY_SECONDS = 1.0


def _state(engine: object) -> tuple[int, int] | None:
    return engine.index_progress() if isinstance(engine, ReportsIndexProgress) else None


def _message(done: int, total: int) -> str:
    where = f"{done:,} of {total:,} files" if total else "walking the workspace"
    return (f"sari: building the index ({where}); searches answer from a scan of the "
            f"workspace meanwhile")


async def _send(ctx: Any, state: tuple[int, int], log_line: bool) -> None:
    done, total = state
    message = _message(done, total)
    try:
        # A no-op unless the call carried a progress token.
        await ctx.session.report_progress(float(done), float(total) if total else None,
                                          message)
        if log_line:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated at the 2026 protocol only
                await ctx.session.send_log_message("info", message, logger="sari",
                                                   related_request_id=ctx.request_id)
    except Exception as exc:  # noqa: BLE001 - a notification must never fail the call
        log.debug("index progress not sent: %s", exc)


@contextlib.asynccontextmanager
async def reporting_index_progress(ctx: Any, engine: object) -> AsyncIterator[None]:
    """Around one tool call: progress and a log line while the index builds."""
    state = _state(engine)
    if state is None:
        yield
        return
    await _send(ctx, state, log_line=True)

    async def repeat() -> None:
        while True:
            await anyio.sleep(REPORT_EVERY_SECONDS)
            current = _state(engine)
            if current is None:
                return
            await _send(ctx, current, log_line=False)

    async with anyio.create_task_group() as group:
        group.start_soon(repeat)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


BUILDING_SENTENCE = ("The index is still being built: searches answer from a scan of the "
                     "workspace until it is ready.")


def note_first_call_while_building(response: dict[str, Any], engine: object,
                                   told: set[str], connection_id: str) -> None:
    """Add :data:`BUILDING_SENTENCE` to the first response of ``connection_id`` served while
    the index builds (unless it already says the index is being built); ``told`` remembers
    the connections that heard it."""
    if connection_id in told or _state(engine) is None:
        return
    told.add(connection_id)
    block = (response.get("meta") or {}).get("stabilization")
    if not isinstance(block, dict):
        return
    warnings_ = block.setdefault("warnings", [])
    if not any("index is still being built" in str(text) for text in warnings_):
        warnings_.insert(0, BUILDING_SENTENCE)
