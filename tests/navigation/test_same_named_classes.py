"""Index-only narrowing: classes of one name in several modules (an interface and its
backends' implementations, ``class TaskGroup(abc.TaskGroup)``) are told apart by the file:
``self`` is the class of its own file, an imported name the class of the module it comes
from, and a type read from another file's annotation the interface. A class made through an installed module
(``asyncio.Event()``) is none of them, and a receiver of unknown type is no more one
namesake's than another's."""

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
    "lib/events.py": "class Event:\n    def set(self):\n        return 1\n",
    "lib/backend_events.py": (
        "import asyncio\n"                                      # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "class Event:\n"                                         # 4
        "    def set(self):\n"                                   # 5
        "        return 2\n"                                     # 6
        "\n"                                                     # 7
        "\n"                                                     # 8
        "class Protocol:\n"                                      # 9
        "    def __init__(self):\n"                              # 10
        "        self.ready = asyncio.Event()\n"                 # 11
        "\n"                                                     # 12
        "    def done(self, thing):\n"                           # 13
        "        self.ready.set()\n"                             # 14
        "        thing.set()\n"),                                # 15
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


def test_a_class_made_through_an_installed_module_is_not_the_workspace_s(
        workspace: Workspace) -> None:
    found = usage_lines(workspace, "lib/backend_events.py:5")
    assert ("lib/backend_events.py", 14) not in found  # asyncio.Event().set


def test_an_unknown_receiver_is_no_namesake_s_in_particular(workspace: Workspace) -> None:
    # thing.set(): Event is defined twice; nothing says which one thing is
    assert ("lib/backend_events.py", 15) not in usage_lines(workspace, "lib/backend_events.py:5")
