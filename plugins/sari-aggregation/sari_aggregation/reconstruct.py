"""Client side: rebuild the full text of every read from an aggregated response stream.

Feed each read and search response of one session, in order, to :meth:`Reconstructor.feed`
(a search's shown definitions are lines later reads may reference);
it returns the read's text as the engine served it, resolving each reference
through the items received before. Used by the tests and the token benchmark, and
by clients that want full texts back.
"""

from __future__ import annotations

from typing import Any

from sari_aggregation.searched import in_response, shown_rows
from sari_core import split_lines

ANNOTATION_KEY = "aggregation"


class ReconstructionError(Exception):
    """A reference points at lines the stream never delivered."""


class Reconstructor:
    """Rebuilds reads of one session from their (possibly compressed) responses."""

    def __init__(self) -> None:
        self._items: dict[int, dict[int, str]] = {}

    def feed(self, response: dict[str, Any]) -> str | None:
        """The full text of this read response, or None for a refusal.

        :raises ReconstructionError: when a reference cannot be resolved.
        """
        if response.get("ok") and "matches" in response:
            self._searched(response)
            return None
        if not response.get("ok") or "text" not in response:
            return None
        text: str = response["text"]
        stabilization = response["meta"]["stabilization"]
        note = stabilization.get("annotations", {}).get(ANNOTATION_KEY)
        if not note or "context_item" not in note:
            return text  # not a read aggregation handled: nothing to resolve, nothing to keep
        delivered = split_lines(text)
        segments: list[dict[str, Any]] | None = note.get("segments")
        if segments is None:  # delivered verbatim: the lines from meta.start_line on
            first = response["meta"]["start_line"]
            segments = [{"lines": [first, first + len(delivered) - 1]}] if delivered else []
        trimmed = bool(response["meta"].get("preview_degraded"))
        own: dict[int, str] = {}
        out: list[str] = []
        cursor = 0
        for segment in segments:
            start, end = segment["lines"]
            item: int | None = segment.get("item")
            if cursor >= len(delivered):
                break  # a later policy trimmed the text: the rest was not delivered
            if item is not None:
                cursor += 1
                source = self._items.get(item, {})
                for number in range(start, end + 1):
                    if number not in source:
                        raise ReconstructionError(
                            f"line {number} of {response['meta'].get('path')} is not in "
                            f"context item {item}")
                    out.append(source[number])
                continue
            for number in range(start, end + 1):
                if cursor >= len(delivered):
                    break
                line = delivered[cursor]
                cursor += 1
                out.append(line)
                partial = cursor == len(delivered) and trimmed and not line.endswith("\n")
                if not partial:
                    own[number] = line
        self._items[note["context_item"]] = own
        return "".join(out)

    def _searched(self, response: dict[str, Any]) -> None:
        """Keep the lines a search answer showed, as the items its annotation names."""
        stabilization = (response.get("meta") or {}).get("stabilization") or {}
        note = (stabilization.get("annotations") or {}).get(ANNOTATION_KEY)
        if not note:
            return
        rows = shown_rows(in_response(response["matches"]))
        for entry in note.get("search_items", []):
            shown = rows.get(entry["path"], {})
            self._items[entry["item"]] = {number: shown[number] + "\n"
                                          for number in entry["lines"] if number in shown}
