"""The tier policies by name, and the tracker a session's settings ask for.

``adaptive`` (the default), ``gated``, ``ripple`` and ``fixed`` share one interface
(:class:`~sari_ripple.tracking.TierTracker`); ``bench/cache_sim.py`` builds its
trackers here too, so the figures in docs/benchmarks.md are the plugin's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sari_ripple.adaptive import AdaptiveTracker
from sari_ripple.config import PolicyName, RippleSettings
from sari_ripple.fixed import FixedThresholdTracker
from sari_ripple.gated import GatedRippleTracker
from sari_ripple.tracker import RippleTracker
from sari_ripple.tracking import EntryCallback, TierTracker

POLICIES: dict[str, type[TierTracker]] = {
    "adaptive": AdaptiveTracker,
    "gated": GatedRippleTracker,
    "ripple": RippleTracker,
    "fixed": FixedThresholdTracker,
}


def new_tracker(settings: RippleSettings | None = None, on_entry: EntryCallback | None = None,
                *, policy: PolicyName | None = None) -> TierTracker:
    """An empty tracker of the settings' policy (or ``policy``), with the settings' rules.

    :param settings: defaults to ``RippleSettings()``.
    :param policy: overrides ``settings.policy``.
    """
    settings = settings or RippleSettings()  # pyright: ignore[reportCallIssue] - pydantic defaults
    chosen = policy or settings.policy
    if chosen == "adaptive":
        return AdaptiveTracker(settings.fixed_rules(), on_entry)
    if chosen == "fixed":
        return FixedThresholdTracker(settings.fixed_rules(), on_entry)
    if chosen == "ripple":
        return RippleTracker(settings.rules(), on_entry)
    if chosen == "gated":
        gates = {tier: rule.entry_n for tier, rule in settings.fixed_rules().items()}
        return GatedRippleTracker(settings.rules(), on_entry, gates)
    raise ValueError(f"unknown tier policy {chosen!r} (known: {', '.join(POLICIES)})")


def restore_tracker(data: Mapping[str, Any], settings: RippleSettings | None = None,
                    on_entry: EntryCallback | None = None) -> TierTracker:
    """A tracker of the settings' policy holding a saved state.

    :raises ValueError: if the state is invalid or was saved under another policy.
    """
    tracker = new_tracker(settings, on_entry)
    tracker.load_dict(data)
    return tracker
