"""What every tier policy shares: the items' records, the round's bookkeeping, persistence.

A tracker knows, for every context item, its tier (``active``, ``L3``..``L0``), its N
value, a hash of its content and its age (rounds since it was last Active). Closing a
round is the same for every policy up to one step: items in play, modified or changed
on disk return to Active with N=0, items whose content is gone are dropped, every other
item ages by one round — and then the policy moves the items leaving Active, and those
already cached, in :meth:`TierTracker._advance`.

A tracker knows nothing of the kernel: each entry is handed to ``on_entry``, which the
plugin wires to ``Session.emit_tier_entry``.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

from sari_core import TierEntry
from sari_ripple.config import ACTIVE, PROMPT_ORDER, EntryReason, Tier, TierRule

Content = str | bytes
ContentGetter = Callable[[str], Content | None]
EntryCallback = Callable[[TierEntry], None]
STATE_VERSION = 1
TrackerT = TypeVar("TrackerT", bound="TierTracker")


def content_hash(content: Content) -> str:
    """A short, stable fingerprint of an item's content (detects modifications)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class StabilityInfo:
    """What the tracker knows of one item.

    :ivar tier: where the item sits now.
    :ivar n_value: its N (0 in Active); what it counts depends on the policy.
    :ivar content_hash: fingerprint of the content last seen, for detecting modifications.
    :ivar seq: activation order; items leaving Active in one round enter L3 in this order.
    :ivar age: rounds closed since the item was last Active (0 while Active).
    """

    tier: Tier
    n_value: int
    content_hash: str
    seq: int = 0
    age: int = 0


class TierTracker(abc.ABC):
    """Base of the tier policies: the shared interface and round bookkeeping.

    :param rules: per cache tier the N an item gets on entry and the N at which it moves up.
    :param on_entry: called with a :class:`~sari_core.models.TierEntry` for every entry
        into a tier (including returns to Active), in the order they happen.
    """

    #: The policy's name, as in ``RippleSettings.policy`` and in the saved state.
    policy: ClassVar[str] = ""

    def __init__(self, rules: Mapping[str, TierRule], on_entry: EntryCallback | None = None
                 ) -> None:
        self.rules: dict[str, TierRule] = dict(rules)
        self.on_entry = on_entry
        self._items: dict[str, StabilityInfo] = {}
        self._seq = 0
        self.last_dropped: list[str] = []
        # Items placed since the last round closed: their placement already is this round's.
        self._placed: set[str] = set()

    # --- queries ------------------------------------------------------------------------

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get_tier(self, item: str) -> Tier:
        """The item's tier; an item never seen is Active (uncached)."""
        info = self._items.get(item)
        return info.tier if info else ACTIVE

    def get_n_value(self, item: str) -> int:
        info = self._items.get(item)
        return info.n_value if info else 0

    def info(self, item: str) -> StabilityInfo | None:
        """A copy of the item's record, or None if it is not tracked."""
        info = self._items.get(item)
        return replace(info) if info else None

    def tracked(self) -> list[str]:
        return sorted(self._items)

    def get_items_by_tier(self, items: Iterable[str] | None = None) -> dict[Tier, list[str]]:
        """Items grouped by tier, keyed in prompt order (L0 first), each list sorted.

        :param items: the items to group (untracked ones count as Active);
            all tracked items when None.
        """
        grouped: dict[Tier, list[str]] = {tier: [] for tier in PROMPT_ORDER}
        for item in sorted(set(self._items if items is None else items)):
            grouped[self.get_tier(item)].append(item)
        return grouped

    # --- direct changes -----------------------------------------------------------------

    def place(self, item: str, tier: Tier, content: Content = b"", *,
              n_value: int | None = None, reason: EntryReason = "initial") -> None:
        """Put an untracked item straight into a tier, without moving others (initial placement).

        :param n_value: defaults to the tier's entry N (0 for Active).
        :raises ValueError: if the item is already tracked, or the policy does not allow
            that N in that tier.
        """
        if item in self._items:
            raise ValueError(f"{item!r} is already tracked (tier {self._items[item].tier})")
        n = 0 if tier == ACTIVE else self.rules[tier].entry_n if n_value is None else n_value
        self._check_placement(tier, n)
        self._items[item] = StabilityInfo(tier, n, content_hash(content), self._next_seq())
        self._placed.add(item)
        self._emit(item, tier, None, reason)

    def demote(self, item: str, content: Content | None = None) -> bool:
        """An item was modified: back to Active with N=0 (a no-op if already Active).

        :param content: the new content, when known (refreshes the hash).
        :return: True if the item left a cache tier.
        """
        info = self._items.get(item)
        if info is None:
            return False
        if content is not None:
            info.content_hash = content_hash(content)
        if info.tier == ACTIVE:
            return False
        previous = info.tier
        info.tier, info.n_value, info.seq, info.age = ACTIVE, 0, self._next_seq(), 0
        self._emit(item, ACTIVE, previous, "modified")
        return True

    def forget(self, item: str) -> bool:
        return self._items.pop(item, None) is not None

    # --- the round ----------------------------------------------------------------------

    def update_after_response(self, items: Iterable[str], get_content: ContentGetter,
                              modified: Iterable[str] | None = None) -> dict[str, Tier]:
        """Close a round: ``items`` are this round's Active context.

        Tracked items whose content is gone (``get_content`` returns None) are dropped.
        Items in ``items`` or ``modified`` are Active; a cached item whose content
        changed returns to Active; every other item ages by one round, and the policy
        moves the Active items not in play this round, and the cached ones.

        :return: ``{item: new_tier}`` for every item whose tier changed this round.
        """
        modified_set = set(modified or ())
        before = {item: info.tier for item, info in self._items.items()}
        contents: dict[str, Content | None] = {}

        def content_of(item: str) -> Content | None:
            if item not in contents:
                contents[item] = get_content(item)
            return contents[item]

        self.last_dropped = [item for item in sorted(self._items) if content_of(item) is None]
        for item in self.last_dropped:
            del self._items[item]

        listed = list(dict.fromkeys(items))
        in_play = listed + sorted(modified_set.difference(listed))
        active_now: set[str] = set()
        for item in in_play:
            content = content_of(item)
            if content is None:
                continue
            active_now.add(item)
            self._activate(item, content_hash(content), changed=item in modified_set)
        for item in sorted(self._items):
            info = self._items[item]
            if item in active_now or info.tier == ACTIVE:
                continue
            content = content_of(item)
            assert content is not None  # dropped above otherwise
            fingerprint = content_hash(content)
            if fingerprint != info.content_hash:
                active_now.add(item)
                self._activate(item, fingerprint, changed=True)

        for item, info in self._items.items():
            info.age = 0 if item in active_now else info.age + 1
        leaving = sorted((info.seq, item) for item, info in self._items.items()
                         if info.tier == ACTIVE and item not in active_now)
        self._advance([item for _, item in leaving])
        self._placed.clear()
        return {item: info.tier for item, info in sorted(self._items.items())
                if before.get(item) != info.tier}

    def _activate(self, item: str, fingerprint: str, *, changed: bool) -> None:
        info = self._items.get(item)
        if info is None:
            self._items[item] = StabilityInfo(ACTIVE, 0, fingerprint, self._next_seq())
            self._emit(item, ACTIVE, None, "initial")
            return
        was_modified = changed or fingerprint != info.content_hash
        info.content_hash = fingerprint
        if info.tier == ACTIVE:
            return
        previous = info.tier
        info.tier, info.n_value, info.seq, info.age = ACTIVE, 0, self._next_seq(), 0
        self._emit(item, ACTIVE, previous, "modified" if was_modified else "reactivated")

    # --- what a policy provides ---------------------------------------------------------

    @abc.abstractmethod
    def _advance(self, leaving_active: list[str]) -> None:
        """Move the items leaving Active (in activation order) and the cached ones."""

    def _check_placement(self, tier: Tier, n_value: int) -> None:  # noqa: B027 - optional hook
        """Refuse an N the policy cannot have in ``tier`` (any N is fine by default)."""

    # --- plumbing -----------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _emit(self, item: str, tier: Tier, previous: Tier | None, reason: EntryReason) -> None:
        if self.on_entry is not None:
            self.on_entry(TierEntry(item=item, tier=tier, previous_tier=previous,
                                    n_value=self._items[item].n_value,
                                    reason=reason))

    # --- persistence --------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The tracker's state as JSON-ready data (sorted, so equal states give equal bytes)."""
        return {
            "version": STATE_VERSION,
            "policy": self.policy,
            "seq": self._seq,
            "items": {item: {"tier": info.tier, "n": info.n_value, "hash": info.content_hash,
                             "seq": info.seq, "age": info.age}
                      for item, info in sorted(self._items.items())},
        }

    def load_dict(self, data: Mapping[str, Any]) -> None:
        """Replace the state with one saved by :meth:`to_dict` under the same policy.

        A state saved before policies existed has no ``policy``: it is ripple's.

        :raises ValueError: if the data is not a state of this policy this version understands.
        """
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported ripple state version {data.get('version')!r}")
        saved_policy = data.get("policy", "ripple")
        if saved_policy != self.policy:
            raise ValueError(f"state saved under policy {saved_policy!r}, "
                             f"not {self.policy!r}")
        items: dict[str, StabilityInfo] = {}
        valid_tiers = set(PROMPT_ORDER)
        for item, record in dict(data.get("items", {})).items():
            tier, n_value, age = record.get("tier"), record.get("n"), record.get("age", 0)
            if tier not in valid_tiers or not isinstance(n_value, int) or n_value < 0 \
                    or not isinstance(age, int) or age < 0:
                raise ValueError(f"invalid ripple state for {item!r}: {record!r}")
            items[str(item)] = StabilityInfo(
                tier=tier, n_value=0 if tier == ACTIVE else n_value,
                content_hash=str(record.get("hash", "")), seq=int(record.get("seq", 0)),
                age=0 if tier == ACTIVE else age)
        self._items = items
        self._seq = max([int(data.get("seq", 0)), *(info.seq for info in items.values())])

    @classmethod
    def from_dict(cls: type[TrackerT], data: Mapping[str, Any], *args: Any,
                  **kwargs: Any) -> TrackerT:
        """A tracker built with ``cls(*args, **kwargs)`` holding the state saved by :meth:`to_dict`.

        :raises ValueError: see :meth:`load_dict`.
        """
        tracker = cls(*args, **kwargs)
        tracker.load_dict(data)
        return tracker
