"""One call against a workspace from the command line (``sari search`` and ``sari read``).

The engine is opened over the workspace, its index refreshed (a progress bar on a
terminal, silence otherwise; an index never completed is built detached after a scan
answered, see :func:`run_call`), and the call goes through a
:class:`~sari_core.kernel.Kernel`, so installed policy plugins apply exactly as
they do over MCP. ``--json`` prints the response object as is; otherwise the
caller renders it for a human. A refusal exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sari_core.kernel import Kernel

ANSWER_PREFIX = "sari: answered "


def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", "-w", default=".", metavar="PATH",
                        help="workspace root (default: the current folder)")
    parser.add_argument("--json", action="store_true",
                        help="print the exact response object as JSON")
    parser.add_argument("--session-id", default=None, help="session the call belongs to")


def workspace_root(path: str) -> Path:
    root = Path(path).expanduser().resolve()
    if not root.is_dir():
        raise SystemExit(f"sari: workspace {root} is not a folder")
    return root


def configured_or_exit(root: Path) -> list[str]:
    """The ``exclude`` setting for ``root`` (see :mod:`sari_core.engine.files.exclusions`)."""
    from sari_core.engine.files.exclusions import ExcludeError, configured_excludes

    try:
        return configured_excludes(root)
    except ExcludeError as exc:
        raise SystemExit(f"sari: {exc}") from None


def run_call(args: argparse.Namespace, call: Callable[[Kernel], dict[str, Any]],
             render: Callable[[dict[str, Any]], None]) -> int:
    """Open the workspace, make sure the index is there, run ``call``, print the answer.

    A workspace whose index was never completed is answered from a scan, and its build goes
    on detached after the answer (see :mod:`sari_core.cli.detached_build`): the shell comes
    back at once, and a later call finds the index built, or the build still running (it
    then answers from a scan again), or the build killed (it then starts it again).
    """
    from sari_core.cli import detached_build
    from sari_core.engine import Workspace
    from sari_core.kernel import Kernel

    root = workspace_root(args.workspace)
    engine = Workspace([root], exclude=configured_or_exit(root), one_call=True)
    engine.build_guard = lambda: detached_build.build_lock(engine.index_path, wait=True)
    try:
        # A build left running by an earlier call, or killed in its second phase (the
        # parse, minutes on a large tree): a refresh here would wait for all of it, behind
        # the build lock or in the foreground.
        first_build = not engine.index_complete
        building = not first_build and (detached_build.build_running(engine.index_path)
                                        or engine.store.symbols_pending_any())
        if first_build or building:  # answer from a scan now (the whole CPU to it)
            engine.scan_before_build = True
            engine.built_elsewhere = building
        else:
            engine.ensure_index()
        with Kernel(engine) as kernel:
            response = call(kernel)
            show(args, response, render)
            report_cpu()
            # (a call that needed the parse waited for it here: nothing is left to build)
            if (first_build or building) and not engine.index_ready:
                build_after_answer(root, engine)
    finally:
        engine.close()
    return 0 if response.get("ok") else 1


def build_after_answer(root: Path, engine: Any) -> None:
    """Leave the build running detached, or build here where that is not possible."""
    from sari_core.cli import detached_build

    if detached_build.available():
        pid = detached_build.start(root, engine.index_path)
        if pid is None:
            print("sari: the index is still being built in the background; the next calls "
                  "use it once it is done", file=sys.stderr, flush=True)
        else:
            print(f"sari: building the index in the background (process {pid}, log "
                  f"{detached_build.log_path(engine.index_path)}); the next calls use it once "
                  "it is done", file=sys.stderr, flush=True)
        return
    print("sari: building the index for the next calls (interrupting is safe: "
          "the next call resumes it)", file=sys.stderr, flush=True)
    engine.scan_before_build = False
    engine.ensure_index()


def show(args: argparse.Namespace, response: dict[str, Any],
         render: Callable[[dict[str, Any]], None]) -> None:
    if args.json:
        print(json.dumps(response, indent=2, ensure_ascii=False))
    elif response.get("ok"):
        render(response)
        notes(response)
    else:
        refusal(response)
    sys.stdout.flush()


def report_cpu() -> None:
    """With ``SARI_STARTUP_REPORT`` set, one line on stderr: the CPU this process and the
    processes it waited for (``rg``) had used when the answer was out, a figure the machine's
    load does not stretch (``bench/first_answer.py`` reads it)."""
    from sari_core.server.startup import REPORT_ENV

    if os.environ.get(REPORT_ENV):
        own, children = cpu_seconds()
        print(ANSWER_PREFIX + json.dumps({"cpu_seconds": round(own, 4),
                                          "children_cpu_seconds": round(children, 4)}),
              file=sys.stderr, flush=True)


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds used by this process, and by the processes it waited for: to the
    microsecond where ``getrusage`` exists (``os.times`` counts 10 ms clock ticks)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        used = os.times()
        return used.user + used.system, used.children_user + used.children_system
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def notes(response: dict[str, Any]) -> None:
    """Policy warnings and suggested next calls, on stderr."""
    stabilization = response.get("meta", {}).get("stabilization", {})
    for warning in stabilization.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    for next_call in stabilization.get("next_calls", [])[:3]:
        print(f"next: {next_call['tool']} {json.dumps(next_call['arguments'])}", file=sys.stderr)


def refusal(response: dict[str, Any]) -> None:
    error = response.get("error", {})
    print(f"sari: {error.get('code', 'ERROR')}: {error.get('message', '')}", file=sys.stderr)
    if error.get("hint"):
        print(f"hint: {error['hint']}", file=sys.stderr)
    notes(response)


def given(args: argparse.Namespace, names: dict[str, str]) -> dict[str, Any]:
    """The tool arguments the user actually gave (``{attribute: argument name}``)."""
    return {name: getattr(args, attribute) for attribute, name in names.items()
            if getattr(args, attribute, None) is not None}
