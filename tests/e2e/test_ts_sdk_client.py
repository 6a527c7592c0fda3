"""The official TypeScript SDK client against ``sari serve`` (stdio, every plugin installed):
it checks each result's structured content against the tool's output schema itself and
throws on a mismatch, so every bad call must come back as a refusal it accepts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
from bad_arguments import bad_calls
from node_clients import run_ts_client, sari_command, ts_sdk_prefix
from sari_http import serve_http


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    prefix, reason = ts_sdk_prefix()
    if prefix is None:
        pytest.skip(f"TypeScript SDK client tests skipped: {reason}")
    return prefix


def make_workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def server_env(tmp: Path) -> dict[str, str]:
    keep = ("PATH", "SYSTEMROOT", "PYENV_VERSION", "VIRTUAL_ENV")
    return {**{key: os.environ[key] for key in keep if key in os.environ},
            "HOME": str(tmp / "home"), "SARI_STATE_DIR": str(tmp / "state"),
            "SARI_CACHE_DIR": str(tmp / "cache")}


def test_every_bad_call_comes_back_as_a_refusal_the_ts_sdk_accepts(ts_sdk: Path,
                                                                  tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    command = sari_command("--workspace", str(workspace))
    assert_bad_calls_refused(ts_sdk, {"command": command[0], "args": command[1:],
                                      "env": server_env(tmp_path), "cwd": str(workspace),
                                      "roots": None})


def test_over_http_every_bad_call_comes_back_as_a_refusal_the_ts_sdk_accepts(
        ts_sdk: Path, tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    with serve_http(workspace, server_env(tmp_path), tmp_path / "server.log") as served:
        assert_bad_calls_refused(ts_sdk, {"url": served.url, "roots": None})


def assert_bad_calls_refused(ts_sdk: Path, base: dict) -> None:
    """Every listed tool called with every kind of bad argument: each answer is an error
    result the SDK accepts (structured content within the output schema) naming the fix."""
    listed = run_ts_client(ts_sdk, {**base, "steps": [{"op": "list"}]})["steps"][0]["tools"]
    cases = bad_calls(listed)
    # Listed first: the SDK checks a tool's results against the output schema it listed.
    report = run_ts_client(ts_sdk, {**base, "steps": [{"op": "list"}, *[
        {"op": "call", "name": case.tool, "arguments": case.arguments} for case in cases]]})
    schemas = {tool["name"]: tool.get("outputSchema") for tool in listed}
    problems = []
    for case, answer in zip(cases, report["steps"][1:], strict=True):
        if "thrown" in answer:
            problems.append(f"{case.label}: the SDK threw {answer['thrown']}")
            continue
        if not answer["isError"]:
            problems.append(f"{case.label}: not marked as an error")
        if answer["structuredContent"] is not None and schemas[case.tool]:
            jsonschema.validate(answer["structuredContent"], schemas[case.tool])
        if case.at_fault not in answer["text"]:
            problems.append(f"{case.label}: the text does not name {case.at_fault!r}")
    assert {"search", "read", "edit", "write"} <= set(schemas)
    assert len(cases) > 50 and problems == []


def _paths(answer: dict) -> list[str]:
    return [match["path"] for match in (answer.get("structuredContent") or {}).get("matches", [])]


def test_the_ts_sdk_clients_roots_are_served_and_followed(ts_sdk: Path, tmp_path: Path) -> None:
    """No --workspace: the server asks the client for its roots, serves them, and serves
    the new list after notifications/roots/list_changed, each root guarding its own paths."""
    made = {}
    for name in ("alpha", "beta", "cwd"):
        made[name] = make_workspace(tmp_path / name)
        (made[name] / f"{name}_only.py").write_text("x = 1\n", encoding="utf-8")
    command = sari_command()
    search = [{"op": "call", "name": "search", "arguments": {"query": "beta_only",
                                                              "kind": "path"}}]
    report = run_ts_client(ts_sdk, {
        "command": command[0], "args": command[1:], "env": server_env(tmp_path),
        "cwd": str(made["cwd"]), "roots": [made["alpha"].as_uri()],
        "steps": [
            {"op": "call", "name": "search", "arguments": {"query": "alpha_only",
                                                            "kind": "path"}},
            {"op": "call", "name": "search", "arguments": {"query": "cwd_only", "kind": "path"}},
            {"op": "call", "name": "read", "arguments": {"mode": "file",
                                                          "target": "../beta/beta_only.py"}},
            {"op": "roots", "roots": [made["alpha"].as_uri(), made["beta"].as_uri()]},
            # the new kernel over both roots opens in the background: asked until it serves
            *[step for _ in range(20) for step in ({"op": "sleep", "ms": 500}, *search)],
        ]})
    steps = report["steps"]
    assert _paths(steps[0]) == ["alpha_only.py"] and _paths(steps[1]) == []
    assert steps[2]["isError"] and steps[2]["structuredContent"]["error"]["code"] == \
        "PATH_OUTSIDE_WORKSPACE"
    later = [_paths(step) for step in steps[4:] if "text" in step]
    assert ["beta/beta_only.py"] in later, later


def test_over_http_each_ts_sdk_session_is_served_its_roots(ts_sdk: Path, tmp_path: Path) -> None:
    """``sari serve --transport http`` without --workspace, started in the folder holding the
    projects: TypeScript clients with different roots are served each their own, each root
    guarding its own paths, and a session follows notifications/roots/list_changed."""
    made = {"cwd": make_workspace(tmp_path / "projects")}  # the server's folder holds both
    (made["cwd"] / "top_only.py").write_text("x = 1\n", encoding="utf-8")
    for name in ("alpha", "beta"):
        made[name] = make_workspace(made["cwd"] / name)
        (made[name] / f"{name}_only.py").write_text("x = 1\n", encoding="utf-8")

    def search(name: str) -> dict:
        return {"op": "call", "name": "search", "arguments": {"query": f"{name}_only",
                                                               "kind": "path"}}

    with serve_http(None, server_env(tmp_path), tmp_path / "server.log",
                    cwd=made["cwd"]) as served:
        beta = run_ts_client(ts_sdk, {"url": served.url, "roots": [made["beta"].as_uri()],
                                      "steps": [search("beta"), search("alpha")]})
        alpha = run_ts_client(ts_sdk, {
            "url": served.url, "roots": [made["alpha"].as_uri()],
            "steps": [
                search("alpha"), search("top"),
                {"op": "call", "name": "read", "arguments": {"mode": "file",
                                                              "target": "../beta/beta_only.py"}},
                {"op": "roots", "roots": [made["beta"].as_uri()]},
                *[step for _ in range(20) for step in ({"op": "sleep", "ms": 500},
                                                       search("beta"))],
            ]})
        plain = run_ts_client(ts_sdk, {"url": served.url, "roots": None,
                                       "steps": [search("top")]})
    assert _paths(beta["steps"][0]) == ["beta_only.py"] and _paths(beta["steps"][1]) == []
    steps = alpha["steps"]
    assert _paths(steps[0]) == ["alpha_only.py"] and _paths(steps[1]) == []
    assert steps[2]["isError"] and steps[2]["structuredContent"]["error"]["code"] == \
        "PATH_OUTSIDE_WORKSPACE"
    later = [_paths(step) for step in steps[4:] if "text" in step]
    assert ["beta_only.py"] in later, later
    assert _paths(plain["steps"][0]) == ["top_only.py"]


def test_the_ts_sdk_client_without_roots_gets_the_current_folder(ts_sdk: Path,
                                                                 tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "cwd")
    (workspace / "cwd_only.py").write_text("x = 1\n", encoding="utf-8")
    command = sari_command()
    report = run_ts_client(ts_sdk, {
        "command": command[0], "args": command[1:], "env": server_env(tmp_path),
        "cwd": str(workspace), "roots": None,
        "steps": [{"op": "call", "name": "search", "arguments": {"query": "cwd_only",
                                                                  "kind": "path"}}]})
    assert _paths(report["steps"][0]) == ["cwd_only.py"]


def large_tree(root: Path, folders: int = 150, files: int = 100) -> Path:
    """A tree whose first index takes a while to build (15,000 Python files)."""
    body = "".join(f"def helper_{n}(value):\n    return value + {n}\n\n" for n in range(25))
    for folder in range(folders):
        package = root / f"pkg{folder}"
        package.mkdir(parents=True)
        for number in range(files):
            (package / f"mod{number}.py").write_text(body, encoding="utf-8")
    (root / "pkg0" / "target.py").write_text("def find_me():\n    return 1\n", encoding="utf-8")
    return root


def test_initialize_and_tools_list_never_wait_for_the_index(ts_sdk: Path, tmp_path: Path) -> None:
    """On a tree whose index takes a while, the client connects and lists the tools while the
    index is still building (its first calls are answered, from a scan, not held), and the
    first call says so in one sentence, once."""
    workspace = large_tree(tmp_path / "ws")
    command = sari_command("--workspace", str(workspace))
    read = {"op": "call", "name": "read", "arguments": {"mode": "file",
                                                         "target": "pkg0/target.py"}}
    report = run_ts_client(ts_sdk, {
        "command": command[0], "args": command[1:], "env": server_env(tmp_path),
        "cwd": str(workspace), "roots": None,
        "steps": [{"op": "list"}, read,
                  {"op": "call", "name": "search", "arguments": {"query": "find_me"}}, read]})
    listed, first, search, again = report["steps"]
    assert {"search", "read"} <= {tool["name"] for tool in listed["tools"]}
    # Had initialize waited for the index, the search would find it complete.
    assert search["structuredContent"]["meta"]["index_ready"] is False, search["text"][:300]
    assert _paths(search) == ["pkg0/target.py"]
    header = first["text"].split("\n")[0]
    assert "The index is still being built" in header and "def find_me" in first["text"]
    assert "index is still being built" not in again["text"]
