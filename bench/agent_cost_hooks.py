"""The native agents of ``bench/agent_cost.py`` with Sari's hooks in front of their tools.

Each of the agent's own Grep and Read calls is first sent, as Claude Code sends its
``PreToolUse`` hook, through ``sari_core.native.run_native_call`` (the path the installed
hooks take) on a kernel with the default policies, one kernel session per agent session;
the agent then obeys the answer as Claude Code does (``sari_core.native.answer``):

* nothing to say: the tool runs as asked;
* ``additionalContext``: the tool runs as asked, and the model is shown the note too;
* ``deny``: the tool does not run; the model is shown the reason as the call's error (it
  holds Sari's own text for the call: an outline, a search, a refusal) and knows what that
  text shows;
* ``updatedInput``: the tool runs with the new input (a Read of fewer lines, a Grep with a
  ``head_limit``), and the model is shown the note.

The texts are worded as the pinned CLI words them (``CONTEXT_NOTE``, ``DENY_NOTE``).

``DESIGN`` chooses what the hooks answer: ``as-built``, the verdicts of
``run_native_call`` as they are (a narrowed whole read carries the file's outline; a
ranged read ending inside a definition it began is extended to its end; a read naming its
lines is never denied with an outline in their place); ``deny-ranged``, the same but a
read naming its lines that Sari would answer with an outline is denied with it (as the
hooks were first built); ``no-extend``, ``as-built`` but a ranged read is never extended;
``no-outline``, ``no-extend`` and no outline in a narrowed read's note; ``lean``,
``as-built`` and also: a ``Read`` of a short file (``SHORT_FILE`` lines or fewer) is left
alone, whatever the verdict, and a verdict that only guides adds no note; ``quiet``,
``as-built`` and no note for a verdict that only guides. ``as-built`` shows, with a content
search whose pattern names a definition, the bodies of the definitions it hits (three at
most, 200 lines each at most: ``sari_core.native.definitions``), and with them the short
helpers of the same file a shown body calls (three at most, 80 lines each at most);
``no-bodies`` shows none, ``bodies-60``/``bodies-120`` change the length cap,
``bodies-1``/``bodies-2`` the count; ``no-callees`` shows no helper,
``callees-1``/``callees-2`` one or two (60 lines at most);
``lean-bodies``/``quiet-bodies`` are ``lean``/``quiet`` with the bodies kept;
``no-extend-denied``, ``as-built`` but a ranged read Sari answers itself (lines already
shown come back as a reference) is not given the rest of a definition it cut.

A ``Read`` that named its lines and was denied with an outline is read again (as the Sari
arms re-issue such a read), and both calls are paid for.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from agent_cost_native import GREP_HEAD, CarefulAgent, NativeAgent

from sari_core.costmodel import tokens

# How Claude Code (2.1.330) shows its model a PreToolUse hook's answer.
CONTEXT_NOTE = "PreToolUse:{tool} hook additional context: {context}"
DENY_NOTE = "PreToolUse:{tool} hook error: {reason}"
OUTLINE_HEAD = "Outline of "  # how a narrowed read's note starts the file's outline
EXTENDED = "Extended to line "  # how an extended read's note starts


# Designs that change how many definitions a search's bodies show, and how long each may
# be: (DEFINITIONS_SHOWN, DEFINITION_LINES) of sari_core.native.definitions (3 and 200).
BODIES = {"no-bodies": (0, 0), "bodies-60": (3, 60), "bodies-120": (3, 120),
          "bodies-1": (1, 200), "bodies-2": (2, 200)}  # no-bodies: no helper either
# And the short helpers of the same file a shown body calls: (CALLEES_SHOWN, CALLEE_LINES)
# (3 and 80).
CALLEES = {"no-callees": (0, 0), "callees-1": (1, 60), "callees-2": (2, 60)}
# ``lean`` and ``quiet`` with a search's bodies kept (their other guiding notes dropped).
WITH_BODIES = {"lean-bodies": "lean", "quiet-bodies": "quiet"}
DESIGNS = ("as-built", "deny-ranged", "no-extend", "no-outline", "lean", "quiet", *BODIES,
           *WITH_BODIES, *CALLEES, "no-extend-denied")
# Where the bodies shown with a search start in a note: Sari's symbol search's first line.
BODIES_HEAD = re.compile(r"^\d+ match(?:es)? for .* \(symbol\)$", re.MULTILINE)
SHORT_FILE = 200
DESIGN = {"name": "as-built"}  # set by bench/agent_cost.py --hooks-design


def use_design(name: str) -> None:
    """Make the + hooks arms answer as design ``name`` does."""
    from sari_core.native import definitions

    DESIGN["name"] = name
    definitions.DEFINITIONS_SHOWN, definitions.DEFINITION_LINES = BODIES.get(
        name, (definitions.DEFINITIONS_SHOWN, definitions.DEFINITION_LINES))
    if name in CALLEES:
        definitions.CALLEES_SHOWN, definitions.CALLEE_LINES = CALLEES[name]
    if name == "no-extend-denied":
        from sari_core.native import decide

        decide.EXTEND_DENIED = False


def is_outline(response: dict[str, Any]) -> bool:
    """Whether Sari's read answered with an outline (its mode, or its meta's)."""
    return "outline" in (response.get("mode"), (response.get("meta") or {}).get("mode"))


class HookedTools:
    """The hook in front of a native agent's Grep and Read (a mixin of the agent class)."""

    kernel: Any
    hook_session: str
    hooked: dict[str, int]

    def start_hooks(self, kernel: Any, arm: str) -> None:
        self.kernel = kernel
        self.hook_session = f"bench-{arm}-{self.corpus.name}-{self.session.name}"  # type: ignore[attr-defined]
        self.hooked = {"untouched": 0, "guide": 0, "deny": 0, "narrow": 0}

    def ask_hook(self, tool: str, tool_input: dict[str, Any]) -> Any:
        from sari_core.native import NativeCall, answer, run_native_call

        call = NativeCall("claude-code", tool, tool_input, self.hook_session,
                          str(self.corpus.root))  # type: ignore[attr-defined]
        verdict = run_native_call(self.kernel, call)
        design = DESIGN["name"]
        bodies = BODIES_HEAD.search(verdict.context) if design in WITH_BODIES else None
        design = WITH_BODIES.get(design, design)
        if design == "deny-ranged" and tool == "Read" and verdict.action == "untouched" \
                and "limit" in tool_input and is_outline(verdict.response or {}):
            # The hooks as first built: a read naming its lines denied with the outline.
            verdict = replace(verdict, action="deny", reason=verdict.sari_text)
        if design == "lean" and tool == "Read" and verdict.action == "deny" \
                and ("offset" in tool_input or "limit" in tool_input) \
                and is_outline(verdict.response or {}):
            verdict = replace(verdict, action="untouched", reason="")
        if design in ("no-extend", "no-outline") and verdict.action == "narrow" \
                and verdict.context.startswith(EXTENDED):
            rest = verdict.context.split("\n", 1)[1:]  # the policies' warnings after it
            verdict = replace(verdict, action="guide" if rest else "untouched",
                              context="".join(rest), updated_input=None)
        if design == "no-outline" and OUTLINE_HEAD in verdict.context:
            verdict = replace(verdict, context=verdict.context.split("\n" + OUTLINE_HEAD)[0])
        if design == "quiet" and verdict.action == "guide":
            verdict = replace(verdict, action="untouched", context="")
        if design == "lean" and verdict.action != "untouched" and (
                verdict.action == "guide" or tool == "Read" and self.short(tool_input)):
            verdict = replace(verdict, action="untouched", reason="", context="",
                              updated_input=None)
        if bodies is not None and verdict.action in ("untouched", "guide"):
            # Those designs' guiding notes go; the bodies shown with a search stay.
            verdict = replace(verdict, action="guide", reason="", updated_input=None,
                              context=bodies.string[bodies.start():])
        self.hooked[verdict.action] += 1
        output = answer("claude-code", verdict).get("hookSpecificOutput") or {}
        return verdict, output

    def short(self, tool_input: dict[str, Any]) -> bool:
        path = str(tool_input.get("file_path", ""))
        root = str(self.corpus.root)  # type: ignore[attr-defined]
        relative = path[len(root) + 1:] if path.startswith(root + "/") else path
        text = self.corpus.text_of(relative)  # type: ignore[attr-defined]
        return text.count("\n") + 1 <= SHORT_FILE

    def add_note(self, tool: str, output: dict[str, Any], path: str | None = None) -> None:
        """The hook's ``additionalContext`` goes to the model with the tool's result; an
        outline in it (a narrowed whole read's) tells the agent where the file's
        definitions are."""
        context = output.get("additionalContext")
        if context:
            note = CONTEXT_NOTE.format(tool=tool, context=context)
            self.tally.result_tokens[-1] += tokens("\n" + note)  # type: ignore[attr-defined]
            self.view.see_search(context)  # type: ignore[attr-defined]
            at = context.find(OUTLINE_HEAD)
            if path is not None and at >= 0:
                self.view.see_outline(path, context[at:])  # type: ignore[attr-defined]

    def deny(self, tool: str, path: str | None, verdict: Any, output: dict[str, Any]) -> None:
        reason = str(output.get("permissionDecisionReason") or "")
        self.record(DENY_NOTE.format(tool=tool, reason=reason))  # type: ignore[attr-defined]
        self.tally.refused += 1  # type: ignore[attr-defined]
        response = verdict.response or {}
        view = self.view  # type: ignore[attr-defined]
        if path is not None and response.get("ok"):
            if is_outline(response):
                view.see_outline(path, reason)
            else:
                view.see_read(path, reason)
        else:
            view.see_search(reason)


def hooked(base: type) -> type:
    """``base`` (a native agent class) with the hook in front of its Grep and Read."""

    class Hooked(HookedTools, base):  # type: ignore[misc, valid-type]
        arm = f"{base.arm} + hooks"

        def __init__(self, corpus: Any, session: Any, kernel: Any) -> None:
            super().__init__(corpus, session)
            self.start_hooks(kernel, self.arm.replace(" ", ""))

        def grep(self, pattern: str, where: str = ".") -> None:
            tool_input: dict[str, Any] = {"pattern": pattern, "output_mode": "content",
                                          "-n": True}
            if where != ".":
                tool_input["path"] = str(self.corpus.root / where)
            verdict, output = self.ask_hook("Grep", tool_input)
            if output.get("permissionDecision") == "deny":
                self.deny("Grep", None, verdict, output)
                return
            cap = (output.get("updatedInput") or tool_input).get("head_limit")
            super().grep(pattern, where, cap if isinstance(cap, int) and cap > 0 else GREP_HEAD)
            self.add_note("Grep", output)

        def read(self, path: str, offset: int, limit: int | None, retry: bool = True) -> None:
            tool_input: dict[str, Any] = {"file_path": str(self.corpus.root / path)}
            if offset:
                tool_input["offset"] = offset + 1
            if limit:
                tool_input["limit"] = limit
            verdict, output = self.ask_hook("Read", tool_input)
            if output.get("permissionDecision") == "deny":
                self.deny("Read", path, verdict, output)
                if limit and retry and is_outline(verdict.response or {}):
                    # It named its lines and was shown an outline: it asks for them again
                    # (as the Sari arms do), and that call is paid for too.
                    self.read(path, offset, limit, retry=False)
                return
            updated = output.get("updatedInput")
            if updated:
                first = int(updated.get("offset") or 1)
                super().read(path, first - 1, updated.get("limit"))
            else:
                super().read(path, offset, limit)
            self.add_note("Read", output, path)

    Hooked.__name__ = f"Hooked{base.__name__}"
    return Hooked


HookedNativeAgent = hooked(NativeAgent)
HookedCarefulAgent = hooked(CarefulAgent)
