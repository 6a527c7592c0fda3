"""Claude Code's ``PostToolUse`` hook: validate what its own Edit/Write/MultiEdit just wrote.

``sari hook claude-code post-tool-use`` gets ``{session_id, cwd, hook_event_name:
"PostToolUse", tool_name, tool_input: {file_path, ...}, tool_response: {filePath,
originalFile?, ...}}`` on stdin. The content before the edit is ``originalFile`` when
Claude Code sends it, else it is rebuilt by undoing the edit's replacements. The file is
validated (servers started for this run only), the gate state of the Claude session is
kept in Sari's state folder between runs, and while errors the session's edits
introduced are open the hook blocks: Claude is shown the summary as the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from sari_core import ClientHookEvent, ClientHookResult, canonical_root, open_private, state_dir
from sari_lspgate.diagnostics import LineMap
from sari_lspgate.gate import GateState, apply_results
from sari_lspgate.settings import load_settings
from sari_lspgate.summary import summarize

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def previous_text(tool_name: str, tool_input: dict[str, Any], tool_response: Any,
                  new_text: str) -> tuple[str | None, bool]:
    """The file's content before the tool ran, and whether it is known.

    :return: (text, True) when known (None text: the tool created the file);
        (None, False) when it cannot be told.
    """
    response = tool_response if isinstance(tool_response, dict) else {}
    original = response.get("originalFile")
    if isinstance(original, str):
        return original, True
    if tool_name == "Write":
        return (None, True) if response.get("type") == "create" else (None, False)
    edits = [tool_input] if tool_name == "Edit" else list(tool_input.get("edits") or [])
    text = new_text
    for edit in reversed(edits):
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not new:
            return None, False
        count = text.count(new)
        if count == 0 or (count > 1 and not edit.get("replace_all")):
            return None, False  # cannot tell which occurrence the edit produced
        text = text.replace(new, old) if edit.get("replace_all") else text.replace(new, old, 1)
    return text, True


def state_path(root: Path, session_id: str) -> Path:
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:12]
    name = _UNSAFE.sub("_", session_id or "default")[:80]
    return state_dir() / "lspgate" / "claude-code" / f"{digest}-{name}.json"


def _load_state(path: Path) -> GateState:
    try:
        return GateState.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return GateState()


def _save_state(path: Path, state: GateState) -> None:
    temporary = path.with_suffix(".tmp")
    with open_private(temporary, "w") as handle:  # 0600 in a 0700 folder
        handle.write(json.dumps(state.to_json(), indent=1))
    os.replace(temporary, path)


def post_tool_use(event: ClientHookEvent) -> ClientHookResult | None:
    """Validate the file an Edit/Write/MultiEdit changed; block while new errors are open."""
    payload = event.payload
    tool_name = str(payload.get("tool_name") or "")
    if tool_name not in EDIT_TOOLS:
        return None
    given = payload.get("tool_input")
    tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
    response = payload.get("tool_response")
    raw_path = tool_input.get("file_path") or (
        response.get("filePath") if isinstance(response, dict) else None)
    if not raw_path:
        return None
    root = Path(canonical_root(payload.get("cwd") or event.workspace or os.getcwd()))
    settings = load_settings(root)
    if not settings.enabled:
        return None
    abs_path = Path(raw_path) if Path(raw_path).is_absolute() else root / raw_path
    abs_path = Path(os.path.realpath(abs_path))
    # (imported here: the language-server protocol's types take about half a second of CPU
    # to import, and Claude Code runs this hook after every tool call, most of them no edit)
    from sari_lspgate.runner import ChangeTarget, ValidationRunner

    runner = ValidationRunner(settings, [root])
    try:
        display = runner.display_path(abs_path)
        if not runner.covers(display):
            return None
        memory = state_path(root, str(payload.get("session_id") or ""))
        state = _load_state(memory)
        was_gated = state.gated
        try:
            new_text: str | None = abs_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            new_text = None
        except (OSError, UnicodeDecodeError):
            return None  # not a text file Sari can validate
        if new_text is None:
            state.forget(display)
            outcome = None
        else:
            old_text, known = previous_text(tool_name, tool_input, response, new_text)
            target = ChangeTarget(root=root, abs_path=abs_path, path=display, old_text=old_text,
                                  new_text=new_text, old_known=known)
            results = runner.validate(target)
            outcome = apply_results(state, display, LineMap(old_text, new_text), results,
                                    settings.gate_severities, settings.failure_mode)
        _save_state(memory, state)
    finally:
        runner.close()
    return _result(state, was_gated, display, outcome, settings.max_examples,
                   settings.failure_mode)


def _result(state: GateState, was_gated: bool, display: str, outcome: Any, max_examples: int,
            failure_mode: str) -> ClientHookResult | None:
    notes = []
    if outcome is not None and outcome.unavailable:
        notes += [f"Sari LSP gate (LSP_UNAVAILABLE): {r.validator} did not validate "
                  f"{display}: {r.reason} (fail-{failure_mode})." for r in outcome.unavailable]
    if state.gated:
        summary = summarize(state.open_errors(), max_examples)
        files = ", ".join(state.files)
        elsewhere = "" if display in state.files else (
            f" {display} was changed while the gate was closed; go back to {files} first.")
        reason = (f"Sari LSP gate (LSP_GATE_BLOCKED): edits introduced {summary.text}\n"
                  f"Fix these next (edit {files}); do not edit other files until they are "
                  f"gone.{elsewhere}")
        return ClientHookResult(block=True, reason="\n".join([reason, *notes]))
    if was_gated:
        notes.insert(0, "Sari LSP gate (LSP_GATE_LIFTED): the errors the edits introduced are "
                        "fixed; the gate is lifted.")
    if notes:
        return ClientHookResult(additional_context="\n".join(notes))
    return None
