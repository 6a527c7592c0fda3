"""Replay recorded sessions through a kernel with a chosen set of policies.

For every session and policy set the replay walks the recorded calls in order:

* a call that maps to a Sari search or read (:mod:`sari_core.replay.mapping`) runs
  through the kernel; the model would have received Sari's text for it;
* any other call passes through: the model received the same result then and now;
* a call that cannot be compared is left out of both columns, counted and reported with
  why: the transcript holds no result for it, or Sari could not serve what the session
  was served (a file missing from the rebuilt workspace), or the other way round;
* a policy's refusal is counted (its text, its turn) and the replay goes on; the lines the
  session was shown and the refusal withheld are kept as withheld;
* lines Sari withheld (a refusal, an outline or a window in place of a read) that a later
  call of the session reads, greps or edits are charged to the Sari column as the read the
  agent would have made first (:mod:`sari_core.replay.withheld`).

The share of recorded calls compared is reported next to every ratio.

Both columns are costed with :func:`sari_core.costmodel.session_cost`; the Sari column
also pays for the tool definitions Sari lists to the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from sari_core.costmodel import CostModel, SessionCost, session_cost, tokens
from sari_core.errors import ErrorCode
from sari_core.kernel import Kernel
from sari_core.kernel.manager import ENTRY_POINT_GROUP
from sari_core.native import run_native_call
from sari_core.native.mapping import SariRequest
from sari_core.replay.checkout import Snapshot
from sari_core.replay.mapping import (
    SARI_PREFIX,
    PassThrough,
    SariCall,
    remember_refs,
    to_sari_call,
)
from sari_core.replay.native import client_view, native_call, recorded_lines
from sari_core.replay.transcript import RecordedCall, Transcript
from sari_core.replay.withheld import (
    Action,
    Withheld,
    delivered_lines,
    file_lines,
    follow_up_tokens,
    touched_lines,
)

# Engine and argument errors: the call was served, the file just was not there.
# Any other error code is a policy's refusal.
SERVICE_ERRORS = frozenset(value for key, value in vars(ErrorCode).items()
                           if key.isupper() and isinstance(value, str))
MUTATIONS = ("Edit", "MultiEdit", "Write")


@dataclass(frozen=True)
class Refusal:
    """Where a policy refused a call; the replay goes on after it."""

    call_index: int
    line: int
    tool: str
    arguments: dict[str, Any]
    code: str
    message: str


@dataclass(frozen=True)
class Uncompared:
    """A recorded call the replay could not compare, and why; it counts in neither column."""

    line: int
    tool: str
    reason: str


@dataclass
class SessionReplay:
    """One session under one policy set: what the model received then and through Sari.

    :ivar replayed: calls compared through Sari.
    :ivar passed_through: calls compared unchanged (the same in both columns).
    :ivar uncompared: calls left out of both columns, with why.
    :ivar follow_ups: reads charged to the Sari column because a later call of the session
        read, grepped or edited lines Sari had withheld.
    """

    session_id: str
    transcript: str
    policies: tuple[str, ...]
    where: str
    commit: str | None
    calls_recorded: int
    replayed: int = 0
    passed_through: int = 0
    errors: int = 0
    left_out: int = 0
    tokens_then: list[int] = field(default_factory=list)
    tokens_sari: list[int] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    uncompared: list[Uncompared] = field(default_factory=list)
    follow_ups: int = 0
    actions: list[Action] = field(default_factory=list)
    changed_since: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tool_definition_tokens: int = 0
    model: CostModel = field(default_factory=CostModel)

    @property
    def compared(self) -> int:
        return self.replayed + self.passed_through

    @property
    def coverage(self) -> float:
        """The share of the recorded calls compared (1.0 for a session with no calls)."""
        return self.compared / self.calls_recorded if self.calls_recorded else 1.0

    @property
    def cost_then(self) -> SessionCost:
        return session_cost(self.tokens_then, 0, self.model)

    @property
    def cost_sari(self) -> SessionCost:
        return session_cost(self.tokens_sari, self.tool_definition_tokens, self.model)


def policy_plugins(names: Sequence[str]) -> list[object]:
    """Fresh instances of the installed plugins named (an allow-list; others stay out).

    :raises ValueError: a name no installed plugin has.
    """
    installed = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    unknown = [name for name in names if name not in installed]
    if unknown:
        raise ValueError(f"no installed policy plugin named {', '.join(unknown)}; installed: "
                         f"{', '.join(sorted(installed)) or 'none'}")
    plugins = []
    for name in names:
        loaded = installed[name].load()
        plugins.append(loaded() if isinstance(loaded, type) else loaded)
    return plugins


def model_text(response: dict[str, Any]) -> str:
    """The text a client forwards to the model for a response (the server's rendering)."""
    from sari_core.server.results import to_call_result

    result = to_call_result(response)
    return "\n".join(getattr(block, "text", "") for block in result.content)


def tool_definition_tokens(kernel: Kernel) -> int:
    """Tokens of the tool definitions Sari lists (name, description, input schema)."""
    from sari_core.server.catalog import ToolCatalog

    listed = [{"name": tool.name, "description": tool.description,
               "input_schema": tool.input_schema} for tool in ToolCatalog(kernel).tools()]
    return tokens(json.dumps(listed, separators=(",", ":")))


def open_kernel(snapshot: Snapshot, policies: Sequence[str]) -> Kernel:
    kernel = Kernel(roots=[snapshot.root], plugins=policy_plugins(policies),
                    load_entry_points=False, analytics_sinks=[])
    ensure_index = getattr(kernel.engine, "ensure_index", None)
    if callable(ensure_index):
        ensure_index(progress=False)
    return kernel


def _apply_mutation(call: RecordedCall, root: Path, cwd: str | None) -> str | None:
    """Replay a successful edit on the private copy so later reads see it; a note if not."""
    from sari_core.replay.mapping import relative_target

    target = relative_target(str(call.input.get("file_path") or ""), cwd)
    if target is None:
        return None
    path = root / target
    try:
        if call.name == "Write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(str(call.input.get("content") or ""), encoding="utf-8")
            return None
        text = path.read_text(encoding="utf-8")
        edits = call.input.get("edits") if call.name == "MultiEdit" else [call.input]
        for edit in edits if isinstance(edits, list) else []:
            old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
            if old not in text:
                return f"line {call.line}: the recorded {call.name} of {target} does not apply"
            text = text.replace(old, new) if edit.get("replace_all") else \
                text.replace(old, new, 1)
        path.write_text(text, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"line {call.line}: the recorded {call.name} of {target} failed: {exc}"
    return None


def replay_session(kernel: Kernel, transcript: Transcript, snapshot: Snapshot,
                   policies: Sequence[str], definitions: int,
                   on_call: Callable[[], None] = lambda: None) -> SessionReplay:
    """Replay one transcript on an open kernel (one kernel session per transcript).

    :param kernel: a kernel over ``snapshot.root`` with ``policies`` registered.
    :param transcript: the recorded session.
    :param snapshot: where the kernel serves from.
    :param policies: the policy names, for the report.
    :param definitions: tokens of the tool definitions Sari lists.
    :param on_call: called after each recorded call (progress).
    :return: the :class:`SessionReplay`.
    """
    outcome = SessionReplay(transcript.session_id, str(transcript.path), tuple(policies),
                            snapshot.note, snapshot.commit, len(transcript.calls),
                            notes=list(transcript.notes), tool_definition_tokens=definitions)
    state = _State(kernel, transcript, snapshot, outcome)
    for index, call in enumerate(transcript.calls):
        on_call()
        if call.result is None:
            outcome.left_out += 1
            outcome.uncompared.append(Uncompared(call.line, call.name,
                                                 "the transcript holds no result"))
            continue
        needed = state.withheld.needed(touched_lines(call, transcript.cwd, snapshot.root))
        if call.name.startswith(SARI_PREFIX):
            _replay_sari_call(state, index, call, needed)
        else:
            _replay_native_call(state, index, call, needed)
        if call.name in MUTATIONS and snapshot.private and not call.is_error:
            note = _apply_mutation(call, snapshot.root, transcript.cwd)
            if note:
                outcome.notes.append(note)
    return outcome


@dataclass
class _State:
    """One session's replay under way."""

    kernel: Kernel
    transcript: Transcript
    snapshot: Snapshot
    outcome: SessionReplay
    withheld: Withheld = field(default_factory=Withheld)
    refs: dict[str, str] = field(default_factory=dict)
    # The lines of each file the model has been shown so far in the Sari column.
    seen: dict[str, set[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.outcome.actions = self.withheld.actions

    @property
    def connection(self) -> str:
        """The connection the session's hook calls run on (the client's session id)."""
        return f"claude-code:{self.transcript.session_id}"


def _outside(request: SariRequest) -> bool:
    """A call of a file outside the workspace: the hooks leave it to the client."""
    target = request.arguments.get("target") or request.arguments.get("path")
    return isinstance(target, str) and target.startswith("/")


def _compared(state: _State, call: RecordedCall, sari_tokens: int) -> None:
    state.outcome.tokens_then.append(tokens((call.result or "").rstrip()))
    state.outcome.tokens_sari.append(sari_tokens)


def _replay_native_call(state: _State, index: int, call: RecordedCall,
                        needed: dict[str, set[int]]) -> None:
    """The client's own tool, through the hook path, obeyed as the client obeys it."""
    root, cwd, outcome = state.snapshot.root, state.transcript.cwd, state.outcome
    verdict = run_native_call(state.kernel, native_call(call, state.transcript.session_id,
                                                        cwd, root))
    request = verdict.request
    if verdict.action == "untouched" and (not isinstance(request, SariRequest)
                                          or _outside(request)):
        _charge_follow_ups(outcome, needed, root, state.withheld, call.line)
        outcome.passed_through += 1
        _compared(state, call, tokens((call.result or "").rstrip()))
        return
    response = verdict.response or {}
    code = None if not response or response.get("ok") \
        else str((response.get("error") or {}).get("code"))
    served_error = code in SERVICE_ERRORS
    view = client_view(call, verdict, cwd, root)
    for path, rows in (view.shown or {}).items():  # lines this call shows now are no debt
        if path in needed:
            state.withheld.release(path, needed[path] & rows, None)
            needed[path] -= rows
    charged = _charge_follow_ups(outcome, needed, root, state.withheld, call.line)
    acted = verdict.action in ("deny", "narrow")
    if served_error and not call.is_error or acted and call.is_error and not served_error:
        outcome.uncompared.append(Uncompared(call.line, call.name, _why_uncompared(
            call, code)))
        return
    outcome.replayed += 1
    _compared(state, call, tokens(view.text))
    if served_error and verdict.action != "deny":
        outcome.errors += 1
    if verdict.action == "deny":
        outcome.refusals.append(Refusal(index, call.line, call.name, dict(call.input),
                                        code or "DENIED", verdict.reason))
    recorded = recorded_lines(call, verdict, cwd, root) if not call.is_error else {}
    if view.shown is not None and not call.is_error:
        kind = "refused" if verdict.action == "deny" else "narrowed"
        for path, rows in recorded.items():
            # Lines the model was shown before (a re-read's reference line) are no loss.
            kept = rows - view.shown.get(path, set()) - charged.get(path, set()) \
                - state.seen.get(path, set())
            state.withheld.add(Action(call.line, call.name, path, kind, 0), path, kept)
    for path, rows in (recorded if view.shown is None else view.shown).items():
        state.seen.setdefault(path, set()).update(rows)
    for path, rows in charged.items():
        state.seen.setdefault(path, set()).update(rows)


def _replay_sari_call(state: _State, index: int, call: RecordedCall,
                      needed: dict[str, set[int]]) -> None:
    """A recorded call of Sari's own tool, run as recorded."""
    root, outcome = state.snapshot.root, state.outcome
    mapped = to_sari_call(call, state.transcript.cwd, state.refs)
    if isinstance(mapped, PassThrough):
        _charge_follow_ups(outcome, needed, root, state.withheld, call.line)
        outcome.passed_through += 1
        _compared(state, call, tokens((call.result or "").rstrip()))
        return
    response = _execute(state.kernel, mapped, state.connection)
    target = str(mapped.arguments.get("target")) if mapped.tool == "read" else None
    if target is not None and target in needed:
        brought = needed[target] & delivered_lines(response)  # this read shows them
        state.withheld.release(target, brought, None)
        needed[target] -= brought
    _charge_follow_ups(outcome, needed, root, state.withheld, call.line)
    error = response.get("error") or {}
    code = str(error.get("code") or "BLOCKED") if not response.get("ok") else None
    served_error = code in SERVICE_ERRORS
    if (code is None or served_error) and served_error != call.is_error:
        outcome.uncompared.append(Uncompared(call.line, call.name, _why_uncompared(call, code)))
        return
    outcome.replayed += 1
    _compared(state, call, tokens(model_text(response)))
    if code is None and mapped.tool == "search":
        remember_refs(response, state.refs)
    elif served_error:
        outcome.errors += 1
    elif code is not None:
        outcome.refusals.append(Refusal(index, call.line, mapped.tool, mapped.arguments,
                                        code, str(error.get("message") or "")))


def _why_uncompared(call: RecordedCall, code: str | None) -> str:
    if code is None:
        return "the session's call failed where Sari's succeeded: the files differ"
    return (f"Sari answered {code} where the session was served: the file is not the same "
            "in the rebuilt workspace")


def _charge_follow_ups(outcome: SessionReplay, needed: dict[str, set[int]], root: Path,
                       withheld: Withheld, at: int) -> dict[str, set[int]]:
    """Charge the Sari column one read per file of the withheld lines the call needs.

    :return: the lines those reads show, by file.
    """
    charged: dict[str, set[int]] = {}
    for path, rows in needed.items():
        if not rows:
            continue
        lines = file_lines(root, path) or []
        read_tokens, shown = follow_up_tokens(lines, withheld.of_same_calls(path, rows))
        outcome.tokens_sari.append(read_tokens)
        outcome.follow_ups += 1
        withheld.release(path, shown, at)
        charged[path] = shown
    return charged


def _execute(kernel: Kernel, call: SariCall, connection: str) -> dict[str, Any]:
    if call.tool == "search":
        return kernel.execute_search(call.arguments, connection_id=connection)
    return kernel.execute_read(call.arguments, connection_id=connection)
