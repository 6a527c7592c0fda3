"""Index-only narrowing: a package that takes a module's names with ``from .urls import *``
and lists them in its ``__all__`` exports that module's definitions, not another's."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "web/__init__.py": (
        "from .urls import *\n"                                  # 1
        "from .models import *\n"                                # 2
        "\n"                                                     # 3
        "__all__ = [\n"                                          # 4
        '    "URL",\n'                                           # 5
        '    "Request",\n'                                       # 6
        "]\n"),                                                  # 7
    "web/urls.py": "class URL:\n    pass\n",
    "web/models.py": "from .urls import URL\n\n\nclass Request:\n    url: URL\n",
    "other/urls.py": "class URL:\n    pass\n",
}


workspace = module_workspace(FILES)


def test_a_star_imported_name_in_all_is_the_module_s_definition(workspace: Workspace) -> None:
    assert ("web/__init__.py", 5) in usage_lines(workspace, "web/urls.py:1")
    assert ("web/__init__.py", 5) not in usage_lines(workspace, "other/urls.py:1")
    assert ("web/__init__.py", 6) in usage_lines(workspace, "web/models.py:4")
