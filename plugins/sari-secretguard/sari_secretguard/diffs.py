"""Withholding whole files from a unified diff (``git diff`` output) line for line."""

from __future__ import annotations

from collections.abc import Callable

_SECTION_START = "diff --git "


def _names(section: list[str]) -> list[str]:
    """The paths a diff section names: its ``diff --git`` line and its ``---``/``+++`` lines.

    Only the header (before the first hunk) is looked at: a removed line whose text
    starts with ``-- `` is not a file name.
    """
    names = [section[0][len(_SECTION_START):].rstrip("\r\n")]
    for line in section[1:]:
        if line.startswith("@@"):
            break
        if line.startswith(("--- ", "+++ ")):
            name = line[4:].rstrip("\r\n")
            if name != "/dev/null":
                names.append(name[2:] if name.startswith(("a/", "b/")) else name)
    return names


def withhold_files(lines: list[str], is_secret: Callable[[str], bool], marker: str) -> list[str]:
    """``lines`` of a diff with each section of a secret file blanked.

    The section's first line becomes ``marker`` and its other lines are left empty, so
    the diff keeps its line count and any offset into it still points at the same line.
    """
    starts = [index for index, line in enumerate(lines) if line.startswith(_SECTION_START)]
    shown = list(lines)
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        if any(is_secret(name) for name in _names(lines[begin:end])):
            shown[begin] = marker + "\n"
            shown[begin + 1:end] = ["\n"] * (end - begin - 1)
    return shown
