"""Where a definition starts: at the decorators or attributes directly above its line.

The index records a definition at the line that names it; a decorator above it (Python,
Java and TypeScript ``@``, Rust ``#[``) is part of it, as the language's own syntax tree
has it: ``@classmethod`` or ``@property`` changes what the definition is. Both a symbol
read and a search that shows a definition start there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_DECORATOR_LINES = 20
_DECORATOR = re.compile(r"\s*(@|#\[)")


def decorated_start(lines: Sequence[str], line: int) -> int:
    """The first line of the definition at ``line`` (from 1) of ``lines``: the decorators
    directly above it, else ``line`` itself."""
    if line > len(lines):  # an index older than the text: nothing to go by
        return line
    first = line
    while first > 1 and line - first < MAX_DECORATOR_LINES and _DECORATOR.match(lines[first - 2]):
        first -= 1
    return first
