"""The text a model is shown for a response: code as numbered lines, matches by file, and
refusals as plain sentences ending in the call to make next.

A response object carries everything a program needs (ids, counters, annotations); a
model needs the code, where it is, and in plain words what happened. So:

* a read is one header line (``path lines a-b of N``, then what a policy did, then the
  call that continues it) and the lines as ``N<TAB>line``, unescaped, as built-in read
  tools print them; a diff is the header and the diff; an outline is the header and its
  entries as they are (``kind name first-last``, indented by nesting: their own line
  ranges are the numbers that matter, so they are not numbered again);
* a search is one header line and the matches grouped by file, one ``line: snippet``
  per match under the file's path (the path and line are all a later read needs; a match
  that is a definition states its range, ``first-last: snippet``);
* a refusal is its message, one or two sentences, ending in the exact next call;
* edits and writes are one sentence per changed file; a plugin tool's payload is compact
  JSON without the envelope, or the text it wrote for a model (``model_text``).

Nothing here knows a plugin: it reads the contract's fields, and the one structural
annotation any plugin may publish, ``segments`` (runs of a read's lines; a run with an
``item`` was delivered by an earlier response and stands as one line in the text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

NEXT = "Next:"
# A line of the definition a search shows with a match (``12 | text``), and the range it
# states for a long one (``  (function name: lines 3-90)``).
_SHOWN_ROW = re.compile(r"^(\d+) \| ?(.*)$")
_STATED_RANGE = re.compile(r"^\s*\(\w+ [\w.$]+: lines (\d+)-(\d+)\)$")
# Arguments a model never has to write: the session is the connection's own, and a read of
# a target the session's searches returned is served without its refs (programs still find
# every argument in the structured response's next_calls).
_UNSAID_ARGUMENTS = frozenset({"session_id", "candidate_id", "bundle_id"})
_ENVELOPE = frozenset({"ok", "tool", "target", "meta", "error"})
# A plugin tool whose payload reads better as text than as JSON writes that text here.
MODEL_TEXT = "model_text"


def call_text(call: Mapping[str, Any]) -> str:
    """A next call as the model would write it: ``read(mode="file", target="a.py")``."""
    arguments = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}"
                          for key, value in call.get("arguments", {}).items()
                          if key not in _UNSAID_ARGUMENTS)
    return f"{call.get('tool', '?')}({arguments})"


def render(response: Mapping[str, Any]) -> str:
    """The model's text for one response object (any tool, served or refused)."""
    if not response.get("ok"):
        return _refusal(response)
    if "matches" in response:
        return _search(response)
    if "mode" in response:
        return _read(response)
    if "changes" in response:
        return _changes(response)
    return _plugin_tool(response)


# --- pieces shared by every kind ------------------------------------------------------

def _stabilization(response: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = response.get("meta") or {}
    block = meta.get("stabilization") or {}
    return block if isinstance(block, Mapping) else {}


def _next_calls(response: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = _stabilization(response).get("next_calls") or []
    return [call for call in calls if isinstance(call, Mapping)]


def _sentence(text: str) -> str:
    text = " ".join(str(text).split())
    return text if not text or text.endswith((".", "!", "?", ":")) else text + "."


def _notes(response: Mapping[str, Any]) -> list[str]:
    """What policies said about a served call, each once, as sentences."""
    notes: list[str] = []
    for warning in _stabilization(response).get("warnings") or []:
        sentence = _sentence(warning)
        if sentence and sentence not in notes:
            notes.append(sentence)
    return notes


def _follow_up(response: Mapping[str, Any], target: str | None) -> str | None:
    """The proposed call that continues this response (same target first)."""
    calls = _next_calls(response)
    same = [c for c in calls if (c.get("arguments") or {}).get("target") == target]
    chosen = (same or calls or [None])[0]
    return None if chosen is None else call_text(chosen)


def _header(parts: list[str], notes: list[str], follow: str | None) -> str:
    line = " ".join([" ".join(parts) + ("." if notes or follow else ""), *notes])
    if follow:
        line += f" {NEXT} {follow}"
    return line.strip()


# --- refusals ---------------------------------------------------------------------------

def _refusal(response: Mapping[str, Any]) -> str:
    error = response.get("error") or {}
    message = _sentence(error.get("message") or "The call was refused.")
    calls = _next_calls(response)
    if calls:
        return f"{message} {NEXT} {call_text(calls[0])}"
    hint = _sentence(error.get("hint") or "")
    return f"{message} {hint}".strip()


# --- reads ------------------------------------------------------------------------------

def _segments(response: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    annotations = _stabilization(response).get("annotations") or {}
    for data in annotations.values():
        if isinstance(data, Mapping) and isinstance(data.get("segments"), list):
            return list(data["segments"])
    return None


def numbered_lines(text: str, first_line: int,
                   segments: list[Mapping[str, Any]] | None = None) -> list[str]:
    """``N<TAB>line`` for each line of ``text``; a referenced run shows as one ``a-b`` line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not segments:
        return [f"{number}\t{line}" for number, line in enumerate(lines, first_line)]
    out: list[str] = []
    cursor = 0
    for segment in segments:
        start, end = segment["lines"]
        if cursor >= len(lines):
            break
        if segment.get("item") is not None:
            span = f"{start}" if start == end else f"{start}-{end}"
            where = "search" if segment.get("search") else "read"
            out.append(f"{span}\t(unchanged; shown in an earlier {where})")
            cursor += 1
            continue
        for number in range(start, end + 1):
            if cursor >= len(lines):
                break
            out.append(f"{number}\t{lines[cursor]}")
            cursor += 1
    return out


def _read(response: Mapping[str, Any]) -> str:
    meta = response.get("meta") or {}
    path = meta.get("path") or response.get("target") or "?"
    start, end, total = meta.get("start_line"), meta.get("end_line"), meta.get("total_lines")
    parts = [str(path)]
    if response.get("mode") == "symbol":
        parts[0] += f" ({response.get('target')})"
    if isinstance(start, int) and isinstance(end, int):
        span = f"lines {start}-{end}" if end >= start else "no lines"
        parts.append(span + (f" of {total}" if isinstance(total, int) else ""))
    notes = _notes(response)
    follow = _follow_up(response, response.get("target")) \
        if meta.get("truncated") or notes else None
    if response.get("mode") == "outline" or meta.get("mode") == "outline":
        return _outline(response, notes, follow)
    diff = response.get("diff")
    if diff is not None:
        against = (response.get("location") or {}).get("against") or "the last commit"
        parts.append(f"diff against {against}")
        return "\n".join([_header(parts, notes, follow), *([diff.rstrip("\n")] if diff else [])])
    text = response.get("text")
    body = numbered_lines(text, start if isinstance(start, int) else 1, _segments(response)) \
        if isinstance(text, str) and text else []
    return "\n".join([_header(parts, notes, follow), *body])


def _outline(response: Mapping[str, Any], notes: list[str], follow: str | None) -> str:
    meta = response.get("meta") or {}
    path = meta.get("path") or response.get("target") or "?"
    start, end, total = meta.get("start_line"), meta.get("end_line"), meta.get("total_lines")
    text = response.get("text") if isinstance(response.get("text"), str) else ""
    if not text:
        parts = [f"{path} outline: no definitions"]
    elif isinstance(total, int) and isinstance(start, int) and isinstance(end, int) \
            and (start > 1 or end < total):
        parts = [f"{path} outline, entries {start}-{end} of {total}"]
    else:
        parts = [f"{path} outline"]
    if meta.get("file_lines"):
        parts[0] += f" (file of {meta['file_lines']} lines)"
    if follow is None and isinstance(meta.get("next_offset"), int):
        follow = call_text({"tool": "read", "arguments": {
            "mode": "outline", "target": response.get("target") or path,
            "offset": meta["next_offset"]}})
    return "\n".join([_header(parts, notes, follow), *text.rstrip("\n").split("\n")]) \
        if text else _header(parts, notes, follow)


# --- searches ---------------------------------------------------------------------------

def _search(response: Mapping[str, Any]) -> str:
    matches = [m for m in response.get("matches") or [] if isinstance(m, Mapping)]
    query = json.dumps(response.get("query", ""), ensure_ascii=False)
    kind = response.get("kind") or "text"
    label = "" if kind == "text" else f" ({kind})"
    if not matches:
        parts = [f"No matches for {query}{label}"]
    else:
        shown = f"{len(matches)} matches" if len(matches) != 1 else "1 match"
        parts = [f"{shown} for {query}{label}"]
        if (response.get("meta") or {}).get("truncated"):
            parts[0] += " (more exist: narrow the query or raise limit)"
    notes = _notes(response)
    follow = _follow_up(response, None) if notes or not matches else None
    lines = [_header(parts, notes, follow)]
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for match in matches:
        by_file.setdefault(str(match.get("path")), []).append(match)
    for path, group in by_file.items():
        lines.append(path)
        for match in group:
            lines.extend(_match_lines(match))
    return "\n".join(lines)


def _match_lines(match: Mapping[str, Any]) -> list[str]:
    """One match under its file: ``line: snippet``, and the definition shown with it. A
    shown definition that is the match itself is written once: its first line is the
    match's (``first-last: def name(...)``, its range stated there), its other lines below."""
    snippet = " ".join(str(match.get("snippet") or "").split("\n")[0].split())
    line = match.get("line")
    if line is None:
        return [f"  {snippet}".rstrip()]
    context = str(match.get("context") or "")
    rows = context.split("\n") if context else []
    scope = f" in {match['scope']}" if match.get("scope") else ""
    head = _SHOWN_ROW.match(rows[0]) if rows else None
    if head is not None and int(head.group(1)) <= line \
            and any(row.startswith(f"{line} |") for row in rows):
        rest = rows[1:]
        stated = _STATED_RANGE.match(rest[-1]) if rest else None
        numbered = [int(found.group(1)) for found in map(_SHOWN_ROW.match, rows) if found]
        last = int(stated.group(2)) if stated else max(numbered)
        top = int(head.group(1))
        where = f"{top}-{last}" if last > top else f"{top}"
        text = " ".join(head.group(2).split())
        return [f"  {where}{scope}: {text}".rstrip(),
                *(f"    {row}" for row in (rest[:-1] if stated else rest))]
    where = f"{line}"
    end = match.get("end_line")
    if match.get("symbol") and not context and isinstance(end, int) and end > line:
        where = f"{line}-{end}"  # a definition's range: a later read can take it whole
    return [f"  {where}{scope}: {snippet}".rstrip(), *(f"    {row}" for row in rows)]


# --- edits, writes, plugin tools --------------------------------------------------------

def _changes(response: Mapping[str, Any]) -> str:
    tool = response.get("tool") or "edit"
    sentences = []
    for change in response.get("changes") or []:
        sentences.append(f"{change.get('path')} {change.get('status')} "
                         f"({change.get('lines_before')} -> {change.get('lines_after')} lines).")
    text = " ".join([f"{tool}:", *(sentences or ["nothing changed."]), *_notes(response)])
    follow = _follow_up(response, None) if _notes(response) else None
    return f"{text} {NEXT} {follow}" if follow else text


def _plugin_tool(response: Mapping[str, Any]) -> str:
    text = response.get(MODEL_TEXT)
    if not isinstance(text, str):
        payload = {key: value for key, value in response.items()
                   if key not in _ENVELOPE and key != MODEL_TEXT}
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
    notes = _notes(response)
    calls = _next_calls(response)
    tail = f" {NEXT} {call_text(calls[0])}" if calls else ""
    return " ".join([text, *notes]) + tail
