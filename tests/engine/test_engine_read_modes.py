"""The four read modes through Kernel.execute_read, on the fixture repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_repo import BINARY, CRLF, FILES, LATIN1, git, write

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import MAX_READ_BYTES
from sari_core.engine.navigation.reading import DEFAULT_SHOWN_CHARS
from sari_core.kernel import Kernel

APP = FILES["src/app.py"]


def read(kernel: Kernel, **args: object) -> dict:
    return kernel.execute_read(args)


def ok(response: dict) -> dict:
    assert response["ok"] is True, response.get("error")
    return response


# --- file --------------------------------------------------------------------------


def test_file_reads_the_whole_file_with_its_metadata(shared_kernel: Kernel) -> None:
    response = ok(read(shared_kernel, mode="file", target="src/app.py"))
    meta = response["meta"]
    assert response["text"] == APP
    assert (meta["path"], meta["start_line"], meta["end_line"], meta["total_lines"]) == \
        ("src/app.py", 1, 13, 13)
    assert response["location"] == {"file": "src/app.py", "line": 1, "end_line": 13}
    assert meta["truncated"] is False and meta["preview_degraded"] is False
    assert meta["language"] == "python" and "next_offset" not in meta


def test_file_pagination_with_offset_and_limit(shared_kernel: Kernel) -> None:
    lines = APP.splitlines(keepends=True)
    first = ok(read(shared_kernel, mode="file", target="src/app.py", limit=5))
    assert first["text"] == "".join(lines[:5])
    assert first["meta"]["next_offset"] == 6 and first["meta"]["truncated"] is False
    second = ok(read(shared_kernel, mode="file", target="src/app.py", offset=6, limit=5))
    assert second["text"] == "".join(lines[5:10])
    assert (second["meta"]["start_line"], second["meta"]["end_line"]) == (6, 10)
    last = ok(read(shared_kernel, mode="file", target="src/app.py", offset=11))
    assert last["text"] == "".join(lines[10:]) and "next_offset" not in last["meta"]
    past = read(shared_kernel, mode="file", target="src/app.py", offset=50)
    assert past["ok"] is False and past["error"]["code"] == "INVALID_ARGS"


def test_max_preview_chars_is_a_hard_cap(shared_kernel: Kernel) -> None:
    response = ok(read(shared_kernel, mode="file", target="src/app.py", max_preview_chars=40))
    assert len(response["text"]) <= 40
    lines = APP.splitlines(keepends=True)
    kept = max(n for n in range(len(lines) + 1) if len("".join(lines[:n])) <= 40)
    assert response["text"] == "".join(lines[:kept])
    assert response["meta"]["truncated"] is True
    assert response["meta"]["preview_degraded"] is False  # whole lines were kept
    assert response["meta"]["next_offset"] == kept + 1
    tiny = ok(read(shared_kernel, mode="file", target="src/app.py", max_preview_chars=4))
    assert tiny["text"] == "impo"
    assert tiny["meta"]["truncated"] is True and tiny["meta"]["preview_degraded"] is True
    exact = ok(read(shared_kernel, mode="file", target="src/app.py", max_preview_chars=len(APP)))
    assert exact["text"] == APP and exact["meta"]["truncated"] is False


def test_the_engine_result_is_filled(workspace: Workspace) -> None:
    import hashlib

    from sari_core.models import ReadCall

    result = workspace.read(ReadCall(mode="file", target="src/app.py", offset=3, limit=3))
    assert result.content_hash == hashlib.sha1(APP.encode()).hexdigest()
    assert (result.path, result.start_line, result.end_line, result.total_lines) == \
        ("src/app.py", 3, 5, 13)
    assert result.lines_returned == 3 and result.location is not None


def test_preview_mode_none_returns_metadata_only(kernel: Kernel) -> None:
    response = ok(read(kernel, mode="file", target="src/app.py", preview_mode="none"))
    assert response["text"] == "" and response["meta"]["total_lines"] == 13


def test_binary_files_are_detected_not_dumped(kernel: Kernel) -> None:
    response = read(kernel, mode="file", target=BINARY)
    assert response["ok"] is False and response["error"]["code"] == "BINARY_FILE"
    assert "PNG" not in str(response)


def test_huge_files_ask_for_a_snippet(kernel: Kernel, repo: Path) -> None:
    write(repo, "big.txt", "0123456789\n" * (MAX_READ_BYTES // 11 + 10))
    response = read(kernel, mode="file", target="big.txt")
    assert response["ok"] is False and response["error"]["code"] == "FILE_TOO_LARGE"
    assert "snippet" in response["error"]["hint"]
    follow = response["meta"]["stabilization"]["next_calls"][0]["arguments"]
    snippet = ok(kernel.execute_read(follow))
    assert snippet["text"].startswith("0123456789\n")
    paged = ok(read(kernel, mode="file", target="big.txt", offset=1001, limit=2))
    assert paged["text"] == "0123456789\n0123456789\n"


def test_a_latin1_file_is_decoded_without_crashing(kernel: Kernel) -> None:
    response = ok(read(kernel, mode="file", target=LATIN1))
    assert response["text"] == "café crème brûlée - déjà vu\n"
    assert response["meta"]["encoding"] == "latin-1"


def test_crlf_lines_are_kept(kernel: Kernel) -> None:
    response = ok(read(kernel, mode="snippet", target=CRLF, start_line=2))
    assert response["text"] == "second line\r\n"


def test_an_empty_file(kernel: Kernel, repo: Path) -> None:
    write(repo, "empty.py", "")
    response = ok(read(kernel, mode="file", target="empty.py"))
    assert response["text"] == "" and response["meta"]["total_lines"] == 0


def test_the_default_cap_bounds_a_large_read(kernel: Kernel, repo: Path) -> None:
    write(repo, "long.txt", "x" * 99 + "\n" * 1 + ("y" * 99 + "\n") * 2000)
    response = ok(read(kernel, mode="file", target="long.txt"))
    assert len(response["text"]) <= DEFAULT_SHOWN_CHARS
    assert response["meta"]["truncated"] is True and response["meta"]["next_offset"] > 0


# --- snippet -----------------------------------------------------------------------


def test_snippet_range_and_context(kernel: Kernel) -> None:
    lines = APP.splitlines(keepends=True)
    response = ok(read(kernel, mode="snippet", target="src/app.py", start_line=7, end_line=8))
    assert response["text"] == "".join(lines[6:8])
    assert response["location"] == {"file": "src/app.py", "line": 7, "end_line": 8}
    wide = ok(read(kernel, mode="snippet", target="src/app.py", start_line=7, end_line=8,
                   context_lines=2))
    assert wide["text"] == "".join(lines[4:10])
    clipped = ok(read(kernel, mode="snippet", target="src/app.py", start_line=12, end_line=40,
                      context_lines=5))
    assert clipped["meta"]["end_line"] == 13 and clipped["meta"]["start_line"] == 7
    single = ok(read(kernel, mode="snippet", target="src/app.py", start_line=4))
    assert single["text"] == "class Reader:\n"
    past = read(kernel, mode="snippet", target="src/app.py", start_line=99)
    assert past["ok"] is False and past["error"]["code"] == "INVALID_ARGS"
    assert "13 lines" in past["error"]["message"]


# --- symbol ------------------------------------------------------------------------


def test_symbol_reads_the_definition(kernel: Kernel) -> None:
    # from its decorator: part of the definition, as the language's syntax tree has it
    response = ok(read(kernel, mode="symbol", target="helper"))
    assert response["text"] == "@decorated\ndef helper(value):\n    return os.fspath(value)\n"
    assert response["location"] == {"file": "src/app.py", "line": 11, "end_line": 13}
    assert response["meta"]["resolved_symbol"]["kind"] == "function"


def test_symbol_include_context_adds_decorators_and_lines_around(shared_kernel: Kernel) -> None:
    response = ok(read(shared_kernel, mode="symbol", target="helper", include_context=True))
    assert response["text"].splitlines()[2] == "@decorated"
    assert response["meta"]["start_line"] == 9


def test_symbol_ambiguity_lists_candidates_and_path_disambiguates(kernel: Kernel) -> None:
    ambiguous = read(kernel, mode="symbol", target="execute_read")
    assert ambiguous["ok"] is False and ambiguous["error"]["code"] == "SYMBOL_AMBIGUOUS"
    assert "src/app.py:7" in ambiguous["error"]["message"]
    assert "src/other.py:5" in ambiguous["error"]["message"]
    calls = ambiguous["meta"]["stabilization"]["next_calls"]
    assert {c["arguments"]["path"] for c in calls} == {"src/app.py", "src/other.py"}
    chosen = ok(kernel.execute_read(calls[0]["arguments"]))
    assert chosen["text"].lstrip().startswith("def execute_read")
    by_path = ok(read(kernel, mode="symbol", target="execute_read", path="src/other.py"))
    assert by_path["location"]["file"] == "src/other.py"
    qualified = ok(read(kernel, mode="symbol", target="Writer.execute_read"))
    assert qualified["location"]["file"] == "src/other.py"
    assert qualified["meta"]["resolved_symbol"]["kind"] == "method"


def test_an_unqualified_name_in_one_file_reads_its_module_level_definition(
        tmp_path: Path) -> None:
    """As the language scopes it: ``median`` is the module's function, not a class's method of
    that name; the read says the nested ones are there and how to name one."""
    write(tmp_path, "stats.py", "class Normal:\n    def median(self):\n        return 0\n\n\n"
          "def median(data):\n    return sorted(data)[len(data) // 2]\n")
    with Kernel(Workspace([tmp_path]), load_entry_points=False, analytics_sinks=[]) as kernel:
        response = ok(read(kernel, mode="symbol", target="median", path="stats.py"))
        assert response["text"].startswith("def median(data):")
        [note] = response["meta"]["stabilization"]["warnings"]
        assert "line 2 (method)" in note and "Class.method" in note
        method = ok(read(kernel, mode="symbol", target="Normal.median"))
        assert method["meta"]["resolved_symbol"]["kind"] == "method"
        write(tmp_path, "stats.py", "class A:\n    def median(self):\n        return 0\n\n\n"
              "class B:\n    def median(self):\n        return 1\n")
        nested = read(kernel, mode="symbol", target="median", path="stats.py")
        assert nested["ok"] is False and nested["error"]["code"] == "SYMBOL_AMBIGUOUS", nested


def test_symbol_not_found_points_to_search(kernel: Kernel) -> None:
    response = read(kernel, mode="symbol", target="no_such_function")
    assert response["ok"] is False and response["error"]["code"] == "NOT_FOUND"
    assert response["meta"]["stabilization"]["next_calls"][0] == {
        "tool": "search", "arguments": {"query": "no_such_function", "kind": "symbol"}}


@pytest.mark.parametrize("target,path,first_line", [
    ("renderPage", "web/index.js", "function renderPage(items) {"),
    ("makeShape", "web/types.ts", "function makeShape"),
    ("View", "web/view.tsx", "function View()"),
    ("Serve", "go/main.go", "func Serve() {"),
    ("boot", "rust/lib.rs", "pub fn boot()"),
    ("run", "java/App.java", "  void run()"),
    ("add_numbers", "c/lib.c", "int add_numbers(int a, int b)"),
    ("Thing", "cpp/thing.cpp", "class Thing {"),
])
def test_symbols_of_every_language(shared_kernel: Kernel, target: str, path: str,
                                   first_line: str) -> None:
    response = ok(read(shared_kernel, mode="symbol", target=target))
    assert response["location"]["file"] == path
    assert response["text"].startswith(first_line)


# --- diff_preview --------------------------------------------------------------------


def test_diff_against_head_index_and_worktree(kernel: Kernel, repo: Path) -> None:
    (repo / "src" / "app.py").write_text(APP.replace("import os", "import os  # staged"))
    git(repo, "add", "src/app.py")
    (repo / "src" / "app.py").write_text(APP.replace("import os", "import os  # both")
                                         .replace("return helper", "return  helper"))
    head = ok(read(kernel, mode="diff_preview", target="src/app.py", against="HEAD"))
    index = ok(read(kernel, mode="diff_preview", target="src/app.py", against="INDEX"))
    worktree = ok(read(kernel, mode="diff_preview", target="src/app.py", against="WORKTREE"))
    assert "+import os  # both" in head["diff"] and "-import os\n" in head["diff"]
    assert "+        return  helper(call)" in head["diff"]
    assert "+import os  # staged" in index["diff"] and "return  helper" not in index["diff"]
    assert "-import os  # staged" in worktree["diff"] and "+import os  # both" in worktree["diff"]
    assert head["meta"]["against"] == "HEAD" and head["meta"]["files"] == ["src/app.py"]
    assert head["text"].startswith("1 file(s) changed against HEAD: +2 -2")


def test_diff_defaults_to_head_and_shows_untracked_files(kernel: Kernel, repo: Path) -> None:
    write(repo, "src/new.py", "brand = 'new'\n")
    response = ok(read(kernel, mode="diff_preview", target="src/new.py"))
    assert response["meta"]["against"] == "HEAD"
    assert "+brand = 'new'" in response["diff"]
    folder = ok(read(kernel, mode="diff_preview", target="src"))
    assert "src/new.py" in folder["meta"]["files"]
    clean = ok(read(kernel, mode="diff_preview", target="src/other.py", against="INDEX"))
    assert clean["diff"] == "" and clean["text"] == "no changes against INDEX"


def test_diff_outside_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "a.py", "x = 1\n")
    with Workspace([root]) as engine, Kernel(engine, load_entry_points=False,
                                             analytics_sinks=[]) as kernel:
        response = read(kernel, mode="diff_preview", target="a.py")
    assert response["ok"] is False and response["error"]["code"] == "NOT_A_GIT_REPOSITORY"
    assert "mode='file'" in response["error"]["hint"]


def test_diff_without_git_installed_is_a_clear_error(shared_kernel: Kernel,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    response = read(shared_kernel, mode="diff_preview", target="src/app.py")
    assert response["ok"] is False and response["error"]["code"] == "GIT_UNAVAILABLE"


def test_diff_is_capped_by_max_preview_chars(kernel: Kernel, repo: Path) -> None:
    (repo / "src" / "app.py").write_text(APP + "".join(f"line_{n} = {n}\n" for n in range(300)))
    response = ok(read(kernel, mode="diff_preview", target="src/app.py", max_preview_chars=500))
    assert len(response["diff"]) <= 500 and response["meta"]["truncated"] is True


# --- argument validation through the kernel ------------------------------------------

MODE_ONLY = {"path": "symbol", "include_context": "symbol", "start_line": "snippet",
             "end_line": "snippet", "context_lines": "snippet", "against": "diff_preview"}
VALUES = {"path": "src/app.py", "include_context": True, "start_line": 1, "end_line": 2,
          "context_lines": 1, "against": "HEAD"}


@pytest.mark.parametrize("mode", ["file", "symbol", "snippet", "diff_preview"])
@pytest.mark.parametrize("param", sorted(MODE_ONLY))
def test_every_mode_only_argument_is_refused_elsewhere(shared_kernel: Kernel, mode: str,
                                                       param: str) -> None:
    owner = MODE_ONLY[param]
    if owner == mode:
        return
    args = {"mode": mode, "target": "src/app.py", param: VALUES[param]}
    if mode == "snippet":
        args.setdefault("start_line", 1)
    response = shared_kernel.execute_read(args)
    assert response["ok"] is False and response["error"]["code"] == "INVALID_ARGS"
    assert response["error"]["message"] == \
        f"{param} is only valid for mode='{owner}'. Remove it or switch mode."


@pytest.mark.parametrize("args,fragment", [
    ({"target": "src/app.py"}, "mode is required"),
    ({"mode": "tree", "target": "src/app.py"}, "not a read mode"),
    ({"mode": "file"}, "target is required"),
    ({"mode": "snippet", "target": "src/app.py"}, "start_line is required"),
    ({"mode": "snippet", "target": "src/app.py", "start_line": 5, "end_line": 2},
     "end_line must be >= start_line"),
    ({"mode": "diff_preview", "target": "src/app.py", "against": "HEAD~1"}, "not supported"),
    ({"mode": "file", "target": "src/app.py", "limit": 0}, "limit must be >= 1"),
    ({"mode": "file", "target": "src/app.py", "offset": -1}, "offset must be >= 1"),
    ({"mode": "file", "target": "src/app.py", "colour": "red"}, "not an argument of read"),
])
def test_invalid_argument_combinations(kernel: Kernel, args: dict, fragment: str) -> None:
    response = kernel.execute_read(args)
    assert response["ok"] is False and response["error"]["code"] == "INVALID_ARGS"
    assert fragment in response["error"]["message"] and response["error"]["hint"]


@pytest.mark.parametrize("tool,args", [
    ("read_file", {"path": "src/app.py"}),
    ("read_symbol", {"name": "helper"}),
    ("get_snippet", {"path": "src/app.py", "start_line": 12, "end_line": 13}),
    ("dry_run_diff", {"path": "src/app.py", "against": "HEAD"}),
])
def test_deprecated_wrappers_are_thin_calls_into_read(shared_kernel: Kernel, tool: str,
                                                      args: dict) -> None:
    response = ok(shared_kernel.execute_read(args, entrypoint=tool))
    if tool != "dry_run_diff":
        assert response["text"]


def test_a_read_with_no_cap_is_one_page_the_model_is_shown_whole(kernel: Kernel,
                                                                   repo: Path) -> None:
    """Claude Code shows an MCP result over 50,000 characters only as a preview and a file to
    read: a read that sets no cap stops where its lines, numbered as the model is shown them,
    come to 48,000 characters (however many lines that is), and says where the next starts."""
    lines = [f"v{n} = {n}\n" for n in range(1, 12001)]
    write(repo, "many.py", "".join(lines))
    page, shown = 0, 0
    while shown + len(f"{page + 1}\t{lines[page]}") <= 48_000:
        shown += len(f"{page + 1}\t{lines[page]}")
        page += 1
    first = ok(read(kernel, mode="file", target="many.py"))
    assert (first["meta"]["start_line"], first["meta"]["end_line"]) == (1, page)
    assert page > 2000 and first["text"] == "".join(lines[:page])
    assert first["meta"]["truncated"] is True and first["meta"]["next_offset"] == page + 1
    rest = ok(read(kernel, mode="file", target="many.py", offset=page + 1))
    assert rest["meta"]["start_line"] == page + 1
    asked = ok(read(kernel, mode="file", target="many.py", limit=page - 1))  # a limit is obeyed
    assert asked["meta"]["end_line"] == page - 1 and asked["meta"]["truncated"] is False
    capped = ok(read(kernel, mode="file", target="many.py", max_preview_chars=90_000))
    assert len(capped["text"]) <= 90_000 and capped["meta"]["end_line"] > page  # its own cap


@pytest.mark.parametrize("mode_args,first_line", [
    ({"mode": "file"}, 1),
    ({"mode": "snippet", "start_line": 4, "end_line": 12}, 4),
])
def test_offset_is_the_first_line_shown_as_in_claude_codes_read(
        shared_kernel: Kernel, mode_args: dict, first_line: int) -> None:
    """The habit agents bring: Read(offset=N) starts at line N (of the file, or of what the
    mode selects), limit counts lines from there; 0 and 1 both start at the top."""
    lines = APP.splitlines(keepends=True)
    for start in (0, 1):
        top = ok(read(shared_kernel, target="src/app.py", offset=start, limit=2, **mode_args))
        assert top["meta"]["start_line"] == first_line
    page = ok(read(shared_kernel, target="src/app.py", offset=3, limit=2, **mode_args))
    assert (page["meta"]["start_line"], page["meta"]["end_line"]) == (first_line + 2,
                                                                        first_line + 3)
    assert page["text"] == "".join(lines[first_line + 1:first_line + 3])
    follow = ok(read(shared_kernel, target="src/app.py", offset=page["meta"]["next_offset"],
                     limit=1, **mode_args))
    assert follow["meta"]["start_line"] == first_line + 4  # the page after, no line twice


def test_an_overloaded_function_reads_its_implementation_and_names_the_signatures(
        tmp_path: Path) -> None:
    """Its ``@overload`` signatures and its implementation are one function: a symbol read
    of the name is the implementation (what runs), with the signatures' lines in a note."""
    write(tmp_path, "decorators.py",
          "import typing as t\n\n\n"
          "@t.overload\ndef command(name: t.Callable) -> int: ...\n\n\n"
          "@t.overload\ndef command(name: str | None = None) -> t.Callable: ...\n\n\n"
          "def command(name=None):\n    return name\n")
    with Kernel(Workspace([tmp_path]), load_entry_points=False, analytics_sinks=[]) as kernel:
        for target in ("command", "decorators.command"):
            response = ok(read(kernel, mode="symbol", target=target))
            assert response["text"] == "def command(name=None):\n    return name\n", target
            [note] = response["meta"]["stabilization"]["warnings"]
            assert "line 5, 9" in note and "overload" in note
        # Two bodies of one name are not an overload's: still ambiguous.
        write(tmp_path, "decorators.py", "def command():\n    return 1\n\n\n"
              "def command():\n    return 2\n")
        twice = read(kernel, mode="symbol", target="command")
        assert twice["ok"] is False and twice["error"]["code"] == "SYMBOL_AMBIGUOUS"
