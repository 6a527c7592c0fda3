"""How much a model reads for one ``context_query`` answer: the text Sari writes for it, against
the same answer as compact JSON (what a model read before), in the same run.

A session reads ``--reads`` files of the standard library (each read is logged with up to
``response_text_chars`` of its text); then, with the operator's scope widened to ``team``,
another session asks for every session's records, and the reading session asks the same
text query several times (each earlier answer is in the log by then). Printed: bytes and
tokens (chars/4) of each answer, both ways, and the ratio.

    python bench/context_query_text.py [--reads 6] [--repeats 3] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("SARI_STATE_DIR", tempfile.mkdtemp(prefix="sari-bench-"))

from sari_core import Kernel  # noqa: E402
from sari_core.rendering import render  # noqa: E402
from sari_core.testing import MemoryEngine  # noqa: E402
from sari_persistence.plugin import PersistencePlugin  # noqa: E402

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = ("json/decoder.py", "csv.py", "textwrap.py", "shlex.py", "fnmatch.py",
           "colorsys.py", "bisect.py", "heapq.py")


def as_json(response: dict[str, Any]) -> str:
    """The answer as compact JSON without the envelope: a plugin tool's text before."""
    payload = {key: value for key, value in response.items()
               if key not in ("ok", "tool", "target", "meta", "error", "model_text")}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def row(label: str, response: dict[str, Any]) -> str:
    text, peer = render(response), as_json(response)
    return (f"{label:<34} text {len(text.encode()):>6} B ({len(text) // 4:>5} tokens)   "
            f"as JSON {len(peer.encode()):>6} B ({len(peer) // 4:>5} tokens)   "
            f"text/JSON {len(text) / len(peer):.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reads", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="two reads, two repeats")
    args = parser.parse_args()
    if args.smoke:
        args.reads, args.repeats = 2, 2
    names = MODULES[:args.reads]
    files = {name: (STDLIB / name).read_text(encoding="utf-8") for name in names}
    folder = Path(tempfile.mkdtemp(prefix="sari-bench-context-query-"))
    kernel = Kernel(MemoryEngine(files, root="/srv/app"), plugins=[PersistencePlugin()],
                    load_entry_points=False, analytics_sinks=[],
                    settings={"persistence": {"db_path": str(folder / "log.db"),
                                              "install_sigterm_handler": False,
                                              "context_query_scope": "team"}})
    try:
        for name in names:
            kernel.execute_read({"mode": "file", "target": name, "session_id": "reader"})
        print(f"python {sys.version.split()[0]}; {len(names)} reads logged")
        print(row("team-wide query (another session)", kernel.execute_tool(
            "context_query", {"session_id": "lead", "scope": "team"})))
        for number in range(1, args.repeats + 1):
            print(row(f"text query, asked the {number}. time", kernel.execute_tool(
                "context_query", {"session_id": "reader", "text": "def "})))
    finally:
        kernel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
