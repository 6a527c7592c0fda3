"""What Sari's policies do to a call of a client's own tool.

:func:`run_native_call` is the one path: the native call becomes the Sari call that
stands for it (:mod:`sari_core.native.mapping`), runs through the kernel like every
other call (the same ``pm.hook`` pipeline, the same session state, recorded in the
execution log marked ``native``), and Sari's answer becomes a :class:`NativeVerdict`:

* **deny** — a policy refused the call, or Sari would have shown something other than the
  file's own lines (an outline, lines already shown earlier, redacted secrets): the reason
  is Sari's own text for the call, so the model reads what Sari's tool would have shown;
* **narrow** — Sari would have shown a part of what was asked (the definition a search
  matched in a long file; a capped search): ``updated_input`` asks the client's tool for
  that part, and ``context`` says what was cut and how to get the rest, in Sari's words,
  with the file's outline when a whole read was narrowed (where the rest is, so the agent
  reads the next definition it needs without searching for it); or a read whose range ends
  inside a definition is extended to that definition's end (``EXTEND_LINES`` more at most):
  a definition cut in two costs the agent another call for its rest;
* **guide** — the call goes ahead as asked, with ``context`` carrying the policies' warnings,
  and, for a search that looks for a definition, the bodies of the few short definitions it
  finds (:mod:`sari_core.native.definitions`): the read that would follow, already shown;
* **untouched** — nothing to say: the call goes ahead as asked.

Never "allow": the user's own permission rules still decide whether the tool may run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sari_core.errors import ErrorCode
from sari_core.models import ReadCall
from sari_core.native.calls import NativeCall
from sari_core.native.definitions import shown_definitions
from sari_core.native.hook_client import SECRET_REFUSAL, secret_named
from sari_core.native.mapping import SariRequest, Untouched, sari_request
from sari_core.native.sessions import connection_for, identity_for
from sari_core.outline_rows import OutlineRow, parse_row
from sari_core.rendering import render
from sari_core.secrets import REDACTION_MARK

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

Action = Literal["untouched", "deny", "narrow", "guide"]
# Refusals about the call itself (a missing file, a binary one, a bad argument): the
# client's own tool gives its own answer to them.
CLIENT_ANSWERS = frozenset({
    ErrorCode.INVALID_ARGS, ErrorCode.PATH_OUTSIDE_WORKSPACE, ErrorCode.NOT_FOUND,
    ErrorCode.BINARY_FILE, ErrorCode.FILE_TOO_LARGE, ErrorCode.NOT_A_FILE,
    ErrorCode.SYMBOL_AMBIGUOUS, ErrorCode.GIT_UNAVAILABLE, ErrorCode.NOT_A_GIT_REPOSITORY,
    ErrorCode.EDIT_NO_MATCH, ErrorCode.EDIT_AMBIGUOUS})
# Sari could not decide (a session id the server insists on, a failure, a busy server): as
# when it does not answer, the call goes ahead unless it names a secret file.
UNDECIDED = frozenset({ErrorCode.SESSION_ID_REQUIRED, ErrorCode.INTERNAL_ERROR,
                       ErrorCode.UNKNOWN_TOOL, ErrorCode.REQUEST_TOO_LARGE, ErrorCode.BUSY})
# A search showing matching lines, with no cap of its own, is capped at this many lines
# when more match: in the files Sari's search found, or in more than FLOOD_FILES files.
FLOOD_CAP = 100
FLOOD_FILES = 20
NARROW_HINT = "Read other lines with offset and limit."
# A read whose range ends inside a definition is extended to the definition's end when
# that adds this many lines or fewer: fewer tokens than the call for the rest would cost.
EXTEND_LINES = 100
# And a ranged read answered with Sari's own text (lines already shown come back as a
# reference to them) gets the cut definition's rest in that text too.
EXTEND_DENIED = True
# Outline rows shown with a narrowed whole read, at most.
OUTLINE_ROWS = 120
SHELL_TOOLS = frozenset({"Bash", "shell", "apply_patch"})


@dataclass(frozen=True)
class NativeVerdict:
    """Sari's decision on one native call.

    :ivar action: ``untouched``, ``deny``, ``narrow`` or ``guide``.
    :ivar reason: for ``deny``, what the model is told (Sari's own text for the call).
    :ivar context: for ``narrow`` and ``guide``, the note added for the model.
    :ivar updated_input: for ``narrow``, the whole new input of the client's tool.
    :ivar sari_text: Sari's own text for the call (what its tool would have shown); empty
        when the call did not reach the kernel.
    :ivar request: the Sari call that stood for it, or why none did.
    :ivar response: Sari's response object, when the call reached the kernel.
    """

    action: Action
    reason: str = ""
    context: str = ""
    updated_input: dict[str, Any] | None = None
    sari_text: str = ""
    request: SariRequest | Untouched | None = None
    response: dict[str, Any] | None = field(default=None, repr=False)


def run_native_call(kernel: Kernel, call: NativeCall) -> NativeVerdict:
    """Run a client's own tool call through Sari's policies and say what to do with it.

    :param kernel: the kernel serving the workspace the client works in.
    :param call: the client's call (:func:`sari_core.native.calls.native_call` reads one
        from a hook payload; a replay builds one from a recorded call).
    :return: the :class:`NativeVerdict`; a call Sari has no policy for is ``untouched``.
    """
    request = sari_request(call, kernel.roots[0])
    if isinstance(request, Untouched):
        # A command not understood whole may still read a secret file it names.
        return _secret_list_verdict(call, request) if call.tool in SHELL_TOOLS \
            else NativeVerdict("untouched", request=request)
    # The client names the session: under strict session mode a native call is served
    # whole, in the same session as the model's calls the hook's connection carries.
    connection, identity = connection_for(call), identity_for(call)
    if request.tool == "read":
        response = kernel.execute_read(request.arguments, connection_id=connection,
                                       identity=identity, native=call.label)
    elif request.tool == "search":
        response = kernel.execute_search(request.arguments, connection_id=connection,
                                         identity=identity, native=call.label)
    else:
        response = kernel.execute_mutation(request.tool, request.arguments,
                                           connection_id=connection, identity=identity,
                                           native=call.label, apply=False)
    text = render(response)
    if not response.get("ok"):
        code = (response.get("error") or {}).get("code")
        if code in CLIENT_ANSWERS:
            return NativeVerdict("untouched", sari_text=text, request=request,
                                 response=response)
        if code in UNDECIDED:
            return _secret_list_verdict(call, request, response)
        return NativeVerdict("deny", reason=text, sari_text=text, request=request,
                             response=response)
    if request.tool == "read":
        return _read_verdict(kernel, call, request, response, text)
    if request.tool == "search":
        return _search_verdict(kernel, call, request, response, text)
    return _guided(request, response, text)


def _secret_list_verdict(call: NativeCall, request: SariRequest | Untouched,
                         response: dict[str, Any] | None = None) -> NativeVerdict:
    """Deny a call naming a secret file by the thin client's own list; else untouched."""
    secret = secret_named({"tool_input": dict(call.input)})
    if secret is None:
        return NativeVerdict("untouched", request=request, response=response)
    reason = SECRET_REFUSAL.format(path=secret)
    return NativeVerdict("deny", reason=reason, sari_text=reason, request=request,
                         response=response)


def _warnings(response: dict[str, Any]) -> list[str]:
    stabilization = (response.get("meta") or {}).get("stabilization") or {}
    return [str(w) for w in stabilization.get("warnings") or ()]


def _guided(request: SariRequest, response: dict[str, Any], text: str) -> NativeVerdict:
    warnings = _warnings(response)
    if not warnings:
        return NativeVerdict("untouched", sari_text=text, request=request, response=response)
    return NativeVerdict("guide", context=" ".join(warnings), sari_text=text, request=request,
                         response=response)


def _file_lines(path: Path | None, encoding: str | None) -> list[str] | None:
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data.decode(encoding or "utf-8", errors="replace").splitlines()


def _outline(kernel: Kernel, request: SariRequest) -> tuple[str, list[OutlineRow]]:
    """The file's outline (its text and rows) as Sari's outline read shows it, read from the
    index outside the session (it is shown inside the answer of a call already counted);
    empty when there is none."""
    target = str(request.arguments.get("target") or "")
    try:
        result = kernel.engine.read(ReadCall(mode="outline", target=target,
                                             limit=OUTLINE_ROWS))
    except Exception:  # noqa: BLE001 - no outline: the verdict goes without one
        return "", []
    rows = [row for row in map(parse_row, str(result.text or "").splitlines()) if row]
    return str(result.text or "").rstrip("\n"), rows


def _outlined(response: dict[str, Any]) -> bool:
    """Whether Sari answered a read with the file's outline instead of its lines."""
    return "outline" in (response.get("mode"), (response.get("meta") or {}).get("mode"))


def _cut_definition(rows: list[OutlineRow], first: int, last: int) -> OutlineRow | None:
    """The definition that begins in the range ``first``-``last`` (the read aimed at it)
    and that the range cuts, ending furthest within ``EXTEND_LINES`` of ``last``: None when
    none does (or only longer ones)."""
    cut = [row for row in rows if row.kind != "constant" and first <= row.first <= last
           and last < row.last and row.last - last <= EXTEND_LINES]
    return max(cut, key=lambda row: row.last, default=None)


def _ranged(call: NativeCall, request: SariRequest, first: int, last: int) -> dict[str, Any]:
    """The client's input asking for lines ``first``-``last`` of the same file."""
    if call.tool != "Read":
        return {**call.input,
                "command": f"sed -n '{first},{last}p' {shlex.quote(str(request.path))}"}
    return {**call.input, "offset": first, "limit": max(1, last - first + 1)}


def _extended(kernel: Kernel, call: NativeCall, request: SariRequest,
              response: dict[str, Any], text: str, last: int) -> NativeVerdict | None:
    """A ranged read ending inside a definition, extended to its end; None when it cuts
    none (or one longer than ``EXTEND_LINES`` more)."""
    _, rows = _outline(kernel, request)
    cut = _cut_definition(rows, request.first, last)
    if cut is None:
        return None
    total = int((response.get("meta") or {}).get("total_lines") or 0)
    end = min(cut.last, total) if total else cut.last
    if end <= last:
        return None
    note = (f"Extended to line {end}: the asked lines ended inside {cut.kind} {cut.name} "
            f"(lines {cut.first}-{cut.last}).")
    warnings = _warnings(response)
    return NativeVerdict("narrow", context="\n".join([note, *warnings]),
                         updated_input=_ranged(call, request, request.first, end),
                         sari_text=text, request=request, response=response)


def _denied_and_extended(kernel: Kernel, call: NativeCall, request: SariRequest,
                         response: dict[str, Any], text: str) -> str:
    """Sari's answer to a ranged read it answers itself, with the rest of a definition the
    range began and cut (``EXTEND_LINES`` more at most), read in the same session: the
    rest would cost the agent a call of its own. The answer alone when it cuts none."""
    meta = response.get("meta") or {}
    total = int(meta.get("total_lines") or 0)
    assert request.count is not None
    last = min(total, request.first + request.count - 1) if total else \
        request.first + request.count - 1
    if int(meta.get("end_line") or 0) != last or (total and last >= total):
        return text
    _, rows = _outline(kernel, request)
    cut = _cut_definition(rows, request.first, last)
    if cut is None:
        return text
    end = min(cut.last, total) if total else cut.last
    rest = kernel.execute_read(
        {"mode": "snippet", "target": request.arguments.get("target"), "start_line": last + 1,
         "end_line": end},
        connection_id=connection_for(call), identity=identity_for(call), native=call.label)
    rest_text = render(rest)
    if not rest.get("ok") or REDACTION_MARK in rest_text:
        return text
    return (f"{text}\nExtended to line {end}: the asked lines ended inside {cut.kind} "
            f"{cut.name} (lines {cut.first}-{cut.last}).\n{rest_text}")


def _read_verdict(kernel: Kernel, call: NativeCall, request: SariRequest,
                  response: dict[str, Any], text: str) -> NativeVerdict:
    meta = response.get("meta") or {}
    start, end = int(meta.get("start_line") or 1), int(meta.get("end_line") or 0)
    total = int(meta.get("total_lines") or 0)
    lines = _file_lines(request.path, meta.get("encoding"))
    shown = str(response.get("text") or "").splitlines()
    verbatim = lines is not None and response.get("mode") == "file" \
        and shown == lines[start - 1:end]
    if not verbatim:
        if request.count is not None and _outlined(response) and REDACTION_MARK not in text:
            # The agent named the lines it wants: an outline in their place makes it ask
            # for them again, a turn more. The call goes ahead as asked.
            return NativeVerdict("untouched", sari_text=text, request=request,
                                 response=response)
        # An outline, lines already shown, redacted secrets: the client's tool would show
        # something else, so the model is sent Sari's own answer instead.
        reason = text
        if EXTEND_DENIED and request.count is not None and REDACTION_MARK not in text \
                and not _outlined(response):
            reason = _denied_and_extended(kernel, call, request, response, text)
        return NativeVerdict("deny", reason=reason, sari_text=text, request=request,
                             response=response)
    wanted_end = total if request.count is None else min(total, request.first + request.count - 1)
    if start <= request.first and end >= wanted_end:
        extended = _extended(kernel, call, request, response, text, wanted_end) \
            if request.count is not None and wanted_end < total else None
        return extended or _guided(request, response, text)
    header = text.splitlines()[0] if text else ""
    context = f"{header} {NARROW_HINT}".strip()
    if request.count is None:
        # A whole read narrowed: where the rest of the file is, so the next definition the
        # agent needs is one read away, not a search and a read.
        outline, _ = _outline(kernel, request)
        if outline:
            context = f"{context}\nOutline of {request.arguments.get('target')}:\n{outline}"
    return NativeVerdict("narrow", context=context,
                         updated_input=_ranged(call, request, start, end), sari_text=text,
                         request=request, response=response)


def _withheld(response: dict[str, Any], text: str) -> bool:
    """Whether Sari's answer withheld or redacted content the native search would show."""
    if REDACTION_MARK in text:
        return True
    annotations = ((response.get("meta") or {}).get("stabilization") or {}).get("annotations")
    return any(isinstance(data, dict) and data.get("redacted")
               for data in (annotations or {}).values())


def _floods(request: SariRequest, response: dict[str, Any], root: Path) -> bool:
    """Whether a search showing every matching line would show more than FLOOD_CAP lines:
    more than FLOOD_FILES files match, or the files Sari found hold more matching lines."""
    meta = response.get("meta") or {}
    total = int(response.get("total") or 0)
    if meta.get("total_unit") == "files" and total > FLOOD_FILES:
        return True
    arguments = request.arguments
    try:
        pattern = re.compile(str(arguments["query"]),
                             0 if arguments.get("case_sensitive", True) else re.IGNORECASE)
    except re.error:
        return False
    count = 0
    for path in dict.fromkeys(str(m.get("path")) for m in response.get("matches") or ()):
        lines = _file_lines(root / path, None)
        for line in lines or ():
            count += bool(pattern.search(line))
            if count > FLOOD_CAP:
                return True
    return False


def _search_verdict(kernel: Kernel, call: NativeCall, request: SariRequest,
                    response: dict[str, Any], text: str) -> NativeVerdict:
    if request.content_mode and _withheld(response, text):
        return NativeVerdict("deny", reason=text, sari_text=text, request=request,
                             response=response)
    # The definitions the search looks for, bodies included: the read that would follow.
    # Only the client's own Grep tool: a shell's grep keeps its plain answer.
    bodies = shown_definitions(kernel, call, request) \
        if request.content_mode and call.tool == "Grep" else ""
    if request.content_mode and request.cap is None \
            and _floods(request, response, kernel.roots[0]):
        if call.tool == "Grep":
            updated = {**call.input, "head_limit": FLOOD_CAP}
        else:
            updated = {**call.input,
                       "command": f"{call.input.get('command')} | head -n {FLOOD_CAP}"}
        note = (f"Output capped at {FLOOD_CAP} lines: more lines than that match. Narrow the "
                f"search with a path or glob, or start from what Sari's search ranked first:\n"
                f"{text}")
        return NativeVerdict("narrow", context="\n".join(filter(None, [note, bodies])),
                             updated_input=updated, sari_text=text, request=request,
                             response=response)
    guided = _guided(request, response, text)
    if not bodies:
        return guided
    return replace(guided, action="guide", context="\n".join(filter(None, [guided.context,
                                                                           bodies])))
