"""Sari's policies on a coding client's own tools (Claude Code's and Codex's hooks).

The one public path, shared by every hook type and by ``sari replay``::

    run_native_call(kernel: Kernel, call: NativeCall) -> NativeVerdict

``call`` is a client's own tool call (``NativeCall(client, tool, input, session_id, cwd,
recorded_root=None)``; :func:`native_call` reads one from a ``PreToolUse`` payload, and a
replay sets ``recorded_root`` to the folder the recorded session ran in). It becomes the Sari
request that stands for it, runs through the kernel like every other call (``pm.hook``,
the session keyed by the client's ``session_id``, recorded in the execution log marked
``native``), and comes back as a :class:`NativeVerdict` (untouched, deny, narrow or
guide). :func:`answer` puts a verdict in the client's hook protocol. Replaying a
recorded session through ``run_native_call`` is what the hooks would have done to it.

Modules: :mod:`~sari_core.native.calls` (the call), :mod:`~sari_core.native.shell`
(shell commands that read or search), :mod:`~sari_core.native.mapping` (the Sari
request), :mod:`~sari_core.native.decide` (the verdict), :mod:`~sari_core.native.protocol`
(the client's answer), :mod:`~sari_core.native.sessions` (session keying),
:mod:`~sari_core.native.serving` (the ``mcp_tool`` and ``http`` hook endpoints) and
:mod:`~sari_core.native.hook_client` (the thin command hook, standard library only).
"""

from __future__ import annotations

from sari_core.native.calls import NativeCall, NativeCallError, native_call
from sari_core.native.decide import NativeVerdict, run_native_call
from sari_core.native.protocol import answer

__all__ = ["NativeCall", "NativeCallError", "NativeVerdict", "answer", "native_call",
           "run_native_call"]
