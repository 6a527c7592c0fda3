"""The provider's prompt cache as ``bench/cache_sim.py`` models it, and the cost of a request.

A request is a list of content blocks, each holding one or more context items (a file at a
version) and perhaps a cache breakpoint after it. Modelled on Anthropic's prompt caching:

- **Entries.** A request writes one cache entry per breakpoint: the prefix up to it, keyed by
  the exact items (and versions) in order, however they are cut into blocks.
- **Lookup.** For each breakpoint the provider looks for a cached prefix ending at that
  breakpoint or at one of the block boundaries before it, up to ``LOOKBACK_BLOCKS``
  boundaries back (the breakpoint's own included). The longest hit over all breakpoints is
  served (read); the tokens from it to the last breakpoint are written; the rest is plain.
  So a prompt cut into one block per file can hit an entry whose end is no longer a
  breakpoint, where one block per tier cannot: its boundaries moved.
- **Minimum.** A breakpoint whose prefix is shorter than the minimum cacheable size neither
  writes nor hits (1024 tokens for most models, 2048/4096 for others). With
  ``per_block_minimum`` the breakpoint's own block must reach it, a stricter variant.
- **Lifetime.** Entries live 5 minutes from their last use, and an agent's rounds (one
  commit each) are taken to be further apart than that unless a request uses the entry: the
  entries alive at a request are those the previous request wrote or read.

Costs are Anthropic's multipliers of the base input price: write 1.25x, read 0.1x, plain 1x.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WRITE_COST, READ_COST = 1.25, 0.1
LOOKBACK_BLOCKS = 20

Item = tuple[str, int]                       # (path, version)
Block = tuple[tuple[Item, ...], int, bool]   # (items, tokens, breakpoint after)


@dataclass
class Tally:
    prompt: int = 0
    read: int = 0
    written: int = 0
    breakpoints: int = 0
    requests: int = 0

    @property
    def cost(self) -> float:
        """In base-input tokens: what the same prompt sent without caching costs is ``prompt``."""
        return (self.prompt - self.read - self.written) + WRITE_COST * self.written \
            + READ_COST * self.read

    def add(self, other: Tally) -> None:
        for name in ("prompt", "read", "written", "breakpoints", "requests"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class PromptCache:
    """What the provider holds between requests, and the accounting of each request."""

    min_tokens: int
    per_block_minimum: bool = False
    lookback: int = LOOKBACK_BLOCKS
    # Prefixes as nodes of a trie over items: equal item sequences get equal node ids.
    _trie: dict[tuple[int, Item], int] = field(default_factory=dict)
    _alive: set[int] = field(default_factory=set)

    def _node(self, parent: int, item: Item) -> int:
        node = self._trie.get((parent, item))
        if node is None:
            node = self._trie[(parent, item)] = len(self._trie) + 1
        return node

    def request(self, blocks: list[Block], tally: Tally) -> None:
        node = total = 0
        boundaries: list[tuple[int, int]] = []   # (prefix node, tokens up to it) per block
        for items, tokens, _ in blocks:
            for item in items:
                node = self._node(node, item)
            total += tokens
            boundaries.append((node, total))
        read, hit, written_up_to = 0, 0, 0
        entries: set[int] = set()
        for index, (_, tokens, breakpoint) in enumerate(blocks):
            if not breakpoint:
                continue
            prefix_node, prefix_tokens = boundaries[index]
            if (tokens if self.per_block_minimum else prefix_tokens) < self.min_tokens:
                continue
            for back in range(index, max(-1, index - self.lookback), -1):
                candidate, candidate_tokens = boundaries[back]
                if candidate in self._alive:
                    if candidate_tokens > read:
                        read, hit = candidate_tokens, candidate
                    break
            entries.add(prefix_node)
            written_up_to = prefix_tokens
        tally.prompt += total
        tally.read += read
        tally.written += max(0, written_up_to - read)
        tally.breakpoints += sum(1 for _, _, breakpoint in blocks if breakpoint)
        tally.requests += 1
        self._alive = entries | ({hit} if hit else set())
