"""A deliberately broken plugin for the server tests (in-process and via an entry point).

- tool ``explode`` raises inside its handler (the kernel turns it into PLUGIN_ERROR);
- tool ``whoami`` answers with its session key (to check connection isolation);
- tool ``index_state`` says whether the engine's index is complete;
- ``on_read_enter`` raises for any target named ``boom.py`` (PLUGIN_ERROR warning), and
  prints to stdout (both through ``print`` and fd 1) for ``loud.md``;
- it records ended sessions so tests can see ``end_connection`` happen, and the
  thread each read and mutation ran on.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from pydantic import BaseModel, Field

from sari_core.kernel.manager import hookimpl
from sari_core.kernel.sessions import Session
from sari_core.kernel.tools import ToolSpec
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.models import MutationEvent, ReadCall
from sari_core.responses import tool_response


class ExplodeArgs(BaseModel):
    message: str = Field("kaboom", description="What the exception says.")


class NoArgs(BaseModel):
    pass


def _explode(args: BaseModel, session: Session) -> dict[str, Any]:
    assert isinstance(args, ExplodeArgs)
    raise RuntimeError(args.message)


def _whoami(args: BaseModel, session: Session) -> dict[str, Any]:
    return tool_response("whoami", None, {"session_key": session.key,
                                          "connection_id": session.connection_id},
                         FoldedVerdict(), session.metrics(), "ex-test")


def _index_state(args: BaseModel, session: Session) -> dict[str, Any]:
    # A test-only window on the engine: plugins have no public handle on it.
    ready = getattr(session._kernel.engine, "index_ready", None)
    return tool_response("index_state", None, {"index_ready": ready}, FoldedVerdict(), {},
                         "ex-test")


class RaisingPlugin:
    """Entry-point name in the subprocess tests: ``raiser``."""

    name = "raiser"

    def __init__(self) -> None:
        self.ended: list[str] = []
        self.threads: list[tuple[str, str]] = []

    @hookimpl
    def sari_register_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec("explode", "Raises inside the handler (test).", ExplodeArgs, _explode),
            ToolSpec("whoami", "Returns the session key (test).", NoArgs, _whoami),
            ToolSpec("index_state", "Says whether the index is complete (test).", NoArgs,
                     _index_state),
        ]

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session) -> None:
        self.threads.append(("read", threading.current_thread().name))
        if call.target.endswith("loud.md"):
            print("a stray print that must not reach the protocol", flush=True)
            os.write(1, b"a stray fd-1 write that must not reach the protocol\n")
        if call.target.endswith("boom.py"):
            raise ValueError("boom.py is cursed")

    @hookimpl
    def on_mutation(self, event: MutationEvent, session: Session) -> None:
        if event.phase == "before":
            self.threads.append((event.tool, threading.current_thread().name))

    @hookimpl
    def on_session_end(self, session: Session) -> None:
        self.ended.append(session.key)
