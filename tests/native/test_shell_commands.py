"""Which shell commands the hooks act on: plain reads and searches, parsed with shlex."""

from __future__ import annotations

import pytest

from sari_core.native.shell import FileRead, Listing, TextSearch, shell_request


@pytest.mark.parametrize(("command", "expected"), [
    ("cat pkg/app.py", FileRead("pkg/app.py")),
    ("cat -n 'my file.py'", FileRead("my file.py")),
    ("head -n 20 app.py", FileRead("app.py", 1, 20)),
    ("head -5 app.py", FileRead("app.py", 1, 5)),
    ("head app.py", FileRead("app.py", 1, 10)),
    ("tail -n 30 app.py", FileRead("app.py", last=30)),
    ("sed -n '10,40p' app.py", FileRead("app.py", 10, 31)),
    ("sed -n 7p app.py", FileRead("app.py", 7, 1)),
    ("sed -n '10,$p' app.py", FileRead("app.py", 10)),
    ('grep -rn "def handler_[0-9]" src', TextSearch("def handler_[0-9]", ("src",))),
    ("rg -i parse_config", TextSearch("parse_config", (), ignore_case=True)),
    ("ugrep -F -n 'a.b' lib", TextSearch("a.b", ("lib",), fixed=True)),
    ("grep -l needle -r .", TextSearch("needle", (".",), files_only=True)),
    ("rg needle | head -n 5", TextSearch("needle", (), head=5)),
    ("grep -C 3 needle app.py", TextSearch("needle", ("app.py",))),
    ("ls -la src", Listing("ls", ("src",))),
    ("wc -l app.py", Listing("wc", ("app.py",))),
])
def test_plain_reads_and_searches_are_understood(command: str, expected: object) -> None:
    assert shell_request(command) == expected


@pytest.mark.parametrize("command", [
    "cat app.py | sh",            # a pipe into anything but head
    "cat app.py > copy.py",       # a redirection
    "cat $(ls)",                  # a substitution
    "cat `ls`",
    'cat "$HOME/app.py"',         # a variable, even quoted
    "cat *.py",                   # a glob the shell expands
    "cat ~/notes.txt",            # a tilde
    "cat app.py; rm -rf /",       # a second command
    "cat app.py && echo done",
    "cat app.py\nrm x",
    "head -c 100 app.py",         # an option not known
    "rg --type py needle",
    "grep -rn 'unclosed",         # a quote never closed
    "python -c 'print(1)'",       # not a read or search
    "sed -i 's/a/b/' app.py",     # sed that writes
    "cat a.py b.py",              # several files
])
def test_anything_not_understood_whole_is_left_alone(command: str) -> None:
    assert shell_request(command) is None
