"""How the scripted agent of ``bench/replay_tokens.py`` follows a policy's answers.

After a refusal it makes the call the refusal proposes (``next_calls``); after a cut read it
follows the read's continuation while the next page holds a line it still needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agent_cost_corpora import ReadFile, ReadSymbol

REFGATE_CODES = {"SEARCH_FIRST_REQUIRED", "SEARCH_REF_REQUIRED", "CANDIDATE_REF_REQUIRED"}


def split_lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


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
