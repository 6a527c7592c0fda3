"""Workspaces for the ripple tests, and a tracker driver for table-driven scenarios."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from git_workspace import engine_over, write_files

from sari_core.models import FileChange, TierEntry
from sari_core.testing import MemoryEngine
from sari_ripple import RippleTracker, TierTracker


class DiskMemoryEngine(MemoryEngine):
    """The kernel tests' memory engine, with its files also on disk (ripple hashes the
    files it tiers, as they are in the workspace)."""

    def __init__(self, files: dict[str, str], root: Path) -> None:
        super().__init__(files, root=str(root))
        write_files(root, files)

    def apply_mutation(self, changes: list[FileChange]) -> None:
        super().apply_mutation(changes)
        for change in changes:
            path = self.roots[0] / change.path
            if change.new_text is None:
                path.unlink(missing_ok=True)
            else:
                write_files(self.roots[0], {change.path: change.new_text})


def build_engine(root: Path, files: dict[str, str]) -> Any:
    """The real engine over a git repository; every call commits what it wrote."""
    return engine_over(root, files, commit_every_time=True)


# --- tracker scenarios ------------------------------------------------------------------

TierState = dict[str, dict[str, int]]
# A row of a round table: (items in Active context, items modified, expected state,
# expected {item: new tier}).
Round = tuple[list[str], set[str], TierState, dict[str, str]]
Tracker = TypeVar("Tracker", bound=TierTracker)


def tier_state(tracker: RippleTracker) -> TierState:
    """``{tier: {item: N}}`` of every non-empty tier: the form the tables are written in."""
    return {tier: {item: tracker.get_n_value(item) for item in items}
            for tier, items in tracker.get_items_by_tier().items() if items}


class Contents:
    """Item contents for ``get_content``: every item exists with a version number."""

    def __init__(self) -> None:
        self.versions: dict[str, int] = {}
        self.deleted: set[str] = set()

    def __call__(self, item: str) -> str | None:
        if item in self.deleted:
            return None
        return f"{item} v{self.versions.get(item, 0)}"

    def touch(self, item: str) -> None:
        self.versions[item] = self.versions.get(item, 0) + 1


def play(tracker: TierTracker, contents: Contents, rounds: Sequence[Round]
         ) -> Iterator[tuple[int, dict[str, str], Round]]:
    """Play a round table on ``tracker``: each round touches its modified items, then updates.

    Yields ``(round number from 1, what moved, the row)`` after each round.
    """
    for number, row in enumerate(rounds, start=1):
        items, modified, _, _ = row
        for item in modified:
            contents.touch(item)
        yield number, tracker.update_after_response(items, contents, modified), row


def placed(tracker: Tracker, state: TierState, contents: Contents,
           entries: list[TierEntry] | None = None) -> Tracker:
    """``tracker`` with every item of ``state`` in its tier at its N.

    Active items are read in a round of their own; the others are placed directly. From
    then on the tracker announces its entries into ``entries`` when one is given.
    """
    for tier, items in state.items():
        for item, n_value in items.items():
            if tier == "active":
                tracker.update_after_response([item], contents)
            else:
                tracker.place(item, tier, contents(item), n_value=n_value)  # type: ignore[arg-type]
    if entries is not None:
        tracker.on_entry = entries.append
    return tracker
