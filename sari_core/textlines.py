"""Splitting text into lines the way line numbers count them."""

from __future__ import annotations

__all__ = ["split_lines"]


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping the ends.

    ``str.splitlines`` also splits on form feeds and other separators, which Python
    sources contain, and would shift every line number after one.
    """
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
