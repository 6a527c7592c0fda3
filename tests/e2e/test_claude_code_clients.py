"""What the real Claude Code CLI makes of Sari's client-facing contract: ``read``'s offset
is the first line shown, as in its own Read; a call with a bad argument is answered with a
refusal the model reads (naming the fix), not a broken session; without ``--workspace`` the
server serves the project the CLI runs in, even when started elsewhere; and the tools are
listed while the index is still building; over HTTP without ``--workspace`` the session is
served the project the CLI runs in."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from claude_code import run_session, sari_command
from messages_standin import ToolCall, Turn
from sari_http import serve_http
from test_claude_code_e2e import CART, make_workspace, sent_to_model, tool_use_ids

READ = "mcp__sari__read"
SEARCH = "mcp__sari__search"


def test_read_offset_is_the_first_line_shown_as_in_the_clis_read(claude: Path,
                                                                 tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    turns = [Turn(calls=(ToolCall(READ, {"mode": "file", "target": "shop/cart.py",
                                         "offset": 5, "limit": 3}),)),
             Turn(text="done")]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read the cart.",
                      allowed_tools=(READ,), sari_env={"SARI_PLUGINS": "none"})
    assert run.returncode == 0, run.stderr
    [read] = tool_use_ids(run, READ)
    header, *lines = sent_to_model(run, read).splitlines()
    assert header.startswith("shop/cart.py lines 5-7 of"), header
    assert lines == [f"{n}\t{CART.splitlines()[n - 1]}" for n in (5, 6, 7)]


def test_a_bad_argument_reaches_the_model_as_a_refusal_naming_the_fix(claude: Path,
                                                                      tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    turns = [Turn(calls=(ToolCall(READ, {"mode": "file", "target": "shop/cart.py",
                                         "offset": -3}),)),
             Turn(calls=(ToolCall(READ, {"mode": "file", "target": "shop/no_such.py"}),)),
             Turn(text="done")]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read the cart.",
                      allowed_tools=(READ,), sari_env={"SARI_PLUGINS": "none"})
    assert run.returncode == 0, run.stderr
    negative, missing = tool_use_ids(run, READ)
    assert "offset must be >= 1" in sent_to_model(run, negative)
    assert 'search(query="no_such.py", kind="path")' in sent_to_model(run, missing)


def test_without_workspace_the_project_the_cli_runs_in_is_served(claude: Path,
                                                                 tmp_path: Path) -> None:
    """Sari is started in another folder: it serves the CLI's project only if it asks the
    CLI for its roots. The CLI opens with a server/discover probe; declined, it falls back
    to the initialize handshake on the same pipe, which must then be accepted."""
    workspace = make_workspace(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "decoy.py").write_text("def total():\n    return 0\n", encoding="utf-8")
    serve = " ".join(shlex.quote(part) for part in [*sari_command(), "serve"])
    argv = ["sh", "-c", f"cd {shlex.quote(str(elsewhere))} && exec {serve}"]
    turns = [Turn(calls=(ToolCall(SEARCH, {"query": "cart", "kind": "path"}),)),
             Turn(text="done")]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Find the cart.",
                      allowed_tools=(SEARCH,), sari_env={"SARI_PLUGINS": "none"},
                      serve_argv=argv)
    assert run.returncode == 0, run.stderr
    [search] = tool_use_ids(run, SEARCH)
    assert "shop/cart.py" in sent_to_model(run, search), sent_to_model(run, search)


def test_over_http_without_workspace_the_clis_project_is_served(claude: Path,
                                                                tmp_path: Path) -> None:
    """One HTTP server started in the folder holding the projects: the CLI's session is
    served the project the CLI runs in (its root), not the server's whole folder."""
    projects = tmp_path / "projects"
    workspace = make_workspace(projects)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "server-home"),
           "SARI_STATE_DIR": str(tmp_path / "state"), "SARI_CACHE_DIR": str(tmp_path / "cache"),
           "SARI_PLUGINS": "none", "SARI_LOG_LEVEL": "INFO"}
    turns = [Turn(calls=(ToolCall(SEARCH, {"query": "cart", "kind": "path"}),)),
             Turn(text="done")]
    with serve_http(None, env, tmp_path / "server.log", cwd=projects) as served:
        run = run_session(claude, workspace, tmp_path / "home", turns, "Find the cart.",
                          allowed_tools=(SEARCH,), mcp_url=served.url)
    assert run.returncode == 0, run.stderr
    [search] = tool_use_ids(run, SEARCH)
    # served from the root: "shop/cart.py"; from the server's folder it would be shop/shop/...
    assert sent_to_model(run, search).splitlines()[1:2] == ["shop/cart.py"], \
        sent_to_model(run, search)


def test_with_an_added_directory_the_projects_files_are_read_as_the_cli_names_them(
        claude: Path, tmp_path: Path) -> None:
    """``--add-dir`` makes the CLI declare two roots, so Sari names paths by root folder
    ("shop/shop/cart.py"); the model still reads "shop/cart.py" from the project it runs in."""
    workspace = make_workspace(tmp_path)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helpers.py").write_text("def helper():\n    return 2\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    serve = " ".join(shlex.quote(part) for part in [*sari_command(), "serve"])
    argv = ["sh", "-c", f"cd {shlex.quote(str(elsewhere))} && exec {serve}"]
    turns = [Turn(calls=(ToolCall(READ, {"mode": "file", "target": "shop/cart.py",
                                         "limit": 3}),)),
             Turn(calls=(ToolCall(READ, {"mode": "file", "target": "lib/helpers.py"}),)),
             Turn(text="done")]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read the cart.",
                      allowed_tools=(READ,), sari_env={"SARI_PLUGINS": "none"},
                      serve_argv=argv, extra_args=("--add-dir", str(lib)))
    assert run.returncode == 0, run.stderr
    cart, helpers = tool_use_ids(run, READ)
    assert sent_to_model(run, cart).startswith("shop/shop/cart.py lines 1-3 of"), \
        sent_to_model(run, cart)
    assert "def helper():" in sent_to_model(run, helpers)
