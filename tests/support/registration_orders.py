"""Scaffolding of the registration-order tests: one script, every order, the same responses.

Each stabilization plugin's tests run a scripted session with the plugins registered
in every rotation of their sorted order and each rotation reversed, and compare the
responses. The plugins are whichever of the four stabilization policies are installed
(each plugin's test folder skips unless its own one is), plus the test's own policies.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from sari_core.testing import Response

STABILIZATION_POLICIES: dict[str, tuple[str, str]] = {
    "aggregation": ("sari_aggregation", "AggregationPlugin"),
    "budget": ("sari_budget", "BudgetPlugin"),
    "refgate": ("sari_refgate", "RefgatePlugin"),
    "relevance": ("sari_relevance", "RelevancePlugin"),
}


def installed_policies() -> dict[str, Any]:
    """Name -> plugin class of every stabilization policy that imports, sorted by name."""
    found: dict[str, Any] = {}
    for name, (module, attribute) in sorted(STABILIZATION_POLICIES.items()):
        try:
            found[name] = getattr(importlib.import_module(module), attribute)
        except ImportError:
            continue
    return found


def orders(names: list[str]) -> list[list[str]]:
    """Every rotation of ``names``, then each of them reversed."""
    rotations = [names[i:] + names[:i] for i in range(len(names))]
    return rotations + [list(reversed(order)) for order in rotations]


def responses_by_order(factories: Mapping[str, Callable[[], object]],
                       run: Callable[[list[object]], list[Response]]
                       ) -> dict[tuple[str, ...], list[Response]]:
    """``run(plugins)`` once per order of the sorted factory names, with fresh plugins each time.

    The first entry is the sorted order itself.
    """
    return {tuple(order): run([factories[name]() for name in order])
            for order in orders(sorted(factories))}
