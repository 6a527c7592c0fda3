"""How the answers of hooks that every plugin answers become one answer.

Pure functions of the plugins' results (:class:`~sari_core.kernel.dispatch.PluginResult`),
so the manager's typed methods stay one call each and each merge rule can be read, and
tested, on its own. Every rule is independent of load order: plugins are taken by name.
"""

from __future__ import annotations

import logging
from typing import Any

from sari_core.kernel.dispatch import PluginResult, by_plugin
from sari_core.models import ClientHookResult

log = logging.getLogger("sari_core.kernel.manager")


def merge_metrics(results: list[PluginResult]) -> dict[str, Any]:
    """Every plugin's metrics, merged and sorted by key.

    Plugins are merged by name; a key a second plugin also returns is a clash: the
    first plugin's value stays, and the clash is logged as an error naming both.

    :param results: the plugins' answers to ``sari_collect_metrics``.
    :return: one mapping, sorted by key.
    """
    merged: dict[str, Any] = {}
    owners: dict[str, str] = {}
    for result in sorted(results, key=by_plugin) if len(results) > 1 else results:
        values = result.value
        if result.failure is not None:
            log.error("plugin %s failed in sari_collect_metrics: %s", result.plugin,
                      result.failure)
            continue
        if not values:
            continue
        clashes = values.keys() & merged.keys()
        for key in sorted(clashes):
            log.error("metric %r of plugin %r clashes with plugin %r; kept %r's",
                      key, result.plugin, owners[key], owners[key])
        if clashes:
            values = {k: v for k, v in values.items() if k not in clashes}
        if len(results) > 1:
            owners.update(dict.fromkeys(values, result.plugin))
        merged.update(values)
    return dict(sorted(merged.items()))


def merge_compaction(results: list[PluginResult]) -> str:
    """The compaction summary: the first base summary by plugin name, plus every line.

    Lines go before the first line of the base that starts with the base plugin's
    ``insert_before`` prefix (so its closing block stays last), else at the end.

    :param results: the plugins' answers to ``on_compaction``; failures are left out.
    :return: the summary text ("" when nobody contributed).
    """
    contributions = sorted((r for r in results if r.failure is None), key=lambda r: r.plugin)
    base = next((r.value for r in contributions if r.value.summary), None)
    lines = [line for r in contributions for line in r.value.lines]
    if base is None:
        return "\n".join(lines)
    parts = base.summary.split("\n")
    if not lines:
        return base.summary
    prefix = base.insert_before
    index = next((i for i, line in enumerate(parts) if prefix and line.startswith(prefix)),
                 len(parts))
    return "\n".join(parts[:index] + lines + parts[index:])


def fold_client_hook(results: list[PluginResult]) -> tuple[ClientHookResult, list[str]]:
    """Fold every plugin's answer to a client hook; failures are returned as messages.

    Any block wins; reasons and additional contexts are joined in plugin-name order.

    :param results: the plugins' answers to ``on_client_hook``.
    :return: the folded answer and one message per plugin that failed.
    """
    failures = [f"plugin {r.plugin} failed: {r.failure}" for r in results if r.failure]
    answers = sorted((r for r in results
                      if r.failure is None and isinstance(r.value, ClientHookResult)),
                     key=lambda r: r.plugin)
    reasons = [r.value.reason for r in answers if r.value.block and r.value.reason]
    contexts = [r.value.additional_context for r in answers if r.value.additional_context]
    folded = ClientHookResult(block=any(r.value.block for r in answers),
                              reason="\n\n".join(reasons),
                              additional_context="\n\n".join(contexts))
    return folded, failures
