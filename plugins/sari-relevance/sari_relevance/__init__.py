"""sari-relevance: the Relevance Guard.

Remembers each session's latest search query and top-K paths; a read whose target
lies outside them, or under an excluded path, gets ``LOW_RELEVANCE_OUTSIDE_TOPK``
with ranked alternatives — a warning by default, a refusal when ``hard`` is set.
"""

from sari_relevance.plugin import RelevancePlugin
from sari_relevance.settings import RelevanceSettings

__all__ = ["RelevancePlugin", "RelevanceSettings"]
