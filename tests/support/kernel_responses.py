"""The response helpers, under the name older tests import them by; new tests import them
from sari_core.testing, where they live."""

from sari_core.testing import Response, as_received, run_next_call, stabilization

__all__ = ["Response", "as_received", "run_next_call", "stabilization"]
