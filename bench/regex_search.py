"""Regex search on RE2 (linear time) against Python's backtracking ``re``, same run.

The corpus is the standard library (without ``site-packages``), indexed once. For
each pattern it prints the p50 of ``Workspace.search(kind='regex')`` (RE2, with
the trigram prefilter and ranking), the p50 of the same file set computed with
Python's ``re`` over every indexed text (the line-by-line scan the engine did
before), and whether both find the same files. The last pattern is the one that
freezes a backtracking engine (``(a+)+$``); ``re`` is run on it over one line of
22 ``a``s and a ``!`` only, RE2 over the whole corpus plus a 100,000-character line.

Usage: ``python bench/regex_search.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.models import SearchCall

PATTERNS = [r"def \w+_\w+\(self", r"^class \w+\(Exception\)", r"import (os|sys)$",
            r"\d{4}-\d{2}-\d{2}", r"raise \w+Error\(f?\"", r"[A-Z]{3,}_[A-Z]{3,}"]
EVIL = "(a+)+$"


def median_ms(function: object, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def python_files(engine: Workspace, pattern: str) -> set[str]:
    rx = re.compile(pattern, re.MULTILINE)
    paths = {row.id: row.path for row in engine.store.text_files()}
    return {paths[file_id] for file_id, text in engine.store.all_texts()
            if file_id in paths and any(rx.search(line) for line in text.split("\n"))}


SMOKE_FILES = {
    "pkg/errors.py": "class BadThing(Exception):\n    pass\n\n\ndef check_value(self):\n"
                     "    raise ValueError(f\"bad {self}\")\n",
    "pkg/main.py": "import os\nimport sys\n\nRELEASE_DATE = '2024-01-31'\nMAX_SIZE = 3\n",
}


def smoke_corpus(folder: Path) -> Path:
    """A handful of files every pattern above matches at least once (CI's quick run)."""
    for rel, text in SMOKE_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny corpus and one repetition: checks the bench works (CI)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sari-bench-regex-") as tmp:
        if args.smoke:
            args.repeat = 1
            stdlib = smoke_corpus(Path(tmp) / "corpus")
        else:
            stdlib = Path(sysconfig.get_paths()["stdlib"])
        (Path(tmp) / "evil.txt").write_text("a" * 100_000 + "!\n", encoding="utf-8")
        with Workspace([stdlib, Path(tmp)], index_path=Path(tmp) / "index.sqlite", watch=False,
                       exclude=["site-packages/", "dist-packages/"]) as engine:
            engine.ensure_index(progress=False)
            print(f"python {sys.version.split()[0]}, corpus {stdlib} "
                  f"({engine.store.count_files()[1]:,} text files)")
            print(f"{'pattern':<28}{'files':>7}{'RE2 ms':>9}{'re ms':>9}{'ratio':>8}  agree")
            disagreements = 0
            for pattern in PATTERNS:
                call = SearchCall(query=pattern, kind="regex", case_sensitive=True)
                found = {path.split("/", 1)[1] for path in engine.matching_files(call)}
                expected = python_files(engine, pattern)
                ours = median_ms(lambda call=call: engine.search(call), args.repeat)
                theirs = median_ms(lambda p=pattern: python_files(engine, p), args.repeat)
                print(f"{pattern:<28}{len(found):>7}{ours:>9.1f}{theirs:>9.1f}"
                      f"{theirs / ours:>7.1f}x  {'yes' if found == expected else 'NO'}")
                disagreements += found != expected
            if importlib.util.find_spec("sari_core.engine.search.regex") is None:
                return 1 if disagreements else 0  # a backtracking engine would not come back
            call = SearchCall(query=EVIL, kind="regex")
            evil_ms = median_ms(lambda: engine.search(call), args.repeat)
            line = "a" * 22 + "!"  # each further "a" doubles the time
            started = time.perf_counter()
            re.search(EVIL, line)
            re_ms = (time.perf_counter() - started) * 1000
            print(f"{EVIL}: RE2 over the corpus and a 100,000-character line {evil_ms:.1f} ms; "
                  f"re over one 23-character line {re_ms:,.0f} ms")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
