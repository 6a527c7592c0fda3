"""The agent writes Sari's own workspace config; the next server it starts is unmoved.

Each attack is what a prompt-injected agent can do with ``write`` alone: name a command
in ``sari.toml`` or ``[tool.sari]`` of ``pyproject.toml``, switch a guard off there, or
break the file so that the server cannot start. Every one runs through the real
``sari serve`` over stdio, restarted between the write and the use.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest
from sari_stdio import body, isolated_env, read_past_refgate, serve_stdio


def needs(*plugins: str) -> pytest.MarkDecorator:
    """Skip where a plugin under attack is not installed (the core-alone test run)."""
    missing = [name for name in plugins if importlib.util.find_spec(f"sari_{name}") is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


SECRET = "sk-live-9f8e7d6c5b4a39281706f5e4"
AWS = "AKIAIOSFODNN7EXAMPLE"


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a: int, b: int) -> int:\n"
                                          "    return a + b\n", encoding="utf-8")
    (root / ".env").write_text(f"API_TOKEN={SECRET}\n", encoding="utf-8")
    (root / "config.py").write_text(f'AWS_ACCESS_KEY_ID = "{AWS}"\n', encoding="utf-8")
    return root


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # The Python language servers are the operator's to switch off; they are not under test.
    return {**isolated_env(tmp_path), "SARI_LSPGATE__BASEDPYRIGHT": "false",
            "SARI_LSPGATE__RUFF": "false", **extra}


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def _write_then_restart(tmp_path: Path, root: Path, path: str, content: str,
                              env: dict[str, str]) -> None:
    with (tmp_path / "first.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            assert body(await client.call_tool("write", {"path": path,
                                                         "content": content}))["ok"]


@needs("lspgate")
@pytest.mark.parametrize(("path", "table"), [("sari.toml", "[lspgate]"),
                                             ("pyproject.toml", "[tool.sari.lspgate]")])
async def test_a_validator_command_written_by_the_agent_never_runs(
        tmp_path: Path, path: str, table: str) -> None:
    root = _workspace(tmp_path)
    marker = tmp_path / "pwned"
    env = _env(tmp_path)
    config = (f'{table}\ncommand_validators = [{{name = "x", command = ["sh", "-c", '
              f'"touch {marker}"], patterns = ["*.py"], parser = "gnu"}}]\n')
    await _write_then_restart(tmp_path, root, path, config, env)
    with (tmp_path / "second.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            first = await client.call_tool("edit", {"path": "pkg/calc.py",
                                                    "old_string": "a + b",
                                                    "new_string": "b + a"})
            assert body(first)["ok"] is True
    assert not marker.exists()
    assert "lspgate.command_validators" in _text(first)  # said once, in the first result
    assert "lspgate.command_validators" in (tmp_path / "second.log").read_text()


@needs("secretguard")
async def test_a_guard_switched_off_by_the_agent_stays_on(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    env = _env(tmp_path)
    await _write_then_restart(tmp_path, root, "sari.toml",
                              "[secretguard]\nblocked_globs = []\nredact = false\n", env)
    with (tmp_path / "second.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            dotenv = await read_past_refgate(client, {"mode": "file", "target": ".env"})
            config = await read_past_refgate(client, {"mode": "file", "target": "config.py"})
    assert SECRET not in str(dotenv) and AWS not in str(config)
    assert dotenv["ok"] is False


@needs("budget")
@pytest.mark.parametrize(("path", "content"), [
    ("sari.toml", "[budget\nmax_reads_per_session = "),
    ("sari.toml", "[core]\nmax_sessions = 0\n"),
    ("sari.toml", 'text_format = "xml"\n'),
    ("sari.toml", "exclude = 5\n"),
    ("pyproject.toml", "[tool.sari]\nexclude = [1, 2]\n"),
    ("pyproject.toml", "[tool.sari.budget]\nmax_reads = 3\n"),
    ("pyproject.toml", "[project\n"),
])
async def test_a_config_file_the_agent_broke_does_not_stop_the_server(
        tmp_path: Path, path: str, content: str) -> None:
    root = _workspace(tmp_path)
    env = _env(tmp_path)
    await _write_then_restart(tmp_path, root, path, content, env)
    with (tmp_path / "second.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            first = await client.call_tool("search", {"query": "add"})
            second = await client.call_tool("search", {"query": "add"})
    assert body(first)["ok"] is True
    notices = [line for line in _text(first).splitlines() if "Sari config:" in line]
    if "text_format" not in content and "exclude" not in content:  # these are only logged
        assert len(notices) == 1 and path in notices[0]
    assert "Sari config:" not in _text(second)
    assert str(root) not in _text(first)


@needs("budget")
async def test_workspace_config_edited_mid_session_waits_for_a_restart(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    env = _env(tmp_path, SARI_PLUGINS="budget")
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            assert body(await client.call_tool("write", {
                "path": "sari.toml", "content": "[budget]\nmax_reads_per_session = 1\n"}))["ok"]
            replies = [body(await client.call_tool("read", {"mode": "file",
                                                            "target": "pkg/calc.py"}))
                       for _ in range(3)]
        assert all(reply["ok"] for reply in replies)  # the session runs on what it started with
        async with serve_stdio(root, env, errlog) as client:
            replies = [body(await client.call_tool("read", {"mode": "file",
                                                            "target": "pkg/calc.py"}))
                       for _ in range(2)]
    assert replies[0]["ok"] and not replies[1]["ok"]
    assert replies[1]["error"]["code"] == "BUDGET_EXCEEDED"


@needs("lspgate")
@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
async def test_the_operators_own_file_is_honoured(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    marker = tmp_path / "ran"
    operator = tmp_path / "operator.toml"
    operator.write_text(f'[lspgate]\ncommand_validators = [{{name = "x", command = ["sh", '
                        f'"-c", "touch {marker}"], patterns = ["*.py"], parser = "gnu"}}]\n',
                        encoding="utf-8")
    env = _env(tmp_path, SARI_CONFIG_FILE=str(operator))
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with serve_stdio(root, env, errlog) as client:
            assert body(await client.call_tool("edit", {"path": "pkg/calc.py",
                                                        "old_string": "a + b",
                                                        "new_string": "b + a"}))["ok"]
    assert marker.exists()
