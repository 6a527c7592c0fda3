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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    with tempfile.TemporaryDirectory(prefix="sari-bench-regex-") as tmp:
        (Path(tmp) / "evil.txt").write_text("a" * 100_000 + "!\n", encoding="utf-8")
        with Workspace([stdlib, Path(tmp)], index_path=Path(tmp) / "index.sqlite", watch=False,
                       exclude=["site-packages/", "dist-packages/"]) as engine:
            engine.ensure_index(progress=False)
            print(f"python {sys.version.split()[0]}, corpus {stdlib} "
                  f"({engine.store.count_files()[1]:,} text files)")
            print(f"{'pattern':<28}{'files':>7}{'RE2 ms':>9}{'re ms':>9}{'ratio':>8}  agree")
            for pattern in PATTERNS:
                call = SearchCall(query=pattern, kind="regex", case_sensitive=True)
                found = {path.split("/", 1)[1] for path in engine.matching_files(call)}
                expected = python_files(engine, pattern)
                ours = median_ms(lambda call=call: engine.search(call), args.repeat)
                theirs = median_ms(lambda p=pattern: python_files(engine, p), args.repeat)
                print(f"{pattern:<28}{len(found):>7}{ours:>9.1f}{theirs:>9.1f}"
                      f"{theirs / ours:>7.1f}x  {'yes' if found == expected else 'NO'}")
            if importlib.util.find_spec("sari_core.engine.regex") is None:
                return  # an engine on the backtracking re would not come back
            call = SearchCall(query=EVIL, kind="regex")
            evil_ms = median_ms(lambda: engine.search(call), args.repeat)
            line = "a" * 22 + "!"  # each further "a" doubles the time
            started = time.perf_counter()
            re.search(EVIL, line)
            re_ms = (time.perf_counter() - started) * 1000
            print(f"{EVIL}: RE2 over the corpus and a 100,000-character line {evil_ms:.1f} ms; "
                  f"re over one 23-character line {re_ms:,.0f} ms")


if __name__ == "__main__":
    main()
