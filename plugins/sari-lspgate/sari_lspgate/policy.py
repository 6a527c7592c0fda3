"""The gate's decisions as verdicts: refuse, report the gate, lift it, warn.

Every function here is pure: state and validation outcomes in, a
:class:`~sari_core.kernel.verdicts.Verdict` (or None) out.
"""

from __future__ import annotations

from typing import Any

from sari_core import ReasonCodeSpec, Verdict
from sari_lspgate.gate import ChangeOutcome, GateState
from sari_lspgate.summary import failure_reads, summarize

LSP_GATE_BLOCKED = "LSP_GATE_BLOCKED"
LSP_GATE_ACTIVE = "LSP_GATE_ACTIVE"
LSP_GATE_LIFTED = "LSP_GATE_LIFTED"
LSP_PREEXISTING_ERRORS = "LSP_PREEXISTING_ERRORS"
LSP_UNAVAILABLE = "LSP_UNAVAILABLE"
LSP_EXTERNAL_ERRORS = "LSP_EXTERNAL_ERRORS"

MAX_RECORDED_DIAGNOSTICS = 50


def reason_code_specs() -> list[ReasonCodeSpec]:
    fix_call = {"tool": "read", "arguments": {"mode": "snippet", "target": "<file with errors>",
                                              "start_line": "<line - 3>",
                                              "end_line": "<line + 3>"}}
    return [
        ReasonCodeSpec(LSP_GATE_BLOCKED,
                       "The session is gated: an edit introduced errors that are still there. "
                       "On that edit's response (ok, meta.gated) it reports them; a mutation of "
                       "any other file is refused with it until they are fixed.",
                       "error", fix_call, rank=50),
        ReasonCodeSpec(LSP_GATE_ACTIVE,
                       "Served while the session is gated by errors an edit introduced; edits "
                       "of other files are refused until those are fixed.",
                       "warning", fix_call, rank=51),
        ReasonCodeSpec(LSP_UNAVAILABLE,
                       "A validator (language server or command) is missing, hung or crashed, "
                       "so the change was not fully validated (fail-open: a warning; "
                       "fail-closed: the file is gated).", "warning", rank=52),
        ReasonCodeSpec(LSP_EXTERNAL_ERRORS,
                       "A change made outside Sari introduced errors; gate_external_changes is "
                       "off, so they are reported without gating.", "warning", fix_call, rank=53),
        ReasonCodeSpec(LSP_GATE_LIFTED,
                       "This change removed the last errors that gated the session; the gate "
                       "is lifted.", "info", rank=54),
        ReasonCodeSpec(LSP_PREEXISTING_ERRORS,
                       "The changed file has errors that were there before the change; they "
                       "do not gate.", "info", rank=55),
    ]


def gate_annotations(state: GateState, max_examples: int) -> dict[str, Any]:
    summary = summarize(state.open_errors(), max_examples)
    data: dict[str, Any] = {"gate": "gated" if state.gated else "open"}
    if state.gated:
        data["gated_files"] = state.files
        data["summary"] = summary.to_json()
    return data


def refusal(state: GateState, paths: list[str], max_examples: int,
            session_id: str | None) -> Verdict:
    """A mutation of a file outside the gated ones, while the session is gated."""
    errors = state.open_errors()
    summary = summarize(errors, max_examples)
    files = ", ".join(state.files)
    message = (f"Refused: this session is gated by {summary.text}\n"
               f"Fix these first (edits of {files} are allowed), then retry the change to "
               f"{', '.join(paths)}.")
    return Verdict.block(
        LSP_GATE_BLOCKED, message=message, error_code=LSP_GATE_BLOCKED,
        hint=f"Read the failing lines (next_calls), edit {files} until the errors are gone; "
             "the gate lifts on the edit that removes the last one.",
        next_calls=tuple(failure_reads(errors, max_examples, session_id)),
        suggested_next_action=f"Fix the errors in {files} before editing other files.",
        annotations=gate_annotations(state, max_examples))


def after_change(state: GateState, outcomes: list[ChangeOutcome], was_gated: bool, *,
                 external: bool, recorded: bool, max_examples: int, failure_mode: str,
                 session_id: str | None) -> Verdict | None:
    """The verdict on a written (or externally seen) change, folded into its response."""
    if not outcomes and state.gated == was_gated:
        return None
    codes: list[str] = []
    warnings: list[str] = []
    annotations = gate_annotations(state, max_examples)
    annotations["changes"] = [_outcome_json(outcome) for outcome in outcomes]
    unavailable = [r for outcome in outcomes for r in outcome.unavailable]
    if unavailable:
        codes.append(LSP_UNAVAILABLE)
        warnings += [f"{r.validator} did not validate {', '.join(r.files)}: {r.reason} "
                     f"(fail-{failure_mode})" for r in unavailable]
    if any(outcome.preexisting for outcome in outcomes):
        codes.append(LSP_PREEXISTING_ERRORS)
    if was_gated and not state.gated:
        codes.append(LSP_GATE_LIFTED)
        annotations["gate"] = "lifted"
    if not recorded:
        introduced = [d for outcome in outcomes for d in outcome.introduced]
        if introduced:
            summary = summarize(introduced, max_examples)
            return Verdict.warn(LSP_EXTERNAL_ERRORS, *codes,
                                message=f"A change outside Sari introduced {summary.text}",
                                warnings=(f"A change outside Sari introduced {summary.text}",
                                          *warnings),
                                next_calls=tuple(failure_reads(introduced, max_examples,
                                                               session_id)),
                                annotations=annotations)
    if state.gated:
        errors = state.open_errors()
        summary = summarize(errors, max_examples)
        files = ", ".join(state.files)
        if external:
            # A change seen on disk must not refuse the call that noticed it: warn, and the
            # gate refuses the next mutation of another file.
            text = (f"A change outside Sari left this session gated by {summary.text}\n"
                    f"Edits of other files are refused until they are fixed.")
            return Verdict.warn(LSP_GATE_ACTIVE, *codes, message=text,
                                warnings=(text, *warnings),
                                next_calls=tuple(failure_reads(errors, max_examples, session_id)),
                                annotations=annotations)
        message = (f"The change was written, but the session is now gated by {summary.text}\n"
                   f"Fix them next: edits of {files} are allowed, edits of other files are "
                   "refused until the errors are gone.")
        return Verdict.block(
            LSP_GATE_BLOCKED, *codes, message=message, error_code=LSP_GATE_BLOCKED,
            hint=f"Edit {files} to fix the errors listed; next_calls read the failing lines.",
            warnings=tuple(warnings),
            next_calls=tuple(failure_reads(errors, max_examples, session_id)),
            suggested_next_action=f"Fix the errors in {files}.", annotations=annotations)
    if unavailable:
        return Verdict.warn(*codes, message=warnings[0], warnings=tuple(warnings),
                            annotations=annotations)
    message = "Gate lifted: the errors the session's edits introduced are fixed." \
        if LSP_GATE_LIFTED in codes else ""
    return Verdict(action="allow", reason_codes=tuple(codes), message=message,
                   annotations=annotations)


def while_gated(state: GateState, max_examples: int) -> Verdict | None:
    """Reads and searches are served, with a warning, while the session is gated."""
    if not state.gated:
        return None
    summary = summarize(state.open_errors(), max_examples)
    text = (f"This session is gated by {summary.text}\n"
            f"Reads and searches are served; edits of files other than {', '.join(state.files)} "
            "are refused until these are fixed.")
    return Verdict.warn(LSP_GATE_ACTIVE, message=text,
                        annotations=gate_annotations(state, max_examples))


def compaction_lines(state: GateState, max_examples: int) -> list[str]:
    if not state.gated:
        return []
    summary = summarize(state.open_errors(), max_examples)
    lines = [f"LSP gate: OPEN — {summary.count} error(s) introduced by edits are not fixed yet "
             f"({', '.join(summary.files)}); edits of other files are refused until they are:"]
    return lines + [f"  - {example}" for example in summary.examples]


def _outcome_json(outcome: ChangeOutcome) -> dict[str, Any]:
    return {
        "path": outcome.path,
        "introduced": [d.to_json() for d in outcome.introduced[:MAX_RECORDED_DIAGNOSTICS]],
        "preexisting_errors": len(outcome.preexisting),
        "validators": [result.to_json() for result in outcome.results],
    }
