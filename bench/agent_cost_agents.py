"""The scripted agents of ``bench/agent_cost.py``: one on native tools, one on Sari.

Both make a session's calls in order and fill the gaps the same way (see the bench's
docstring); each records, per call, the tokens of the text the model was shown and the
tokens of its payload, and which needed lines arrived.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_cost_corpora import Corpus, ReadFile, ReadSymbol, Search, Session

from sari_core.costmodel import CHARS_PER_TOKEN, tokens
from sari_core.engine.ignore import DEFAULT_EXCLUDED_DIRS

GREP_HEAD = 250
# The CLI's Read with no limit shows a page: the lines from its offset while its estimate of
# their tokens stays within 85% of its 25,000-token cap, and says where the next page starts.
# Its estimate, fitted to what the pinned CLI printed for four files: (characters + lines) / 4.
READ_TOKEN_CAP = 25_000
READ_PAGE_TOKENS = READ_TOKEN_CAP * 85 // 100
GAP_WINDOW = 200
# Claude Code shows an MCP result of more characters only as a preview and a file to read.
MCP_RESULT_CHARS = 50_000
REFGATE_CODES = {"SEARCH_FIRST_REQUIRED", "SEARCH_REF_REQUIRED", "CANDIDATE_REF_REQUIRED"}


@dataclass
class Tally:
    result_tokens: list[int] = field(default_factory=list)
    payload_tokens: int = 0
    refused: int = 0
    needed: int = 0
    needed_delivered: int = 0
    oversized: int = 0  # results the client would not show its model whole


def split_lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _line_payload(number: int, line: str, as_json: bool = False) -> int:
    """A delivered line's payload: its text as shown, with its number when the text shows it."""
    if as_json:  # escaped inside a JSON string, no line number
        return len(json.dumps(line, ensure_ascii=False)) - 2
    return len(line) + len(str(number)) + 1


RUN_GAP = 10  # an agent reads two needed runs this close together in one call


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Runs of line numbers, two runs at most ``RUN_GAP`` lines apart taken as one."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and number - runs[-1][1] <= RUN_GAP:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


class _Agent:
    """What both agents share: needs, delivered lines, the script's ranges, gap filling."""

    def __init__(self, corpus: Corpus, session: Session) -> None:
        self.corpus = corpus
        self.session = session
        self.tally = Tally()
        self.delivered: dict[str, set[int]] = {}
        self.needs: dict[str, set[int]] = {}
        for module, name in session.needs:
            start, end = corpus.definition_lines(module, name)
            self.needs.setdefault(corpus.path_of(module), set()).update(range(start, end + 1))

    def record(self, shown: str, payload_chars: int) -> None:
        self.tally.result_tokens.append(tokens(shown))
        self.tally.payload_tokens += -(-payload_chars // 4)

    def wanted(self, step: Any, path: str) -> tuple[range, Any]:
        return self.corpus.wanted(step, path), None

    def missing(self, path: str, wanted: range) -> list[int]:
        needs = self.needs.get(path, set())
        have = self.delivered.get(path, set())
        return sorted(n for n in wanted if n in needs and n not in have)

    def finish(self) -> Tally:
        needed = {(p, n) for p, lines in self.needs.items() for n in lines}
        self.tally.needed = len(needed)
        self.tally.needed_delivered = sum(1 for p, n in needed if n in self.delivered.get(p, ()))
        return self.tally


class NativeAgent(_Agent):
    """The built-in Grep (ripgrep content mode, -n, 250-line head) and Read (numbered lines)."""

    def run(self) -> Tally:
        for step in self.session.steps:
            if isinstance(step, Search):
                self.grep(step.query)
                continue
            path = self.corpus.path_of(step.module)
            wanted, _ = self.wanted(step, path)
            if isinstance(step, ReadFile):
                self.read(path, step.offset or 0, step.limit)
            else:
                self.read(path, wanted.start - 1, len(wanted))
            for start, end in _runs(self.missing(path, wanted)):
                self.read(path, start - 1, end - start + 1)
        return self.finish()

    def entries(self) -> list[str]:
        """The root's entries a recursive search starts from (hidden ones skipped)."""
        return sorted(name for name in os.listdir(self.corpus.root)
                      if not name.startswith(".") and name not in DEFAULT_EXCLUDED_DIRS)

    def grep(self, query: str) -> None:
        excluded = [f"--exclude-dir={name}" for name in sorted(DEFAULT_EXCLUDED_DIRS)]
        process = subprocess.Popen(
            # The root's entries by name: "--exclude-dir=.*" would also exclude a "." argument.
            ["grep", "-rnFI", "--exclude-dir=.*", *excluded, "-e", query, "--", *self.entries()],
            cwd=self.corpus.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, errors="replace")
        assert process.stdout is not None
        lines: list[str] = []
        for line in process.stdout:
            lines.append(line)
            if len(lines) > GREP_HEAD:  # one more than the head: the output was cut
                break
        process.kill()
        process.wait()
        cut = len(lines) > GREP_HEAD
        lines = lines[:GREP_HEAD]
        paths: set[str] = set()
        payload = 0
        for line in lines:
            path, _, rest = line.partition(":")
            number, _, snippet = rest.partition(":")
            payload += len(snippet) + len(number) + 1 + (0 if path in paths else len(path) + 1)
            paths.add(path)
        self.record(native_grep_text(lines, cut), payload)

    def read(self, path: str, offset: int, limit: int | None) -> None:
        lines = split_lines(self.corpus.text_of(path))
        shown = lines[offset:offset + limit] if limit else read_page(lines[offset:])
        text = native_read_text(shown, offset + 1)
        if not limit and offset + len(shown) < len(lines):
            text += native_page_note(path, offset + 1, len(shown), lines)
        self.record(text, sum(_line_payload(n, line) for n, line in enumerate(shown, offset + 1)))
        self.delivered.setdefault(path, set()).update(range(offset + 1, offset + 1 + len(shown)))


def native_read_text(lines: list[str], first: int) -> str:
    """What the built-in Read shows for ``lines`` starting at line ``first``: each line as
    its number, a tab and the line, as the pinned Claude Code CLI prints them."""
    return "".join(f"{number}\t{line}" for number, line in enumerate(lines, first))


def native_grep_text(lines: list[str], cut: bool) -> str:
    """What the built-in Grep shows for its ``path:line:text`` lines, with the CLI's note
    when the head cut them."""
    text = "".join(lines)
    return text + f"\n[Showing results with pagination = limit: {GREP_HEAD}]" if cut else text


def _estimated_chars(line: str) -> int:
    """What one line adds to the CLI's token estimate, in characters (see
    ``READ_PAGE_TOKENS``): its text and one more."""
    return len(line) + 1


def read_page(lines: list[str]) -> list[str]:
    """The lines a Read with no limit shows: as many as fit its page."""
    used = 0
    for count, line in enumerate(lines):
        used += _estimated_chars(line)
        if used > READ_PAGE_TOKENS * CHARS_PER_TOKEN:
            return lines[:count]
    return lines


def cli_token_estimate(lines: list[str]) -> int:
    """The CLI's estimate of a text's tokens (see ``READ_PAGE_TOKENS``)."""
    return sum(map(_estimated_chars, lines)) // CHARS_PER_TOKEN


def native_page_note(path: str, first: int, count: int, lines: list[str]) -> str:
    """The note the CLI appends to a cut page, as it words it."""
    last = first + count - 1
    total = len(lines) + (1 if lines and lines[-1].endswith("\n") else 0)  # as it counts
    return (f"\n\n<system-reminder>\n[Truncated: PARTIAL view — {path}: showing lines "
            f"{first}-{last} of {total} total ({cli_token_estimate(lines)} tokens, cap "
            f"{READ_TOKEN_CAP}). Call Read with offset={last + 1} limit={count} for the next "
            "page, or Grep to find a specific section. To read it anyway, up to what still "
            "fits in your context, call Read again with allow_large: true — only if you "
            "genuinely need all of it or the user asked for the whole file. Do NOT answer "
            "from this page alone if the answer may be further in the file.]\n"
            "</system-reminder>")


def verbatim_lines(response: dict[str, Any]) -> list[tuple[int, str]]:
    """The file lines a served read delivered as text, with their numbers.

    Lines a policy replaced by a reference to an earlier read (a segment with an
    ``item``) stand as one text line and deliver nothing new.
    """
    meta = response["meta"]
    if response.get("diff") is not None or response.get("text") is None \
            or meta.get("mode") == "outline":  # an outline names lines, it delivers none
        return []
    lines = split_lines(response["text"])
    segments = None
    for data in (meta["stabilization"].get("annotations") or {}).values():
        segments = data.get("segments") or segments
    if not segments:
        numbered = list(enumerate(lines, meta["start_line"]))
        if numbered and meta.get("truncated") and not numbered[-1][1].endswith("\n"):
            numbered.pop()  # a line cut by a character cap is not the file's line
        return numbered
    out: list[tuple[int, str]] = []
    cursor = 0
    for segment in segments:
        start, end = segment["lines"]
        if segment.get("item") is not None:
            cursor += 1
            continue
        for number in range(start, end + 1):
            if cursor >= len(lines):
                return out
            out.append((number, lines[cursor]))
            cursor += 1
    return out


class SariAgent(_Agent):
    """The same script through a Sari kernel, shown what the MCP server would show."""

    def __init__(self, kernel: Any, corpus: Corpus, session: Session) -> None:
        super().__init__(corpus, session)
        self.kernel = kernel
        self.sid = f"bench-{corpus.name}-{session.name}"
        self.candidates: dict[str, str] = {}
        self.budget_spent = False

    def record(self, shown: str, payload_chars: int) -> None:
        if len(shown) > MCP_RESULT_CHARS:
            self.tally.oversized += 1
        super().record(shown, payload_chars)

    def shown(self, response: dict[str, Any]) -> str:
        from sari_core.server.results import to_call_result

        result = to_call_result(response)
        return "".join(block.text for block in result.content if block.type == "text")

    def search(self, arguments: dict[str, Any]) -> dict[str, Any]:
        response = self.kernel.execute_search({**arguments, "session_id": self.sid})
        text = self.shown(response)
        as_json = text.startswith("{")
        payload = 0
        if response["ok"]:
            self.candidates = {}
            paths: set[str] = set()
            for match in response["matches"]:
                snippet = match.get("snippet") or ""
                payload += _line_payload(match.get("line") or 0, snippet, as_json)
                if match["path"] not in paths:
                    payload += len(match["path"]) + 1
                    paths.add(match["path"])
                cid = match.get("candidate_id")
                if cid and cid in text:
                    self.candidates.setdefault(match["path"], cid)
        self.record(text, payload)
        return response

    def read(self, arguments: dict[str, Any]) -> dict[str, Any]:
        response = self.kernel.execute_read({**arguments, "session_id": self.sid})
        text = self.shown(response)
        if not response["ok"]:
            self.tally.refused += 1
            self.record(text, 0)
            if response["error"]["code"] == "BUDGET_EXCEEDED":
                self.budget_spent = True
            return response
        lines = verbatim_lines(response)
        as_json = text.startswith("{")
        payload = sum(_line_payload(n, line, as_json) for n, line in lines)
        if response["meta"].get("mode") == "outline":  # its entries, as a search's matches
            payload = len(response["text"] or "")
        self.record(text, payload)
        path = response["meta"]["path"]
        self.delivered.setdefault(path, set()).update(n for n, _ in lines)
        return response

    def with_ref(self, path: str, arguments: dict[str, Any]) -> dict[str, Any]:
        ref = self.candidates.get(path)
        return {**arguments, "candidate_id": ref} if ref else arguments

    def run(self) -> Tally:
        for step in self.session.steps:
            if isinstance(step, Search):
                self.search({"query": step.query, "kind": step.kind})
                continue
            path = self.corpus.path_of(step.module)
            wanted, _ = self.wanted(step, path)
            if self.budget_spent:
                continue
            response = self.read(self.with_ref(path, read_arguments(step, path, wanted)))
            if not response["ok"]:
                response = self.recover(path, response)
            self.fill_gaps(path, wanted, response)
        return self.finish()

    def recover(self, path: str, refusal: dict[str, Any]) -> dict[str, Any]:
        """Make the call the refusal names, as an agent does."""
        calls = refusal["meta"]["stabilization"]["next_calls"]
        code = refusal["error"]["code"]
        search = proposed_search(calls)
        if ran_budget_search(self, code, search):
            return refusal
        read = proposed_read(calls, path, refusal.get("target"))
        if read is not None:
            return self.read(read)
        if search is not None and code in REFGATE_CODES:
            self.search(search)
            return self.read(self.with_ref(path, {"mode": refusal.get("mode", "file"),
                                                  "target": refusal.get("target", path)}))
        return refusal

    def follow(self, path: str, wanted: range, response: dict[str, Any]) -> None:
        follow_pages(self, path, wanted, response, _page_holds)

    def fill_gaps(self, path: str, wanted: range, response: dict[str, Any]) -> None:
        """Get the needed lines of the asked range that did not arrive: each missing run in
        one read (following its continuation), else in windows of at most 200 lines."""
        self.follow(path, wanted, response)
        for _ in range(20):
            runs = _runs(self.missing(path, wanted))
            if not runs or self.budget_spent:
                return
            start, end = runs[0]
            before = len(self.missing(path, wanted))
            response = self.read_run(path, start, end)
            self.follow(path, wanted, response)
            if len(self.missing(path, wanted)) == before:
                break  # nothing arrived in one read: fall back to small windows
        for start, end in _runs(self.missing(path, wanted)):
            for first in range(start, end + 1, GAP_WINDOW):
                if self.budget_spent:
                    return
                self.read_run(path, first, min(end, first + GAP_WINDOW - 1))

    def read_run(self, path: str, start: int, end: int) -> dict[str, Any]:
        arguments = {"mode": "snippet", "target": path, "start_line": start, "end_line": end}
        response = self.read(self.with_ref(path, arguments))
        return response if response["ok"] else self.recover(path, response)


def read_arguments(step: Any, path: str, wanted: range) -> dict[str, Any]:
    """The read call a script step makes for the lines it wants."""
    if isinstance(step, ReadFile):
        arguments: dict[str, Any] = {"mode": "file", "target": path}
        if step.offset is not None:
            arguments["offset"] = step.offset + 1  # a step skips lines; offset is the first shown
        if step.limit is not None:
            arguments["limit"] = step.limit
        return arguments
    if isinstance(step, ReadSymbol):
        return {"mode": "symbol", "target": step.symbol.rsplit(".", 1)[-1], "path": path}
    return {"mode": "snippet", "target": path, "start_line": wanted.start,
            "end_line": wanted.stop - 1}



def ran_budget_search(agent: Any, code: str, search: dict[str, Any] | None) -> bool:
    """A budget refusal ends the reading: run the search it proposes, as an agent does.

    :return: True when ``code`` was the budget's refusal (the caller returns it as it is).
    """
    if code != "BUDGET_EXCEEDED":
        return False
    if search is not None:
        agent.search(search)
    return True

def proposed_search(calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The arguments of the first search a refusal's ``next_calls`` propose."""
    return next((c["arguments"] for c in calls if c["tool"] == "search"), None)


def proposed_read(calls: list[dict[str, Any]], *targets: object) -> dict[str, Any] | None:
    """The arguments of the first proposed read of one of ``targets``."""
    return next((c["arguments"] for c in calls if c["tool"] == "read"
                 and c["arguments"].get("target") in targets), None)


class _Pager(Protocol):
    budget_spent: bool

    def missing(self, path: str, wanted: range) -> list[int]: ...

    def read(self, arguments: dict[str, Any]) -> dict[str, Any]: ...


def follow_pages(agent: _Pager, path: str, wanted: range, response: dict[str, Any],
                 page_holds: Callable[[dict[str, Any], int], bool]) -> None:
    """Follow a cut read's continuation while its next page holds a missing line."""
    for _ in range(20):  # paging guard
        missing = agent.missing(path, wanted)
        if not missing or agent.budget_spent or not response["ok"]:
            return
        follow = next((c["arguments"] for c in response["meta"]["stabilization"]["next_calls"]
                       if c["tool"] == "read" and c["arguments"].get("target") == path), None)
        if follow is None or not page_holds(follow, missing[0]):
            return
        response = agent.read(follow)


def _page_holds(arguments: dict[str, Any], line: int) -> bool:
    """Does a continuation's next page (its limit, else at most 300 lines) hold the line?"""
    if arguments.get("mode") == "outline":
        return False  # an outline names lines, it delivers none
    if "offset" in arguments:
        first = max(arguments["offset"], 1)
        last = first + arguments.get("limit", 300) - 1
    else:
        first = arguments.get("start_line", 1)
        last = min(arguments.get("end_line", first + 299), first + 299)
    return bool(first <= line <= last)
