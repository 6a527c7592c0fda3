"""sari-refgate: the Search -> Ref -> Read pipeline.

``search`` issues a stable ``candidate_id`` per match and a ``bundle_id`` per
response, remembered per session; ``read`` is refused without a valid ref of
the session unless it is a precision read of at most ``max_range_lines`` lines.
"""

from sari_refgate.plugin import RefgatePlugin
from sari_refgate.settings import RefgateSettings

__all__ = ["RefgatePlugin", "RefgateSettings"]
