"""The scripted agents of ``bench/agent_cost.py``: what every arm does, and the one on Sari.

Every arm makes a session's calls in order, each as its own tools make it, and knows only
what those tools' texts showed it (``agent_cost_view.View``):

* a scripted read whose needed lines it was already shown is skipped, and so is a read of
  a definition when the search it made to find it showed its needed lines, or showed it
  whole (a range the search stated, each of its lines shown);
* a read of a definition (``ReadAround``, ``ReadSymbol``) starts where the agent saw the
  definition start, ``CONTEXT_BEFORE`` lines above it, and ends ``after`` lines past where it
  saw it end, or ``WINDOW`` lines on when it has not seen the end; a definition it has not
  seen is found first: with a symbol read where the tools have one (Sari), else a search;
* a needed definition it has started reading but not seen whole is read on from the first
  line it has not been shown: the call the last answer printed (a page to follow), else the
  next ``CHUNK`` lines;
* after a refusal it makes the call the refusal printed; a spent budget ends its reading;
* when the script ends, each needed definition not yet seen whole is found and read the
  same way (the task names the definitions it needs, never their lines).

The needed lines count as delivered when a tool's text showed them, whatever the tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_cost_corpora import Corpus, ReadAround, ReadFile, ReadSymbol, Search, Session
from agent_cost_view import View

from sari_core.costmodel import tokens

CONTEXT_BEFORE = 5  # lines read above a definition's first line (its decorators)
WINDOW = 80  # lines read from a definition's first line when its end was not seen
CHUNK = 200  # lines a read that goes on with a definition takes
MAX_CONTINUATIONS = 15
# Claude Code shows an MCP result of more characters only as a preview and a file to read.
MCP_RESULT_CHARS = 50_000


@dataclass
class Tally:
    result_tokens: list[int] = field(default_factory=list)
    refused: int = 0
    skipped: int = 0  # scripted reads skipped: their needed lines were already shown
    unchanged: int = 0  # re-reads answered "file unchanged"
    needed: int = 0
    needed_delivered: int = 0
    oversized: int = 0  # results the client would not show its model whole


def split_lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


class ScriptedAgent:
    """A session's script played with one arm's tools; subclasses supply the tools."""

    arm = "?"

    def __init__(self, corpus: Corpus, session: Session) -> None:
        self.corpus = corpus
        self.session = session
        self.view = View(corpus)
        self.tally = Tally()
        self.stopped = False  # a spent budget: no more reads
        self.needs = [(corpus.path_of(module), dotted, corpus.definition_lines(module, dotted))
                      for module, dotted in session.needs]

    # --- the tools (each arm's own) -------------------------------------------------------

    def search(self, query: str, kind: str) -> None:
        raise NotImplementedError

    def locate(self, path: str, dotted: str) -> None:
        """A search that shows where a definition starts."""
        raise NotImplementedError

    def read_range(self, path: str, first: int, last: int) -> None:
        raise NotImplementedError

    def read_file(self, step: ReadFile, path: str) -> None:
        raise NotImplementedError

    def read_symbol(self, path: str, dotted: str) -> bool:
        """Read a definition by name, if the tools can; False when they cannot."""
        return False

    def continue_read(self, path: str, gap: int, last: int) -> None:
        self.read_range(path, gap, last)

    def record(self, shown: str) -> None:
        if len(shown) > MCP_RESULT_CHARS:
            self.tally.oversized += 1
        self.tally.result_tokens.append(tokens(shown))

    # --- the script -----------------------------------------------------------------------

    def run(self) -> Tally:
        for step in self.session.steps:
            if isinstance(step, Search):
                self.search(step.query, step.kind)
                continue
            if self.stopped:
                continue
            path = self.corpus.path_of(step.module)
            if self.already_shown(step, path):
                self.tally.skipped += 1
                continue
            if isinstance(step, ReadFile):
                self.read_file(step, path)
            elif isinstance(step, ReadSymbol):
                self.read_definition(path, step.symbol, 0, 0, by_name=True, step=step)
            else:
                assert isinstance(step, ReadAround)
                self.read_definition(path, step.symbol, step.before, step.after, step=step)
            for need_path, dotted, truth in self.needs:
                if need_path == path and self.view.start_of(path, dotted, truth) is not None:
                    self.read_on(path, dotted, truth)
        for path, dotted, truth in self.needs:
            if not self.stopped and self.view.first_missing(truth, path) is not None:
                self.fetch(path, dotted, truth)
        return self.finish()

    def already_shown(self, step: ReadFile | ReadAround | ReadSymbol, path: str) -> bool:
        needed = self.needed_lines(path)
        wanted = [n for n in self.corpus.wanted(step, path) if n in needed]
        shown = self.view.shown.get(path, set())
        return bool(wanted) and all(n in shown for n in wanted)

    def needed_lines(self, path: str) -> set[int]:
        return {n for need_path, _, (top, end) in self.needs if need_path == path
                for n in range(top, end + 1)}

    def read_definition(self, path: str, dotted: str, before: int, after: int,
                        by_name: bool = False,
                        step: ReadAround | ReadSymbol | None = None) -> None:
        truth = self.corpus.definition_lines_at(path, dotted)
        start = self.view.start_of(path, dotted, truth)
        unseen = start is None or (by_name and self.view.end_of(path, dotted, truth) is None)
        if unseen and self.read_symbol(path, dotted):
            return
        if start is None:
            self.locate(path, dotted)
            start = self.view.start_of(path, dotted, truth)
            if start is None:
                return
            if step is not None and self.already_shown(step, path) \
                    or self.view.seen_whole(path, start):
                # The search that found it showed its needed lines, or all of it (a range
                # it stated, every line shown): the read is skipped.
                self.tally.skipped += 1
                return
        end = self.view.end_of(path, dotted, truth)
        first = max(1, start - max(before, CONTEXT_BEFORE))
        last = end + after if end is not None else start + WINDOW + after
        self.read_range(path, first, last)

    def read_on(self, path: str, dotted: str, truth: tuple[int, int]) -> None:
        """Read on with a definition the agent has started until it has seen it whole: to
        its end when a tool stated it, ``WINDOW`` lines when it has seen only its first line,
        else ``CHUNK`` lines at a time."""
        for _ in range(MAX_CONTINUATIONS):
            gap = self.view.first_missing(truth, path)
            if gap is None or self.stopped:
                return
            end = self.view.end_of(path, dotted, truth)
            start = self.view.start_of(path, dotted, truth) or gap
            if end is not None and end >= gap:
                last = end
            elif gap <= start + 1:  # only its first line seen (a search hit): a first look
                last = start + WINDOW
            else:
                last = gap + CHUNK - 1
            seen = self.view.count()
            self.continue_read(path, gap, last)
            if self.view.count() == seen:
                return

    def fetch(self, path: str, dotted: str, truth: tuple[int, int]) -> None:
        """Find and read a needed definition the script did not bring whole."""
        if self.view.start_of(path, dotted, truth) is None:
            self.read_definition(path, dotted, 0, 0, by_name=True)
        if self.view.start_of(path, dotted, truth) is not None:
            self.read_on(path, dotted, truth)

    def finish(self) -> Tally:
        needed = {(path, n) for path, _, (top, end) in self.needs for n in range(top, end + 1)}
        self.tally.needed = len(needed)
        self.tally.needed_delivered = sum(
            1 for path, n in needed if n in self.view.shown.get(path, ()))
        return self.tally


class SariAgent(ScriptedAgent):
    """The same script through a Sari kernel, shown what the MCP server would show."""

    def __init__(self, kernel: Any, corpus: Corpus, session: Session, arm: str) -> None:
        super().__init__(corpus, session)
        self.kernel = kernel
        self.arm = arm
        self.sid = f"bench-{arm}-{corpus.name}-{session.name}"
        self.printed_next: dict[str, dict[str, Any]] = {}  # path -> the read its answer printed
        self.offset_skips = offset_skips_lines(kernel, corpus)

    def shown(self, response: dict[str, Any]) -> str:
        from sari_core.server.results import to_call_result

        result = to_call_result(response)
        return "".join(block.text for block in result.content if block.type == "text")

    def search(self, query: str, kind: str) -> None:
        # A plain search is the call with no kind, as an agent makes it.
        arguments = {"query": query} if kind == "text" else {"query": query, "kind": kind}
        response = self.kernel.execute_search({**arguments, "session_id": self.sid})
        text = self.shown(response)
        self.record(text)
        if response["ok"]:
            self.view.see_search(text)

    def call_read(self, arguments: dict[str, Any], retry: bool = True) -> None:
        response = self.kernel.execute_read({**arguments, "session_id": self.sid})
        text = self.shown(response)
        self.record(text)
        if not response["ok"]:
            self.tally.refused += 1
            self.after_refusal(response, arguments, text, retry)
            return
        path = response["meta"]["path"]
        named = named_lines(arguments, self.offset_skips)
        before = set(self.view.shown.get(path, ())) if named else set()
        if response.get("mode") == "outline" or response["meta"].get("mode") == "outline":
            self.view.see_outline(path, text)
        else:
            self.view.see_read(path, text)
        missing = named - before
        if missing and retry and not set(self.view.shown.get(path, ())) & missing:
            # A read that named its lines, answered with something else (an outline): the
            # agent asks for those lines again, and that read is paid for too.
            self.call_read({"mode": "snippet", "target": path, "start_line": min(named),
                            "end_line": max(named)}, retry=False)
            return
        printed = printed_read(response, text)
        if printed is not None:
            self.printed_next[path] = printed
        else:
            self.printed_next.pop(path, None)

    def after_refusal(self, response: dict[str, Any], arguments: dict[str, Any], text: str,
                      retry: bool) -> None:
        """Make the call the refusal printed; a spent budget ends the reading."""
        call = printed_call(response, text)
        if response["error"]["code"] == "BUDGET_EXCEEDED":
            self.stopped = True
            if call is not None and call["tool"] == "search":
                self.search(call["arguments"].get("query", ""),
                            call["arguments"].get("kind", "text"))
            return
        if call is None or not retry:
            return
        if call["tool"] == "read":
            self.call_read(call["arguments"], retry=False)
        elif call["tool"] == "search":
            self.search(call["arguments"].get("query", ""), call["arguments"].get("kind", "text"))
            self.call_read(arguments, retry=False)

    def locate(self, path: str, dotted: str) -> None:
        self.search(dotted.rsplit(".", 1)[-1], "symbol")

    def read_range(self, path: str, first: int, last: int) -> None:
        self.call_read({"mode": "snippet", "target": path, "start_line": max(1, first),
                        "end_line": last})

    def read_file(self, step: ReadFile, path: str) -> None:
        arguments: dict[str, Any] = {"mode": "file", "target": path}
        if step.offset is not None:  # a step's offset is the lines it skips
            arguments["offset"] = step.offset if self.offset_skips else step.offset + 1
        if step.limit is not None:
            arguments["limit"] = step.limit
        self.call_read(arguments)

    def read_symbol(self, path: str, dotted: str) -> bool:
        # by the name the task gives it (``Class.method``), as the model would write it
        self.call_read({"mode": "symbol", "target": dotted, "path": path})
        return True

    def continue_read(self, path: str, gap: int, last: int) -> None:
        """The read the last answer printed when it reaches the gap, else the gap's lines."""
        printed = self.printed_next.pop(path, None)
        if printed is not None and reaches(printed, gap, self.offset_skips):
            self.call_read(printed)
            return
        self.read_range(path, gap, last)


def named_lines(arguments: dict[str, Any], offset_skips: bool) -> set[int]:
    """The lines a read names (a snippet's range, a file read's offset and limit); none for
    a read of a whole file or a symbol."""
    if arguments.get("mode") == "snippet" and "start_line" in arguments:
        first = int(arguments["start_line"])
        return set(range(first, int(arguments.get("end_line", first)) + 1))
    if arguments.get("mode", "file") == "file" and "limit" in arguments:
        offset = int(arguments.get("offset", 0))
        first = offset + 1 if offset_skips else max(offset, 1)
        return set(range(first, first + int(arguments["limit"])))
    return set()


def printed_call(response: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The first proposed call the model was shown (written out in the answer's text)."""
    from sari_core.rendering import call_text

    calls = (response.get("meta") or {}).get("stabilization", {}).get("next_calls") or []
    return next((call for call in calls if call_text(call) in text), None)


def offset_skips_lines(kernel: Any, corpus: Corpus) -> bool:
    """Whether this Sari's ``read`` ``offset`` is the lines skipped (``offset=1`` shows line 2)
    or the first line shown, as in Claude Code's Read: asked of the kernel, once."""
    known = getattr(kernel, "_bench_offset_skips", None)
    if known is None:
        path = next(p for s in corpus.sessions for p, _ in
                    ((corpus.path_of(step.module), 0) for step in s.steps
                     if not isinstance(step, Search)))
        probe = kernel.execute_read({"mode": "file", "target": path, "offset": 1, "limit": 1,
                                     "session_id": "bench-offset-probe"})
        known = probe["meta"]["start_line"] == 2
        kernel._bench_offset_skips = known
    return bool(known)


def reaches(arguments: dict[str, Any], line: int, offset_skips: bool) -> bool:
    """Does a printed read's range (as its arguments show it) hold the line?"""
    if "start_line" in arguments:
        return bool(arguments["start_line"] <= line <= arguments.get("end_line", line))
    if "offset" in arguments:
        first = arguments["offset"] + 1 if offset_skips else max(arguments["offset"], 1)
        return first <= line < first + arguments.get("limit", 10**9)
    return arguments.get("mode") in ("file", None) or arguments.get("mode") == "symbol"


def printed_read(response: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The read a served answer printed as the next call for its own file (a page to
    follow), if any."""
    call = printed_call(response, text)
    if call is None or call["tool"] != "read" or call["arguments"].get("mode") == "outline":
        return None
    return dict(call["arguments"])
