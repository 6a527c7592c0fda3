"""A command validator for another language: ``cargo check --message-format=json``.

Runs the real cargo on a crate with no dependencies, offline; skipped where cargo is absent.
"""

from __future__ import annotations

import shutil

import pytest
from lspgate_workspace import KernelFactory, edit, gate_note, stabilization

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")

CARGO_TOML = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
MAIN_RS = ("mod util;\n\nfn main() {\n    let x: i32 = util::add(1, 2);\n"
           "    println!(\"{}\", x);\n}\n")
UTIL_RS = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
CARGO = {"name": "cargo", "command": ["cargo", "check", "--offline", "--quiet",
                                      "--message-format=json"],
         "patterns": ["*.rs"], "parser": "cargo-json"}


def test_cargo_check_gates_on_an_error_the_edit_introduced_in_another_file(
        make_kernel: KernelFactory) -> None:
    kernel = make_kernel({"Cargo.toml": CARGO_TOML, "src/main.rs": MAIN_RS,
                          "src/util.rs": UTIL_RS},
                         ruff=False, basedpyright=False, command_validators=[CARGO],
                         command_timeout_seconds=120.0)
    # Changing a signature breaks its caller in main.rs: the whole crate is checked.
    response = edit(kernel, "src/util.rs", "b: i32) -> i32", "b: &str) -> i32", "cargo")
    assert response["ok"] is True
    assert response["meta"]["gated"]["code"] == "LSP_GATE_BLOCKED"
    note = gate_note(response)
    introduced = note["changes"][0]["introduced"]
    assert {d["source"] for d in introduced} == {"cargo"}
    assert ("src/main.rs", "E0308") in {(d["path"], d["code"]) for d in introduced}
    # Both the edited file and the broken caller are gated files: either may be fixed.
    assert note["gated_files"] == ["src/main.rs", "src/util.rs"]

    refused = kernel.execute_mutation("write", {"path": "README.md", "content": "# demo\n",
                                                "session_id": "cargo"})
    assert refused["ok"] is False and refused["error"]["code"] == "LSP_GATE_BLOCKED"

    fixed = edit(kernel, "src/util.rs", "b: &str) -> i32", "b: i32) -> i32", "cargo")
    assert "gated" not in fixed["meta"]
    assert "LSP_GATE_LIFTED" in stabilization(fixed)["reason_codes"]


def test_cargo_errors_present_before_the_edit_do_not_gate(make_kernel: KernelFactory) -> None:
    broken_main = MAIN_RS.replace("util::add(1, 2)", "util::add(1, \"2\")")
    kernel = make_kernel({"Cargo.toml": CARGO_TOML, "src/main.rs": broken_main,
                          "src/util.rs": UTIL_RS},
                         ruff=False, basedpyright=False, command_validators=[CARGO])
    response = edit(kernel, "src/util.rs", "    a + b\n", "    b + a\n", "cargo-old")
    assert response["ok"] is True
    assert "gated" not in response["meta"]
    assert "LSP_PREEXISTING_ERRORS" in stabilization(response)["reason_codes"]
    assert gate_note(response)["changes"][0]["introduced"] == []
