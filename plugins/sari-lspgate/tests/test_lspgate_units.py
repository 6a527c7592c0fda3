"""The gate's pure parts: matching across line shifts, summaries, parsers, the hook's old text."""

from __future__ import annotations

import json

from sari_core.kernel.reasons import ReasonRegistry
from sari_lspgate.claude_code import previous_text
from sari_lspgate.diagnostics import Diagnostic, LineMap, compare
from sari_lspgate.gate import GateState, apply_results
from sari_lspgate.parsers import parse_cargo_json, parse_gnu, parse_go_vet, parse_tsc
from sari_lspgate.policy import reason_code_specs
from sari_lspgate.summary import failure_reads, summarize
from sari_lspgate.validators import ValidatorResult, matches


def diag(line: int, message: str = "boom", code: str = "E1", path: str = "a.py",
         severity: str = "error", source: str = "ruff") -> Diagnostic:
    return Diagnostic(path=path, line=line, column=1, severity=severity, source=source,
                      code=code, message=message)


def same(path: str) -> str:
    return path


# --- matching ---------------------------------------------------------------------------


def test_an_error_moved_by_inserted_lines_is_not_introduced() -> None:
    old = "x = 1\nundefined_name\n"
    new = "# one\n# two\n# three\nx = 1\nundefined_name\n"
    result = compare([diag(2)], [diag(5)], LineMap(old, new))
    assert result.introduced == []
    assert result.carried == [(diag(2), diag(5))]


def test_a_second_occurrence_of_the_same_error_is_introduced_where_it_is_new() -> None:
    old = "a\nbad\nc\n"
    new = "bad\na\nbad\nc\n"  # one inserted at the top, the old one moved to line 3
    result = compare([diag(2)], [diag(1), diag(3)], LineMap(old, new))
    assert result.introduced == [diag(1)]
    assert [new for _, new in result.carried] == [diag(3)]


def test_identity_is_code_message_source_and_file_not_line() -> None:
    before = [diag(3, "x is not defined", "F821")]
    assert compare(before, [diag(9, "x is not defined", "F821")]).introduced == []
    assert compare(before, [diag(3, "y is not defined", "F821")]).introduced == [
        diag(3, "y is not defined", "F821")]
    assert compare(before, [diag(3, "x is not defined", "F821", source="basedpyright")]
                   ).introduced != []
    # Whitespace differences (servers indent with non-breaking spaces) do not matter.
    assert compare([diag(1, "a\n\xa0\xa0b")], [diag(1, "a b")]).introduced == []


def test_line_map_follows_replacements_and_deletions() -> None:
    line_map = LineMap("a\nb\nc\nd\n", "a\nX\nY\nZ\nd\n")
    assert [line_map.new_line(n) for n in (1, 2, 3, 4)] == [1, 2, 3, 5]
    deleted = LineMap("a\nb\nc\n", "a\nc\n")
    assert [deleted.new_line(n) for n in (1, 2, 3)] == [1, 2, 2]


# --- gate state -------------------------------------------------------------------------


def ok(validator: str, baseline: list[Diagnostic] | None, current: list[Diagnostic],
       files: list[str] | None = None) -> ValidatorResult:
    return ValidatorResult(validator=validator, kind="lsp", files=files or ["a.py"],
                           baseline=baseline, current=current)


def test_errors_already_there_never_open_and_introduced_ones_stay_until_gone() -> None:
    state = GateState()
    old_error = diag(1, "old")
    outcome = apply_results(state, "a.py", LineMap(None, None),
                            [ok("ruff", [old_error], [old_error, diag(2, "new")])],
                            ["error"], "open")
    assert outcome.introduced == [diag(2, "new")]
    assert outcome.preexisting == [old_error]
    assert state.gated and state.files == ["a.py"]

    # The next edit: the new error is still there (moved), the old one too -> still gated.
    still = apply_results(state, "a.py", LineMap(None, None),
                          [ok("ruff", [old_error, diag(2, "new")],
                              [old_error, diag(4, "new")])], ["error"], "open")
    assert still.introduced == []
    assert state.open_errors() == [diag(4, "new")]

    apply_results(state, "a.py", LineMap(None, None),
                  [ok("ruff", [old_error, diag(4, "new")], [old_error])], ["error"], "open")
    assert not state.gated


def test_warnings_do_not_gate_unless_configured() -> None:
    warning = diag(2, "unused", severity="warning")
    state = GateState()
    apply_results(state, "a.py", LineMap(None, None), [ok("ruff", [], [warning])], ["error"],
                  "open")
    assert not state.gated
    apply_results(state, "a.py", LineMap(None, None), [ok("ruff", [], [warning])],
                  ["error", "warning"], "open")
    assert state.gated


def test_fail_closed_gates_on_an_unavailable_validator_and_fail_open_does_not() -> None:
    missing = ValidatorResult(validator="gopls", kind="lsp", status="unavailable",
                              reason="executable 'gopls' not found", files=["a.py"])
    for mode, gated in (("open", False), ("closed", True)):
        state = GateState()
        outcome = apply_results(state, "a.py", LineMap(None, None), [missing], ["error"], mode)
        assert outcome.unavailable == [missing]
        assert state.gated is gated
    assert "gopls could not validate this file" in state.open_errors()[0].message


def test_an_unknown_baseline_judges_only_the_changed_file() -> None:
    state = GateState()
    result = ok("cargo", None, [diag(1, path="a.rs"), diag(1, path="b.rs")],
                files=["a.rs", "b.rs"])
    outcome = apply_results(state, "a.rs", LineMap(None, None), [result], ["error"], "open")
    assert [d.path for d in outcome.introduced] == ["a.rs"]
    assert state.files == ["a.rs"]


def test_gate_state_survives_json() -> None:
    state = GateState()
    state.set_for("a.py", "ruff", [diag(3)])
    state.set_for("b.py", "basedpyright", [diag(1, path="b.py", source="basedpyright")])
    again = GateState.from_json(json.loads(json.dumps(state.to_json())))
    assert again.open_errors() == state.open_errors()
    assert again.files == ["a.py", "b.py"]


# --- summary ----------------------------------------------------------------------------


def test_summary_is_deduplicated_and_capped() -> None:
    items = [diag(n, f"error {n}") for n in range(1, 9)] + [diag(1, "error 1", code="X")]
    summary = summarize(items, 5)
    assert summary.count == 8
    assert summary.examples[0] == "a.py:1 - error 1"
    assert len(summary.examples) == 5
    assert summary.text.splitlines()[0] == "8 new errors in a.py:"
    assert summary.text.splitlines()[-1] == "- ... and 3 more"


def test_summary_shows_the_first_line_of_a_message() -> None:
    summary = summarize([diag(2, 'Type "str" is not assignable\n\xa0\xa0"str" is not "int"')], 5)
    assert summary.examples == ['a.py:2 - Type "str" is not assignable']


def test_failure_reads_are_snippets_around_each_location_merged_when_they_overlap() -> None:
    found = [diag(2), diag(2, "again"), diag(6, "near"), diag(30, "far"),
             diag(40, path="b.py")]
    calls = failure_reads(found, 5, "s1")
    assert [(c.arguments["target"], c.arguments["start_line"], c.arguments["end_line"])
            for c in calls] == [("a.py", 1, 9), ("a.py", 27, 33), ("b.py", 37, 43)]
    assert all(c.arguments["session_id"] == "s1" for c in calls)
    assert len(failure_reads(found, 2, None)) == 2


def test_patterns_match_from_the_right() -> None:
    assert matches("pkg/mod.py", ["*.py"])
    assert matches("src/app/main.go", ["app/*.go"])
    assert not matches("README.md", ["*.py", "*.pyi"])


def test_reason_codes_register_after_the_kernel_codes() -> None:
    registry = ReasonRegistry.with_kernel_codes()
    for spec in reason_code_specs():
        registry.register(spec, owner="lspgate")
        assert spec.rank >= 20
    assert registry.order(["LSP_GATE_LIFTED", "LSP_GATE_BLOCKED", "PLUGIN_ERROR"]) == [
        "PLUGIN_ERROR", "LSP_GATE_BLOCKED", "LSP_GATE_LIFTED"]


# --- parsers ----------------------------------------------------------------------------


def test_cargo_json_keeps_primary_spans_and_levels() -> None:
    error = {"reason": "compiler-message", "message": {
        "message": "mismatched types", "level": "error", "code": {"code": "E0308"},
        "spans": [{"file_name": "src/other.rs", "line_start": 9, "column_start": 1,
                   "is_primary": False},
                  {"file_name": "src/main.rs", "line_start": 3, "column_start": 25,
                   "is_primary": True}]}}
    warning = {"reason": "compiler-message", "message": {
        "message": "unused variable: `y`", "level": "warning", "code": None,
        "spans": [{"file_name": "src/main.rs", "line_start": 4, "column_start": 9,
                   "is_primary": True}]}}
    note = {"reason": "compiler-message", "message": {
        "message": "aborting due to 1 previous error", "level": "error", "spans": []}}
    stdout = "\n".join(json.dumps(x) for x in (error, warning, note,
                                               {"reason": "build-finished", "success": False}))
    found = parse_cargo_json(stdout, "", "cargo", same)
    assert [(d.path, d.line, d.column, d.severity, d.code) for d in found] == [
        ("src/main.rs", 3, 25, "error", "E0308"), ("src/main.rs", 4, 9, "warning", "")]


def test_tsc_lines() -> None:
    stdout = ("src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type "
              "'number'.\nsrc/app.ts(9,1): error TS1005: ';' expected.\nFound 2 errors.\n")
    found = parse_tsc(stdout, "", "tsc", same)
    assert [(d.path, d.line, d.column, d.code) for d in found] == [
        ("src/app.ts", 3, 7, "TS2322"), ("src/app.ts", 9, 1, "TS1005")]
    assert found[0].message == "Type 'string' is not assignable to type 'number'."


def test_go_vet_lines() -> None:
    stderr = ("# example.com/demo\n"
              "./main.go:9:2: fmt.Printf format %d has arg name of wrong type string\n"
              "vet: ./util.go:4:6: undefined: missing\n")
    found = parse_go_vet("", stderr, "go-vet", lambda p: p.removeprefix("./"))
    assert [(d.path, d.line, d.column, d.severity) for d in found] == [
        ("main.go", 9, 2, "error"), ("util.go", 4, 6, "error")]


def test_gnu_lines() -> None:
    out = "lib/x.c:12:5: warning: unused variable 'y'\nlib/x.c:20: expected ';'\nnoise\n"
    found = parse_gnu(out, "", "cc", same)
    assert [(d.path, d.line, d.column, d.severity) for d in found] == [
        ("lib/x.c", 12, 5, "warning"), ("lib/x.c", 20, 1, "error")]


# --- the Claude Code hook's old text ----------------------------------------------------


def test_previous_text_prefers_original_file() -> None:
    assert previous_text("Edit", {"old_string": "a", "new_string": "b"},
                         {"originalFile": "the original"}, "b") == ("the original", True)


def test_previous_text_undoes_edits_and_multiedits() -> None:
    assert previous_text("Edit", {"old_string": "x = 1", "new_string": "x = 2"}, {},
                         "y = 0\nx = 2\n") == ("y = 0\nx = 1\n", True)
    edits = {"edits": [{"old_string": "a", "new_string": "b"},
                       {"old_string": "b c", "new_string": "d"}]}
    # a c -> b c -> d; undone in reverse order.
    assert previous_text("MultiEdit", edits, {}, "d") == ("a c", True)
    everywhere = {"old_string": "foo", "new_string": "bar", "replace_all": True}
    assert previous_text("Edit", everywhere, {}, "bar bar") == ("foo foo", True)


def test_previous_text_is_unknown_when_it_cannot_be_told() -> None:
    ambiguous = {"old_string": "x", "new_string": "y"}
    assert previous_text("Edit", ambiguous, {}, "y y") == (None, False)
    assert previous_text("Edit", {"old_string": "x", "new_string": ""}, {}, "") == (None, False)
    assert previous_text("Write", {"content": "z"}, {"type": "update"}, "z") == (None, False)
    assert previous_text("Write", {"content": "z"}, {"type": "create"}, "z") == (None, True)


def test_a_hook_after_a_tool_that_edits_nothing_loads_no_language_server_code() -> None:
    """Claude Code runs the post-tool-use hook after every tool call: a Read or a Bash call
    returns at once, without importing the language-server protocol's types (about half a
    second of CPU)."""
    import subprocess
    import sys

    probe = ("import sys\n"
             "from sari_core import ClientHookEvent\n"
             "from sari_lspgate.claude_code import post_tool_use\n"
             "event = ClientHookEvent(client='claude-code', event='post-tool-use',\n"
             "    payload={'tool_name': 'Read', 'tool_input': {'file_path': 'a.py'}})\n"
             "assert post_tool_use(event) is None\n"
             "print(*[m in sys.modules for m in ('sari_lspgate.runner', 'lsprotocol')])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
