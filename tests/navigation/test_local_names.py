"""A function's own names are not the module's function of that name: a comprehension's
variable (bound on a line after its use) and a parameter of a signature written over many
lines, used in the body, are neither references nor callers of it."""

from __future__ import annotations

from indexed_files import module_workspace, usage_lines

from sari_core.engine import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/commands.py": (
        "def command(name):\n"                                   # 1
        "    return name\n"),                                    # 2
    "pkg/use.py": (
        "from pkg.commands import command\n"                     # 1
        "\n"                                                     # 2
        "\n"                                                     # 3
        "def visible(ctx):\n"                                    # 4
        "    return [\n"                                         # 5
        "        command.name\n"                                 # 6
        "        for name, command in ctx.items()\n"             # 7
        "    ]\n"                                                # 8
        "\n"                                                     # 9
        "\n"                                                     # 10
        "def build(\n"                                           # 11
        "    a,\n"                                               # 12
        "    b,\n"                                               # 13
        "    c,\n"                                               # 14
        "    d,\n"                                               # 15
        "    e,\n"                                               # 16
        "    command: Optional[str],\n"                          # 17
        "):\n"                                                   # 18
        "    handler = command\n"                                # 19
        "    return command('x'), handler\n"                     # 20
        "\n"                                                     # 21
        "\n"                                                     # 22
        "def real(items):\n"                                     # 23
        "    first = command('y')\n"                             # 24
        "    return [command(i) for i in items], first\n"        # 25
        "\n"                                                     # 26
        "\n"                                                     # 27
        "def shown(ctx, out):\n"                                 # 28
        "    out.extend(\n"                                      # 29
        "        Item(name, help=command.help)\n"                # 30
        "        for name, command in ctx.items()\n"             # 31
        "    )\n"),                                              # 32
}

workspace = module_workspace(FILES)


def _in_use(workspace: Workspace, kind: str) -> set[int]:
    return {line for path, line in usage_lines(workspace, "command", kind)  # type: ignore[arg-type]
            if path == "pkg/use.py"}


def test_a_comprehension_variable_is_no_use_of_the_function(workspace: Workspace) -> None:
    assert _in_use(workspace, "references") & {6, 30} == set()
    assert 25 in _in_use(workspace, "callers")  # the function called inside a comprehension


def test_a_parameter_of_a_long_signature_is_no_use_of_the_function(
        workspace: Workspace) -> None:
    assert _in_use(workspace, "references") & {17, 19, 20} == set()
    assert _in_use(workspace, "callers") == {24, 25}
