"""``sari replay``: what a set of policies would have done to recorded agent sessions.

:func:`read_transcript` parses a Claude Code transcript, :func:`replay_all` runs its
reads and searches through kernels with the chosen policies, :func:`totals` adds the
sessions up, and :mod:`sari_core.replay.report` prints the result.
"""

from sari_core.replay.batch import PolicyTotals, replay_all, totals
from sari_core.replay.runner import Refusal, SessionReplay
from sari_core.replay.transcript import RecordedCall, Transcript, TranscriptError, read_transcript

__all__ = ["PolicyTotals", "RecordedCall", "Refusal", "SessionReplay", "Transcript",
           "TranscriptError", "read_transcript", "replay_all", "totals"]
