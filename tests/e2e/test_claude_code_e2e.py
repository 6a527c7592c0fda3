"""The real Claude Code CLI against ``sari serve``: what the model is sent, and Sari's hooks.

Each test is one offline Claude Code session: the model is the scripted stand-in of
``messages_standin``, so the test controls which tools are called and reads back the
exact requests Claude Code sent, that is, what a model would have read.

The two tests marked ``MODEL-RENDERING`` check the text rendering written for
the model (a read: one header line, then ``N<TAB>line``; a search: matches grouped by
file as ``line: snippet``; no JSON envelope).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from claude_code import SessionRun, run_session
from messages_standin import ToolCall, Turn

CART = (
    "from dataclasses import dataclass\n"
    "\n"
    "\n"
    "@dataclass\n"
    "class Item:\n"
    "    price: float\n"
    "\n"
    "\n"
    "def total(items):\n"
    "    return sum(item.price for item in items)\n"
    "\n"
    "\n"
    "def discount(amount, rate):\n"
    "    return amount * (1 - rate)\n"
)
REMINDER = "\n\n<system-reminder>"


def make_workspace(root: Path) -> Path:
    workspace = root / "shop"
    (workspace / "shop").mkdir(parents=True)
    (workspace / "shop" / "cart.py").write_text(CART)
    (workspace / "README.md").write_text("A shop.\n")
    git = ["git", "-c", "user.name=Sari Tests", "-c", "user.email=tests@sari.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*git, "add", "."], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "shop"], cwd=workspace, check=True)
    return workspace


def sent_to_model(run: SessionRun, tool_use_id: str) -> str:
    """The tool result as the model read it, without Claude Code's own reminder suffix."""
    return run.script.tool_results()[tool_use_id].split(REMINDER, 1)[0]


def tool_use_ids(run: SessionRun, name: str) -> list[str]:
    ids = []
    for body in run.script.main_requests()[-1:]:
        for message in body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block.get("type") == "tool_use" and block.get("name") == name:
                    ids.append(block["id"])
    return ids


@pytest.fixture(scope="module")
def search_and_read(claude: Path, tmp_path_factory: pytest.TempPathFactory) -> SessionRun:
    """One session: a Sari search, a Sari read of the file it found, an answer."""
    root = tmp_path_factory.mktemp("search-and-read")
    turns = [
        Turn(calls=(ToolCall("mcp__sari__search", {"query": "def discount"}),)),
        Turn(calls=(ToolCall("mcp__sari__read", {"mode": "file", "target": "shop/cart.py"}),)),
        Turn(text="The discount is applied in shop/cart.py, line 13."),
    ]
    return run_session(claude, make_workspace(root), root / "home", turns,
                       "Where is the discount applied?", sari_env={"SARI_PLUGINS": "none"})


def test_claude_code_calls_sari_and_sends_its_results_to_the_model(
        search_and_read: SessionRun) -> None:
    run = search_and_read
    assert run.returncode == 0, run.stderr
    assert run.output()["result"] == "The discount is applied in shop/cart.py, line 13."
    assert run.offline_attempts == []  # nothing but the stand-in API was contacted
    assert {request.path.split("?")[0] for request in run.script.requests} <= {
        "/v1/messages", "/v1/messages/count_tokens"}
    agent_turns = run.script.main_requests()
    assert len(agent_turns) == 3  # search, read, answer: one request per model turn
    offered = {tool["name"]: tool for tool in agent_turns[0]["tools"]}
    assert {"mcp__sari__search", "mcp__sari__read"} <= offered.keys()
    assert offered["mcp__sari__search"]["input_schema"]["required"] == ["query"]
    [search_id] = tool_use_ids(run, "mcp__sari__search")
    [read_id] = tool_use_ids(run, "mcp__sari__read")
    assert "def discount(amount, rate):" in sent_to_model(run, search_id)
    assert "return amount * (1 - rate)" in sent_to_model(run, read_id)
    assert len(run.transcripts) == 1  # Claude Code kept its transcript (for `sari replay`)


def test_model_rendering_of_a_search(search_and_read: SessionRun) -> None:
    """MODEL-RENDERING (search): matches grouped by file as `line: snippet`, no JSON."""
    [search_id] = tool_use_ids(search_and_read, "mcp__sari__search")
    text = sent_to_model(search_and_read, search_id)
    assert not text.lstrip().startswith("{"), text  # MODEL-RENDERING
    assert "shop/cart.py" in text
    # The hit names its line, and a short matched definition its range with the rest of it
    # beneath (an answer from the scan before the index is ready shows the line's snippet).
    lines = text.splitlines()
    assert any(re.fullmatch(r"\s*13: def discount\(amount, rate\):", line)
               or re.fullmatch(r"\s*13 \| def discount\(amount, rate\):", line)
               for line in lines) or (
        any(re.fullmatch(r"\s*13-14: def discount\(amount, rate\):", line) for line in lines)
        and any(re.fullmatch(r"\s*14 \|     return amount \* \(1 - rate\)", line)
                for line in lines)), text
    assert "execution_id" not in text and "metrics_snapshot" not in text


def test_model_rendering_of_a_read(search_and_read: SessionRun) -> None:
    """MODEL-RENDERING (read): one header line naming the file, then `N<TAB>line`."""
    [read_id] = tool_use_ids(search_and_read, "mcp__sari__read")
    text = sent_to_model(search_and_read, read_id)
    header, *body = text.splitlines()
    assert "shop/cart.py" in header and not header.lstrip().startswith("{"), text  # MODEL-RENDERING
    numbered = [f"{number}\t{line}" for number, line in enumerate(CART.splitlines(), 1)]
    assert body[:len(numbered)] == numbered, text
    assert "execution_id" not in text and "metrics_snapshot" not in text


CATALOG = "".join(f"def price_of_{n}(item):\n" + "    value = item.price\n" * 60
                  + "    return value\n\n\n" for n in range(1, 6))  # 5 functions, 320 lines


def test_model_is_sent_an_outline_for_a_blind_read_and_the_definition_it_searched(
        claude: Path, tmp_path: Path) -> None:
    """MODEL-RENDERING (policies): a long file no search returned arrives as its outline; a
    long file the search matched arrives as the matched definition, not its first lines."""
    workspace = make_workspace(tmp_path)
    (workspace / "shop" / "catalog.py").write_text(CATALOG)
    (workspace / "shop" / "prices.py").write_text(CATALOG.replace("price_of_", "rate_of_"))
    turns = [
        Turn(calls=(ToolCall("mcp__sari__search", {"query": "def rate_of_4"}),)),
        Turn(calls=(ToolCall("mcp__sari__read", {"mode": "file", "target": "shop/catalog.py"}),)),
        Turn(calls=(ToolCall("mcp__sari__read", {"mode": "file", "target": "shop/prices.py"}),)),
        Turn(text="done"),
    ]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Where are rates kept?",
                      sari_env={"SARI_PLUGINS": "budget,relevance,aggregation,refgate"})
    assert run.returncode == 0, run.stderr
    blind_id, searched_id = tool_use_ids(run, "mcp__sari__read")
    outline = sent_to_model(run, blind_id)
    header, *rows = outline.splitlines()
    assert header.startswith("shop/catalog.py outline (file of 320 lines).")
    assert rows == [f"function price_of_{n} {64 * n - 63}-{64 * n - 2}" for n in range(1, 6)]
    definition = sent_to_model(run, searched_id)
    header, *body = definition.splitlines()
    assert "the definition the search matched (lines 193-254)" in header, definition
    assert body[0].startswith("183\t") and body[-1].startswith("264\t"), definition


def test_the_bench_s_native_read_and_grep_show_what_the_cli_s_own_tools_send_the_model(
        claude: Path, tmp_path: Path) -> None:
    """``bench/agent_cost.py`` measures Sari against an emulation of the built-in Read and
    Grep; it must show the model what the pinned CLI's own tools show: unpadded numbers, and
    for a long file read with no limit, one page and a note saying where the next starts."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from agent_cost_agents import split_lines
    from agent_cost_native import GREP_HEAD, native_grep_text, native_read_text, read_page

    workspace = make_workspace(tmp_path)
    cart = workspace / "shop" / "cart.py"
    catalog = workspace / "shop" / "catalog.py"
    catalog.write_text(CART * 600)  # 8,400 lines: more than one page
    prices = "".join(f"PRICES[{n}] = round(BASE_PRICE * {n} / 100, 2)  # per unit, tax excluded\n"
                     for n in range(1, 3001))  # 3,000 lines of ~65 characters
    (workspace / "shop" / "prices.py").write_text(prices)
    turns = [
        Turn(calls=(ToolCall("Read", {"file_path": str(cart), "offset": 5, "limit": 6}),)),
        Turn(calls=(ToolCall("Grep", {"pattern": "def ", "output_mode": "content",
                                      "-n": True, "glob": "cart.py"}),)),
        Turn(calls=(ToolCall("Read", {"file_path": str(catalog)}),)),
        Turn(calls=(ToolCall("Grep", {"pattern": "def discount", "output_mode": "content",
                                      "-n": True, "glob": "catalog.py"}),)),
        Turn(calls=(ToolCall("mcp__sari__read", {"mode": "file",
                                                 "target": "shop/prices.py"}),)),
        Turn(text="done"),
    ]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read the cart.",
                      allowed_tools=("Read", "Grep", "mcp__sari__read"),
                      sari_env={"SARI_PLUGINS": "none"})
    assert run.returncode == 0, run.stderr
    first_read, long_read = tool_use_ids(run, "Read")
    lines = CART.splitlines(keepends=True)
    # The CLI's offset is the first line shown; the emulation's is the lines skipped.
    assert sent_to_model(run, first_read).rstrip("\n") == native_read_text(
        lines[4:10], 5).rstrip("\n")
    grep_id, cut_grep_id = tool_use_ids(run, "Grep")
    assert sent_to_model(run, grep_id).splitlines() == [
        "shop/cart.py:9:def total(items):", "shop/cart.py:13:def discount(amount, rate):"]
    matches = [f"shop/catalog.py:{13 + 14 * n}:def discount(amount, rate):\n"
               for n in range(600)]  # 600 matches: more than the head
    assert sent_to_model(run, cut_grep_id) == native_grep_text(matches[:GREP_HEAD], cut=True)
    page = run.script.tool_results()[long_read]
    shown = len(re.findall(r"^\d+\t", page, re.MULTILINE))
    emulated = len(read_page(split_lines(CART * 600)))
    assert abs(shown - emulated) <= shown // 100, (shown, emulated)  # its estimate, fitted
    assert f"showing lines 1-{shown} of 8401 total" in page
    assert f"Call Read with offset={shown + 1} limit={shown} for the next page" in page
    # Sari's read of a long file with no limit reaches the model whole: Claude Code would show
    # an MCP result over 50,000 characters only as a preview and a file to read.
    [sari_read] = tool_use_ids(run, "mcp__sari__read")
    sari_text = sent_to_model(run, sari_read)
    header, *numbered = sari_text.splitlines()
    assert header.startswith("shop/prices.py lines 1-"), sari_text[:300]
    assert len(sari_text) <= 50_000 and len(numbered) > 600
    assert numbered[-1] == f"{len(numbered)}\t{prices.splitlines()[len(numbered) - 1]}"


def test_the_bench_s_file_unchanged_answer_is_the_cli_s_own_text(claude: Path) -> None:
    """The native agents are answered a repeated Read of an unchanged file with the CLI's own
    "file unchanged" text (the CLI run offline here serves such a Read whole, so the bench is
    the more generous to them): the text must be the one the pinned CLI carries."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from agent_cost_native import FILE_UNCHANGED

    as_written = FILE_UNCHANGED.replace("\u2014", "\\u2014").encode()  # as its source escapes it
    assert as_written in Path(claude).resolve().read_bytes()


def test_the_bench_charges_what_the_cli_sends_its_model_for_sari_s_server(
        search_and_read: SessionRun, tmp_path: Path) -> None:
    """``bench/agent_cost.py`` adds Sari's definitions to every turn of the conversation: they
    must be what the CLI sends its model, tool by tool (``mcp__sari__<tool>``, description,
    input schema: a tools/list entry's title and annotations are not sent), and Sari's
    server sends no instructions, which the CLI would add to every turn in a block of its own."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from agent_cost import INSTRUCTIONS_BLOCK, open_kernel, sent_definitions

    from sari_core.costmodel import tokens

    first = search_and_read.script.main_requests()[0]
    sent = {tool["name"]: tokens(json.dumps(tool, separators=(",", ":")))
            for tool in first["tools"] if tool["name"].startswith("mcp__sari__")}
    (tmp_path / "a.py").write_text("x = 1\n")
    kernel = open_kernel(tmp_path, [])  # the session's server runs no plugin either
    try:
        charged = sent_definitions(kernel)
    finally:
        kernel.close()
    lead = INSTRUCTIONS_BLOCK.split("{server}")[0]
    blocks = [block.get("text", "") for message in first["messages"]
              if isinstance(message["content"], list) for block in message["content"]
              if block.get("text", "").startswith(lead + "sari\n")]
    assert charged.pop("instructions") == sum(tokens(text) for text in blocks) == 0, blocks
    assert charged == sent


IN_PLACE = {"permissions": {"deny": ["Read", "Edit", "Write"]}}  # the documented settings


def test_with_the_built_in_file_tools_denied_the_model_is_offered_sari_s_in_their_place(
        claude: Path, tmp_path: Path) -> None:
    """The project settings the docs give for Sari in place of Claude Code's own file tools:
    the model's tool list loses Read, Edit and Write (their definitions are no longer paid
    for on every turn) and keeps Sari's, through which it still reads."""
    workspace = make_workspace(tmp_path)
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(IN_PLACE))
    turns = [
        Turn(calls=(ToolCall("mcp__sari__read", {"mode": "file", "target": "shop/cart.py"}),)),
        Turn(text="done"),
    ]
    run = run_session(claude, workspace, tmp_path / "home", turns, "Read the cart.",
                      sari_env={"SARI_PLUGINS": "none"})
    assert run.returncode == 0, run.stderr
    offered = {tool["name"] for tool in run.script.main_requests()[0]["tools"]}
    assert not offered & {"Read", "Edit", "Write"}, sorted(offered)
    assert {"mcp__sari__search", "mcp__sari__read", "mcp__sari__edit",
            "mcp__sari__write"} <= offered
    [read_id] = tool_use_ids(run, "mcp__sari__read")
    assert "2\t" in sent_to_model(run, read_id) and "def total(items):" in sent_to_model(
        run, read_id)


def test_sari_hooks_installed_by_sari_install_fire_in_claude_code(claude: Path,
                                                                  tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    install = subprocess.run([sys.executable, "-m", "sari_core.cli.main", "install",
                              "claude-code", "--hooks", "--workspace", str(workspace)],
                             cwd=workspace, capture_output=True, text=True, timeout=60)
    assert install.returncode == 0, install.stderr
    settings = json.loads((workspace / ".claude" / "settings.json").read_text())
    assert "PostToolUse" in settings["hooks"]
    cart = workspace / "shop" / "cart.py"
    broken_edit = {"file_path": str(cart), "old_string": "return sum(",
                   "new_string": "return round(sum("}
    turns = [
        Turn(calls=(ToolCall("Read", {"file_path": str(cart)}),)),
        Turn(calls=(ToolCall("Edit", broken_edit),)),
        Turn(text="Edited."),
    ]
    # ruff alone gates the edit; switching a validator off is the operator's, not sari.toml's.
    run = run_session(claude, workspace, tmp_path / "home", turns, "Round the total.",
                      allowed_tools=("Read", "Edit"),
                      extra_env={"SARI_LSPGATE__BASEDPYRIGHT": "false"})
    assert run.returncode == 0, run.stderr
    assert run.offline_attempts == []
    assert "return round(sum(" in cart.read_text()  # Claude Code made the edit
    [edit_id] = tool_use_ids(run, "Edit")
    after_edit = run.script.tool_results()[edit_id]
    # Sari's PostToolUse hook ran on the edited file and its verdict reached the model.
    assert "PostToolUse:Edit hook blocking error" in after_edit, after_edit
    assert "LSP_GATE_BLOCKED" in after_edit and "shop/cart.py" in after_edit, after_edit
