"""A session's relevance baseline: its latest search query and that search's top-K paths."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sari_core import SearchCall, SearchResult, names_symbol, normalize_path, symbol_names, words


@dataclass(frozen=True)
class TopEntry:
    """The best-ranked match of one top-K path."""

    path: str  # normalized, for comparison
    engine_path: str  # as the engine returned it, for ready-to-run calls
    line: int | None
    end_line: int | None
    symbol: str | None
    candidate_id: str | None
    snippet_words: frozenset[str]

    def names_symbol(self, wanted: set[str]) -> bool:
        return names_symbol(wanted, self.symbol, self.snippet_words)


@dataclass(frozen=True)
class Baseline:
    """The latest search of a session: what it asked and its top-K distinct paths, ranked."""

    query: str
    kind: str
    entries: tuple[TopEntry, ...]

    @classmethod
    def of(cls, call: SearchCall, result: SearchResult, top_k: int,
           roots: Sequence[Path]) -> Baseline:
        entries: list[TopEntry] = []
        seen: set[str] = set()
        # The engine ranks matches; the first match of a path is its best one.
        for match in result.matches:
            path = normalize_path(match.path, roots)
            if path in seen:
                continue
            seen.add(path)
            entries.append(TopEntry(path, match.path, match.line, match.end_line, match.symbol,
                                    match.candidate_id, frozenset(words(match.snippet))))
            if len(entries) == top_k:
                break
        return cls(call.query, call.kind, tuple(entries))

    def paths(self) -> list[str]:
        return [entry.path for entry in self.entries]

    def holds_path(self, path: str) -> bool:
        return any(entry.path == path for entry in self.entries)

    def holds_symbol(self, symbol: str) -> bool:
        """Whether the latest search was about ``symbol``: its query, a matched symbol or snippet."""
        wanted = symbol_names(symbol)
        if wanted & words(self.query):
            return True
        return any(entry.names_symbol(wanted) for entry in self.entries)
