"""Index-only narrowing: classes of one name in several modules (an interface and its
backends' implementations, ``class TaskGroup(abc.TaskGroup)``) are told apart by the file:
``self`` is the class of its own file, an imported name the class of the module it comes
from, and a type read from another file's annotation the interface."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "lib/__init__.py": "",
    "lib/abc.py": (
        "class TaskGroup:\n"                                     # 1
        "    def start_soon(self, func):\n"                      # 2
        "        raise NotImplementedError\n"),                  # 3
    "lib/backend.py": (
        "from lib import abc\n"                                  # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class TaskGroup(abc.TaskGroup):\n"                      # 4
        "    def start_soon(self, func):\n"                      # 5
        "        return func\n"                                  # 6
        "\n"                                                     # 7
        "    def start_twice(self, func):\n"                     # 8
        "        self.start_soon(func)\n"),                      # 9
    "lib/tasks.py": (
        "from lib.abc import TaskGroup\n"                        # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def create_task_group() -> TaskGroup:\n"                # 4
        "    return TaskGroup()\n"                               # 5
        "\n"                                                     # 6
        "\n"                                                     # 7
        "def run(group: TaskGroup):\n"                           # 8
        "    group.start_soon(print)\n"),                        # 9
    "lib/sockets.py": (
        "from lib.tasks import create_task_group\n"              # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def serve():\n"                                         # 4
        "    with create_task_group() as tg:\n"                  # 5
        "        tg.start_soon(print)\n"),                       # 6
}


workspace = module_workspace(FILES)


def test_self_is_the_class_of_its_own_file(workspace: Workspace) -> None:
    assert ("lib/backend.py", 9) in usage_lines(workspace, "lib/backend.py:5")
    assert ("lib/backend.py", 9) not in usage_lines(workspace, "lib/abc.py:2")


def test_an_imported_class_is_the_module_s_it_comes_from(workspace: Workspace) -> None:
    assert ("lib/tasks.py", 9) in usage_lines(workspace, "lib/abc.py:2")
    assert ("lib/tasks.py", 9) not in usage_lines(workspace, "lib/backend.py:5")


def test_a_type_from_another_file_s_annotation_is_the_interface(workspace: Workspace) -> None:
    assert ("lib/sockets.py", 6) in usage_lines(workspace, "lib/abc.py:2")
    assert ("lib/sockets.py", 6) not in usage_lines(workspace, "lib/backend.py:5")
