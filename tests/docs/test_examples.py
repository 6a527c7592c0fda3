"""Every example on the reference and guide pages runs, and does what its page says.

Each Python block of ``docs/reference/*.md`` and ``docs/guide/*.md`` is taken from the page
as it stands and run in a real kernel over a real workspace folder; a block no check below
recognises fails, so a new example arrives with its check. Every ``sari`` command in a
``bash`` or ``console`` block must parse with the CLI it names (its command and options
exist).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sari_core.cli.main import build_parser, build_registry
from sari_core.testing import Kernels, MemoryEngine

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted([*DOCS.glob("reference/*.md"), *DOCS.glob("guide/*.md")])
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
VENDOR_LINES = 1000


def blocks(language: str) -> list[tuple[str, str]]:
    """``(page:line, code)`` of every block in ``language`` on the pages."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) == language:
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{page.relative_to(DOCS)}:{line}", match.group(2)))
    return found


def vendored_workspace(root: Path) -> Path:
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "vendor" / "lib" / "helper.py").write_text(
        "".join(f"value_{n} = {n}\n" for n in range(VENDOR_LINES)), encoding="utf-8")
    (root / "app.py").write_text("import vendor\n", encoding="utf-8")
    return root


def spellings(root: Path) -> list[str]:
    """One vendored file as a client may name it: relative, dotted, absolute."""
    return ["vendor/lib/helper.py", "./vendor//lib/helper.py",
            str(root / "vendor" / "lib" / "helper.py")]


def run_module(code: str, where: Path, name: str) -> Any:
    """The block as a module file of its own, imported (as a local policy is)."""
    path = where / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_imports(code: str, tmp_path: Path, sari_kernels: Kernels) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(code, "example", "exec"), namespace)  # noqa: S102 - the page's own example


def check_no_vendor_reads(code: str, tmp_path: Path, sari_kernels: Kernels) -> None:
    module = run_module(code, tmp_path, "no_vendor_reads")
    root = vendored_workspace(tmp_path / "ws")
    kernel = sari_kernels.build(None, [module.NoVendorReads()], roots=[root])
    for target in spellings(root):
        response = kernel.execute_read({"mode": "file", "target": target})
        assert not response["ok"], target
        assert response["error"]["code"] == "NOVENDOR_READ", (target, response["error"])
        assert "PLUGIN_ERROR" not in json.dumps(response), target
    assert kernel.execute_read({"mode": "file", "target": "app.py"})["ok"]


def check_vendor_cap(code: str, tmp_path: Path, sari_kernels: Kernels) -> None:
    module = run_module(code, tmp_path, "vendor_cap")
    root = vendored_workspace(tmp_path / "ws")
    kernel = sari_kernels.build(None, [module], roots=[root])
    for target in spellings(root):
        response = kernel.execute_read({"mode": "file", "target": target, "limit": 900})
        assert response["ok"], response
        assert response["meta"]["end_line"] == module.MAX_LINES, target
        assert "VENDOR_CAPPED" in json.dumps(response), target


def check_plugin_tests(code: str, tmp_path: Path, sari_kernels: Kernels) -> None:
    pytest.importorskip("sari_secretguard", reason="the guide's tests are secretguard's")
    namespace: dict[str, Any] = {}
    exec(compile(code, "example", "exec"), namespace)  # noqa: S102 - the page's own tests
    tests = {name: test for name, test in namespace.items() if name.startswith("test_")}
    assert tests
    for test in tests.values():
        wants = test.__code__.co_varnames[:test.__code__.co_argcount]
        test(**({"sari_kernels": sari_kernels} if "sari_kernels" in wants else {}))


def check_collect_ignore(code: str, tmp_path: Path, sari_kernels: Kernels) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(code, "example", "exec"), namespace)  # noqa: S102 - the page's own conftest
    installed = importlib.util.find_spec("sari_secretguard") is not None
    assert namespace["collect_ignore_glob"] == ([] if installed else ["*"])


# A block's check, by a line only that block holds.
CHECKS: dict[str, Callable[[str, Path, Kernels], None]] = {
    "class NoVendorReads:": check_no_vendor_reads,
    "# /etc/sari/policies/vendor_cap.py": check_vendor_cap,
    "def test_env_files_are_refused(sari_kernels: Kernels):": check_plugin_tests,
    "collect_ignore_glob = ": check_collect_ignore,
}


def check_of(code: str) -> Callable[[str, Path, Kernels], None]:
    found = [check for marker, check in CHECKS.items() if marker in code]
    if found:
        assert len(found) == 1
        return found[0]
    if all(line.startswith(("from ", "import ", " ")) or not line.strip()
           for line in code.splitlines()):
        return check_imports
    pytest.fail("an example with no check: add one to CHECKS")


@pytest.mark.parametrize(("where", "code"), blocks("python"), ids=lambda value: value
                         if ":" in value and value.endswith(tuple("0123456789")) else "")
def test_each_python_example_does_what_its_page_says(where: str, code: str, tmp_path: Path,
                                                      sari_kernels: Kernels) -> None:
    check_of(code)(code, tmp_path, sari_kernels)


def sari_commands() -> list[tuple[str, list[str]]]:
    commands = []
    for language, prompt in (("bash", ""), ("console", "$ ")):  # a console shows output too
        for where, code in blocks(language):
            for line in code.replace("\\\n", " ").splitlines():
                if not line.startswith(prompt):
                    continue
                line = line.removeprefix(prompt).split("#", 1)[0].strip()
                if line.startswith("sari "):
                    commands.append((where, shlex.split(line)[1:]))
    return commands


def test_the_pages_show_sari_commands() -> None:
    assert len(sari_commands()) >= 5


@pytest.mark.parametrize(("where", "argv"), sari_commands())
def test_each_sari_command_on_the_pages_parses(where: str, argv: list[str]) -> None:
    parser = build_parser(build_registry())
    try:
        parser.parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"{where}: `sari {' '.join(argv)}` does not parse ({exit_.code})")


def test_a_block_verdict_with_an_unregistered_code_is_the_plugins_failure(
        sari_kernels: Kernels) -> None:
    """Why the examples register their codes: the kernel serves the call and reports the
    plugin's failure instead of the code."""
    from sari_core import ReadCall, Verdict, hookimpl

    class Unregistered:
        name = "unregistered"

        @hookimpl
        def on_read_enter(self, call: ReadCall) -> Verdict:
            return Verdict.block("NEVER_REGISTERED", message="no.")

    kernel = sari_kernels.build(MemoryEngine({"a.py": "x = 1\n"}), [Unregistered()])
    response = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert "PLUGIN_ERROR" in json.dumps(response)


def test_the_kernel_codes_the_api_page_names_are_the_kernels() -> None:
    from sari_core import ReasonCode

    page = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    section = page.split("### `ReasonCode`", 1)[1].split("###", 1)[0]
    named = re.findall(r"`([A-Z][A-Z_]+)`", section)
    assert named and set(named) <= {code.value for code in ReasonCode}, named


REPOSITORY = DOCS.parent
# A commit as the pages cite one: git's short form (seven hex digits, as in "main at
# a41a867"), or a longer one after "commit" or "main at". Longer hex words elsewhere are
# session and execution ids.
CITED_COMMIT = re.compile(r"(?<![\w-])([0-9a-f]{7})(?![\w-])"
                          r"|(?:main at|[Cc]ommit|committed in)\s+`?([0-9a-f]{8,40})\b")
# Commits the pages cite of other repositories (a replayed session's project).
OTHER_REPOSITORIES = {"08b7a929a485"}


def cited_commits() -> list[tuple[str, str]]:
    cited = []
    for page in sorted([*DOCS.rglob("*.md"), REPOSITORY / "CHANGELOG.md",
                        REPOSITORY / "README.md"]):
        text = page.read_text(encoding="utf-8")
        for match in CITED_COMMIT.finditer(text):
            commit = match.group(1) or match.group(2)
            if commit.isdigit() or commit.isalpha() or commit in OTHER_REPOSITORIES:
                continue  # a number or a word, not a commit
            line = text.count("\n", 0, match.start()) + 1
            cited.append((f"{page.relative_to(REPOSITORY)}:{line}", commit))
    return cited


def test_every_commit_the_docs_cite_exists() -> None:
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None or not (REPOSITORY / ".git").exists():
        pytest.skip("not a git checkout (an sdist): no history to look commits up in")
    cited = cited_commits()
    assert len(cited) >= 10  # the pattern still finds the pages' citations
    missing = [(where, commit) for where, commit in cited
               if subprocess.run([git, "cat-file", "-e", f"{commit}^{{commit}}"],
                                 cwd=REPOSITORY, capture_output=True).returncode != 0]
    assert missing == []
