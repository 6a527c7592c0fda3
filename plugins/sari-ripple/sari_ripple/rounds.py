"""One session's tier state: the tracker, the round being gathered, and its persistence.

Between two ``context_tiers`` calls the plugin gathers the round: files read or
edited through Sari are Active, edits demote at once. ``close_round`` then places
items never seen before, runs the tracker over the round, saves the state and
returns the layout and the prompt plan.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sari_core import TierEntry
from sari_ripple.config import RippleSettings, Tier
from sari_ripple.initial import InitialPlacer
from sari_ripple.plan import PromptPlan, round_plan
from sari_ripple.policies import new_tracker, restore_tracker
from sari_ripple.store import load_state, save_state
from sari_ripple.tracking import Content, TierTracker
from sari_ripple.workspace_files import WorkspaceFiles

log = logging.getLogger(__name__)
ReferenceSource = Callable[[], Mapping[str, int] | None]


@dataclass(frozen=True)
class OpaqueItem:
    """A context item that is not a file (symbol map, history): the client gives its
    version (any string that changes when the content changes) and token size."""

    version: str = ""
    tokens: int = 0


@dataclass
class RoundResult:
    round: int
    context: list[str]
    layout: dict[Tier, list[Any]]
    plan: PromptPlan
    moved: list[TierEntry]
    dropped: list[str]
    missing: list[str]


@dataclass
class RippleSession:
    """Runtime and persisted tier state of one session (``Session.namespace("ripple")``)."""

    tracker: TierTracker
    files: WorkspaceFiles
    settings: RippleSettings
    path: Path | None
    references: ReferenceSource
    round: int = 0
    opaque: dict[str, OpaqueItem] = field(default_factory=dict)
    pending_active: dict[str, None] = field(default_factory=dict)
    pending_modified: set[str] = field(default_factory=set)
    moved: list[TierEntry] = field(default_factory=list)
    dirty: bool = False
    _placer: InitialPlacer | None = None

    @classmethod
    def open(cls, files: WorkspaceFiles, settings: RippleSettings, path: Path | None,
             references: ReferenceSource) -> RippleSession:
        """Restore the saved state at ``path``, or start fresh."""
        data = load_state(path) if path is not None else None
        session = cls(new_tracker(settings), files, settings, path, references)
        if data is None:
            return session
        try:
            session.tracker = restore_tracker(data.get("tracker", {}), settings)
            session.round = int(data.get("round", 0))
            session.opaque = {str(key): OpaqueItem(str(value.get("version", "")),
                                                   int(value.get("tokens", 0)))
                              for key, value in dict(data.get("opaque", {})).items()}
        except (ValueError, TypeError, AttributeError) as exc:
            # Also a state saved under another policy: its N values mean something else.
            log.warning("ripple: starting fresh, saved state %s is invalid: %s", path, exc)
            session.tracker = new_tracker(settings)
            session.round, session.opaque = 0, {}
        return session

    # --- gathering the round ------------------------------------------------------------

    def wire(self, announce: Callable[[TierEntry], None]) -> None:
        """Send every tier entry to ``announce`` (the kernel's ``on_tier_entry``) and keep it
        for the next round's "moved" list."""

        def on_entry(entry: TierEntry) -> None:
            self.moved.append(entry)
            announce(entry)

        self.tracker.on_entry = on_entry

    def observe(self, item: str) -> None:
        """A file was read through Sari: Active this round."""
        self.pending_active[item] = None

    def mutated(self, item: str, new_content: Content | None) -> None:
        """A file was changed (by Sari or outside it): demote it to Active now."""
        if new_content is None:  # deleted: the next round drops it
            self.pending_active.pop(item, None)
            self.pending_modified.discard(item)
            return
        self.pending_active[item] = None
        self.pending_modified.add(item)
        if self.tracker.demote(item, new_content):
            self.dirty = True

    # --- closing the round --------------------------------------------------------------

    def content_of(self, item: str) -> Content | None:
        opaque = self.opaque.get(item)
        if opaque is not None:
            return opaque.version
        return self.files.read(item)

    def tokens_of(self, item: str) -> int:
        opaque = self.opaque.get(item)
        return opaque.tokens if opaque is not None else self.files.tokens(item)

    def placer(self) -> InitialPlacer:
        if self._placer is None:
            counts: Mapping[str, int] | None = None
            if self.settings.initial_from_references:
                try:
                    counts = self.references()
                except Exception as exc:  # noqa: BLE001 - an engine's index failure must not stop the round
                    log.warning("ripple: reference counts unavailable: %s", exc)
            normalized = {self.files.item_for(path): count
                          for path, count in (counts or {}).items()}
            self._placer = InitialPlacer(normalized, self.tracker.rules)
        return self._placer

    def close_round(self, items: Iterable[str], active: Iterable[str] = (),
                    opaque: Mapping[str, OpaqueItem] | None = None) -> RoundResult:
        """Close the round with the client's context ``items``.

        :param items: every item in the client's context (files and opaque ids).
        :param active: items the client itself put in play this round, besides
            Sari's reads and edits.
        :param opaque: non-file items of ``items`` with their versions and sizes.
        """
        self.opaque.update(opaque or {})
        in_play = list(dict.fromkeys([*self.pending_active, *active]))
        context = list(dict.fromkeys([*items, *in_play]))
        missing = [item for item in context if self.content_of(item) is None]
        active_set = set(in_play)
        for item in context:
            if item in self.tracker or item in active_set or item in missing:
                continue
            tier, n_value = self.placer().tier_for(item)
            content = self.content_of(item)
            assert content is not None
            self.tracker.place(item, tier, content, n_value=n_value)
        self.tracker.update_after_response(in_play, self.content_of, self.pending_modified)
        dropped = list(self.tracker.last_dropped)
        for item in dropped:
            self.opaque.pop(item, None)
        present = [item for item in context if item in self.tracker]
        layout, plan = round_plan(self.tracker, present, self.tokens_of,
                                  token_aware=self.settings.token_aware,
                                  min_cache_tokens=self.settings.min_cache_tokens)
        self.round += 1
        result = RoundResult(self.round, present, layout, plan, list(self.moved), dropped,
                             missing)
        self.moved.clear()
        self.pending_active.clear()
        self.pending_modified.clear()
        self.dirty = True
        self.save()
        return result

    # --- persistence --------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "tracker": self.tracker.to_dict(),
            "opaque": {key: {"version": value.version, "tokens": value.tokens}
                       for key, value in sorted(self.opaque.items())},
        }

    def save(self) -> None:
        """Write the state if it changed and persistence is on; a failure is logged, not raised."""
        if not self.dirty or self.path is None or not self.settings.persist:
            return
        try:
            save_state(self.path, self.to_dict())
            self.dirty = False
        except OSError as exc:
            log.warning("ripple: could not save tier state to %s: %s", self.path, exc)
