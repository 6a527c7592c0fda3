"""Refs issued by search: stable ids, and the bounded per-session store that remembers them.

Ids are content hashes, not counters: the same workspace, query and results give
the same ``candidate_id``s and ``bundle_id`` in any kernel, any process, any day.
Whether a ref is *valid* is a separate question answered by the session's store:
a ref counts only in the session that was issued it.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from sari_core import SearchCall, SearchMatch, names_symbol, symbol_names, words

ID_SCHEME = "sari-refgate/1"
CANDIDATE_PREFIX = "cand_"
BUNDLE_PREFIX = "bndl_"
_DIGEST_CHARS = 16


def _digest(parts: list[object]) -> str:
    # JSON keeps the parts unambiguous (no delimiter can be forged by a query).
    payload = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]


def _query_identity(workspace: str, call: SearchCall) -> list[object]:
    return [ID_SCHEME, workspace, call.kind, call.query, call.case_sensitive, call.path_glob]


def candidate_id(workspace: str, call: SearchCall, match: SearchMatch) -> str:
    """The id of one match of one query in one workspace."""
    return CANDIDATE_PREFIX + _digest([
        *_query_identity(workspace, call), match.path, match.line, match.end_line, match.symbol,
    ])


def bundle_id(workspace: str, call: SearchCall, candidate_ids: list[str]) -> str:
    """The id of one search response: its query and its ranked candidates."""
    return BUNDLE_PREFIX + _digest([*_query_identity(workspace, call), candidate_ids])


@dataclass(frozen=True)
class CandidateRef:
    """What a candidate_id stands for: a path, a line, and what a symbol read may name."""

    candidate_id: str
    path: str
    line: int | None
    end_line: int | None
    symbol: str | None
    snippet_words: frozenset[str]

    @classmethod
    def of(cls, cid: str, path: str, match: SearchMatch) -> CandidateRef:
        return cls(cid, path, match.line, match.end_line, match.symbol,
                   frozenset(words(match.snippet)))

    def names_symbol(self, name: str) -> bool:
        """Whether a symbol read of ``name`` is about this match."""
        return names_symbol(symbol_names(name), self.symbol, self.snippet_words)


@dataclass(frozen=True)
class Bundle:
    """One search response: its id, its query and its candidates in rank order."""

    bundle_id: str
    query: str
    kind: str
    candidates: tuple[CandidateRef, ...]

    def paths(self) -> list[str]:
        seen: dict[str, None] = {}
        for candidate in self.candidates:
            seen.setdefault(candidate.path, None)
        return list(seen)

    def find(self, candidate_id: str) -> CandidateRef | None:
        return next((c for c in self.candidates if c.candidate_id == candidate_id), None)


@dataclass
class RefStore:
    """A session's issued refs, newest bundle last; at most ``max_bundles`` are kept."""

    max_bundles: int
    searches: int = 0
    bundles: OrderedDict[str, Bundle] = field(default_factory=OrderedDict)
    # Files whose outline a blind read was served as: the agent has seen where to read, so
    # its next read of the file is served as asked (asking again is no loop).
    outlined: frozenset[str] = frozenset()
    blind_streak: int = 0  # blind reads in a row since the last search or searched read

    def remember(self, bundle: Bundle) -> None:
        self.searches += 1
        self.blind_streak = 0
        self.bundles[bundle.bundle_id] = bundle
        self.bundles.move_to_end(bundle.bundle_id)
        while len(self.bundles) > self.max_bundles:
            self.bundles.popitem(last=False)

    def snapshot(self) -> RefStore:
        """A copy to decide on outside the session lock (bundles themselves are immutable)."""
        return RefStore(self.max_bundles, self.searches, OrderedDict(self.bundles),
                        self.outlined)

    def saw_outline(self, path: str) -> None:
        self.outlined = self.outlined | {path}

    def count_read(self, blind: bool) -> int:
        """Count a read into the blind streak; the streak, this read included."""
        self.blind_streak = self.blind_streak + 1 if blind else 0
        return self.blind_streak

    def newest_first(self) -> Iterator[Bundle]:
        return reversed(self.bundles.values())

    def bundle(self, bid: str) -> Bundle | None:
        return self.bundles.get(bid)

    def candidate(self, cid: str) -> CandidateRef | None:
        for bundle in self.newest_first():
            found = bundle.find(cid)
            if found is not None:
                return found
        return None

    def candidates_for_path(self, path: str) -> Iterator[CandidateRef]:
        """Candidates issued for ``path``, newest search first, then by rank."""
        for bundle in self.newest_first():
            for candidate in bundle.candidates:
                if candidate.path == path:
                    yield candidate

    def candidates_for_symbol(self, name: str) -> Iterator[CandidateRef]:
        for bundle in self.newest_first():
            for candidate in bundle.candidates:
                if candidate.names_symbol(name):
                    yield candidate
