"""The query sets of ``bench/search_quality.py``: queries with their answers, and the sdists
they are asked over (unpacked once into a cache folder outside the repository)."""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sdists import sdist, unpack

DATA = Path(__file__).resolve().parent / "data" / "search_quality.json"
# Query sets by name. Each data file says its role ("role", and why in "role_why"):
# tuning (its failures were looked at while choosing the ranking, or it was run again after
# its first run: tuning, heldout, fresh, fresh2, fresh4, unseen, unseen2, unseen3, unseen4,
# unseen5, unseen6, unseen7, unseen8, unseen9, unseen10), validation (run to keep or drop
# changes, its failures not turned into rules: fresh3) or held-out (written and committed
# before any run, never looked at: its first run is the held-out figure; unseen11, over
# pyasn1 and Babel, is the one now; every other unseen set was held out until its first run,
# as each other set was).
QUERY_SETS = {"tuning": DATA, "heldout": DATA.with_name("search_quality_heldout.json"),
              "fresh": DATA.with_name("search_quality_fresh.json"),
              "fresh2": DATA.with_name("search_quality_fresh2.json"),
              "fresh3": DATA.with_name("search_quality_fresh3.json"),
              "fresh4": DATA.with_name("search_quality_fresh4.json"),
              "unseen": DATA.with_name("search_quality_unseen.json"),
              "unseen2": DATA.with_name("search_quality_unseen2.json"),
              "unseen3": DATA.with_name("search_quality_unseen3.json"),
              "unseen4": DATA.with_name("search_quality_unseen4.json"),
              "unseen5": DATA.with_name("search_quality_unseen5.json"),
              "unseen6": DATA.with_name("search_quality_unseen6.json"),
              "unseen7": DATA.with_name("search_quality_unseen7.json"),
              "unseen8": DATA.with_name("search_quality_unseen8.json"),
              "unseen9": DATA.with_name("search_quality_unseen9.json"),
              "unseen10": DATA.with_name("search_quality_unseen10.json"),
              "unseen11": DATA.with_name("search_quality_unseen11.json")}


@dataclass(frozen=True)
class Answer:
    path: str
    symbol: str | None = None


@dataclass(frozen=True)
class Query:
    corpus: str
    kind: str
    query: str
    answers: tuple[Answer, ...]


def load_queries(path: Path = DATA) -> tuple[dict[str, str], list[Query]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    queries = [Query(row["corpus"], row["kind"], row["query"],
                     tuple(Answer(a["path"], a.get("symbol")) for a in row["answers"]))
               for row in data["queries"]]
    return dict(data["corpora"]), queries


ROLES = ("tuning", "validation", "held-out")


def set_role(name: str) -> str:
    """What was done with set ``name``: tuning, validation or held-out."""
    role = json.loads(QUERY_SETS[name].read_text(encoding="utf-8"))["role"]
    if role not in ROLES:
        raise ValueError(f"{QUERY_SETS[name].name}: role {role!r} is not one of {ROLES}")
    return str(role)


def set_names(value: str) -> list[str]:
    """``--set``'s value: one name, names joined by commas, or ``all``."""
    names = list(QUERY_SETS) if value == "all" else value.split(",")
    unknown = [name for name in names if name not in QUERY_SETS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown query set {', '.join(unknown)}: choose from {', '.join(QUERY_SETS)} or all")
    return names


def load_set(name: str) -> tuple[dict[str, str], list[Query]]:
    """The corpora and queries of the set(s) ``name`` (see ``set_names``)."""
    corpora: dict[str, str] = {}
    queries: list[Query] = []
    for path in (QUERY_SETS[one] for one in set_names(name)):
        more_corpora, more_queries = load_queries(path)
        corpora.update(more_corpora)
        queries.extend(more_queries)
    return corpora, queries


def corpus_root(requirement: str, cache: Path) -> Path:
    """The unpacked sdist in ``cache`` (pip downloads it, once)."""
    name, version = requirement.split("==")
    tree = cache / "search-quality" / f"{name}-{version}"
    if tree.is_dir():
        return _top(tree)
    archive = sdist(requirement, cache / "sdists")
    partial = Path(tempfile.mkdtemp(prefix="unpack-", dir=cache))
    unpack(archive, partial)
    tree.parent.mkdir(parents=True, exist_ok=True)
    partial.rename(tree)
    return _top(tree)


def _top(tree: Path) -> Path:
    return next(path for path in sorted(tree.iterdir()) if path.is_dir())
