"""sari-aggregation: deduplication and structural compression of a session's reads."""

from sari_aggregation.plugin import AggregationPlugin
from sari_aggregation.reconstruct import ReconstructionError, Reconstructor
from sari_aggregation.settings import AggregationSettings

__all__ = ["AggregationPlugin", "AggregationSettings", "ReconstructionError", "Reconstructor"]
