"""Diagnostics as plain values, and which of them an edit introduced.

A diagnostic is matched across an edit by its identity — the file, the validator,
the code and the message — never by its line alone, since an edit above it moves
it. When one identity occurs more often after the edit than before, the old
occurrences are carried to their new lines through the text diff and paired with
the nearest new ones; the new occurrences left over are the introduced ones.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

SEVERITY_NAMES = ("error", "warning", "information", "hint")
# LSP DiagnosticSeverity numbers (1 = Error ... 4 = Hint).
SEVERITY_BY_LSP_NUMBER = {1: "error", 2: "warning", 3: "information", 4: "hint"}

Identity = tuple[str, str, str, str]


def normalize_message(message: str) -> str:
    """Collapse whitespace (servers use non-breaking spaces and newlines for indentation)."""
    return " ".join(message.replace("\xa0", " ").split())


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding of one validator.

    :ivar path: workspace-relative path with forward slashes (absolute when outside the roots).
    :ivar line: 1-based line.
    :ivar column: 1-based column.
    :ivar severity: ``error``, ``warning``, ``information`` or ``hint``.
    :ivar source: the validator that reported it (``ruff``, ``basedpyright``, a configured name).
    :ivar code: the validator's rule or error code, empty when it gives none.
    :ivar message: the full message.
    """

    path: str
    line: int
    column: int
    severity: str
    source: str
    code: str
    message: str

    @property
    def identity(self) -> Identity:
        return (self.path, self.source, self.code, normalize_message(self.message))

    @property
    def headline(self) -> str:
        """The message's first line, whitespace collapsed: what a summary shows."""
        first = next((line for line in self.message.splitlines() if line.strip()), "")
        return normalize_message(first)

    def example(self) -> str:
        return f"{self.path}:{self.line} - {self.headline}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Diagnostic:
        return cls(path=str(data["path"]), line=int(data["line"]), column=int(data["column"]),
                   severity=str(data["severity"]), source=str(data["source"]),
                   code=str(data.get("code", "")), message=str(data["message"]))


def gating(diagnostics: Iterable[Diagnostic], severities: Iterable[str]) -> list[Diagnostic]:
    """The diagnostics whose severity gates, sorted."""
    wanted = set(severities)
    return sorted(d for d in diagnostics if d.severity in wanted)


class LineMap:
    """Where each line of the old text went in the new text (1-based), from a line diff.

    The diff is computed on first use: most validations find nothing to carry across.
    """

    def __init__(self, old_text: str | None, new_text: str | None) -> None:
        self._texts = (old_text, new_text)
        self._mapping: dict[int, int] | None = None
        self._identity = old_text is None or new_text is None or old_text == new_text

    def _build(self) -> dict[int, int]:
        old_text, new_text = self._texts
        assert old_text is not None and new_text is not None
        mapping: dict[int, int] = {}
        matcher = difflib.SequenceMatcher(None, old_text.splitlines(), new_text.splitlines(),
                                          autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            for offset, old_index in enumerate(range(i1, i2)):
                if tag == "equal":
                    mapping[old_index + 1] = j1 + offset + 1
                else:  # replaced or deleted lines land where their block now starts
                    mapping[old_index + 1] = min(j1 + offset, max(j2 - 1, j1)) + 1
        return mapping

    def new_line(self, old_line: int) -> int:
        if self._identity:
            return old_line
        if self._mapping is None:
            self._mapping = self._build()
        return self._mapping.get(old_line, old_line)


IDENTITY_MAP = LineMap(None, None)


@dataclass(frozen=True)
class Comparison:
    """The diagnostics after an edit, split into introduced and already-present ones.

    ``carried`` pairs each already-present new diagnostic with the old one it continues.
    """

    introduced: list[Diagnostic]
    carried: list[tuple[Diagnostic, Diagnostic]]


def compare(before: Sequence[Diagnostic], after: Sequence[Diagnostic],
            line_map: LineMap = IDENTITY_MAP) -> Comparison:
    """Split ``after`` into what the edit introduced and what continues from ``before``."""
    old_by_identity: dict[Identity, list[Diagnostic]] = defaultdict(list)
    for diagnostic in before:
        old_by_identity[diagnostic.identity].append(diagnostic)
    new_by_identity: dict[Identity, list[Diagnostic]] = defaultdict(list)
    for diagnostic in after:
        new_by_identity[diagnostic.identity].append(diagnostic)
    introduced: list[Diagnostic] = []
    carried: list[tuple[Diagnostic, Diagnostic]] = []
    for identity, new_items in new_by_identity.items():
        old_items = old_by_identity.get(identity, [])
        pairs = _nearest_pairs(old_items, new_items, line_map)
        paired_new = {id(new) for _, new in pairs}
        carried.extend((old, new) for old, new in pairs)
        introduced.extend(new for new in new_items if id(new) not in paired_new)
    return Comparison(sorted(introduced), sorted(carried, key=lambda pair: pair[1]))


def _nearest_pairs(old_items: list[Diagnostic], new_items: list[Diagnostic],
                   line_map: LineMap) -> list[tuple[Diagnostic, Diagnostic]]:
    """Pair old and new occurrences of one identity, closest (after the line shift) first."""
    if not old_items:
        return []
    candidates = sorted(
        (abs(line_map.new_line(old.line) - new.line), old_index, new_index)
        for old_index, old in enumerate(old_items)
        for new_index, new in enumerate(new_items)
    )
    used_old: set[int] = set()
    used_new: set[int] = set()
    pairs = []
    for _, old_index, new_index in candidates:
        if old_index in used_old or new_index in used_new:
            continue
        used_old.add(old_index)
        used_new.add(new_index)
        pairs.append((old_items[old_index], new_items[new_index]))
    return pairs
