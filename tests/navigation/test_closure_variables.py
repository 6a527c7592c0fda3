"""Index-only narrowing: a nested function reads a variable of the function enclosing it
(a closure), so the receiver's class is the one made there (``done = Signal()``)."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "flowkit/__init__.py": "",
    "flowkit/signals.py": (
        "class Signal:\n"                                        # 1
        "    def fire(self): ...\n"                              # 2
        "\n"                                                     # 3
        "\n"                                                     # 4
        "class Alarm:\n"                                         # 5
        "    def fire(self): ...\n"                              # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "def watch(bell: Alarm):\n"                              # 9
        "    done = Signal()\n"                                  # 10
        "\n"                                                     # 11
        "    def finish():\n"                                    # 12
        "        done.fire()\n"                                  # 13
        "        bell.fire()\n"                                  # 14
        "\n"                                                     # 15
        "    return finish\n"),                                  # 16
}


workspace = module_workspace(FILES)


def test_a_closure_reads_the_enclosing_functions_variable(workspace: Workspace) -> None:
    signal = usage_lines(workspace, "flowkit/signals.py:2")
    alarm = usage_lines(workspace, "flowkit/signals.py:6")
    assert ("flowkit/signals.py", 13) in signal and ("flowkit/signals.py", 13) not in alarm


def test_a_closure_reads_the_enclosing_functions_parameter(workspace: Workspace) -> None:
    signal = usage_lines(workspace, "flowkit/signals.py:2")
    alarm = usage_lines(workspace, "flowkit/signals.py:6")
    assert ("flowkit/signals.py", 14) in alarm and ("flowkit/signals.py", 14) not in signal
