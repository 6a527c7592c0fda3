"""Definitions of Go, JavaScript, TypeScript, Rust and Java code: coverage and ranking.

Real code, one library per language, each from a package registry: zod (TypeScript) and
mocha (JavaScript) packed from the npm registry (``npm pack``, cached under ``--cache``);
Go's standard library (``text/template``, ``net/url``) from Debian's ``golang-1.19-src``;
the ``regex-syntax`` crate from Debian's ``librust-regex-syntax-dev`` (its generated
Unicode tables left out); ``java.util`` classes from a JDK's ``src.zip``. A language whose
source is not on the machine is skipped, and the run says so.

Two figures per language, each against a peer measured in the same run:

* coverage: the share of the definitions universal-ctags finds (its default kinds:
  top-level and member definitions, no locals or parameters; anonymous entries it names
  itself, the consts and vars it finds indented but in no scope (the locals of anonymous
  callbacks), in TypeScript and JavaScript any indented var/let/const (a block's local,
  which ctags may scope to a class it infers from a function) and the keys of its object,
  entries it scopes to a function or to a const holding one, names on an
  import or re-export line, and the classes it infers from
  ``Name.prototype.x =`` left out; in TypeScript and JavaScript, a tag whose line does
  not declare its name, as ctags' reader of those languages sometimes misreads a type
  annotation, an ``instanceof`` or a ``satisfies`` as a declaration, and a var bound to
  the same-named member of another object, ``var X = errors.X``, which brings a name in
  as an import does) that Sari's index holds as a definition of the same name in the same
  file whose lines hold the one ctags gives. The figure a ≥ 95% target is checked on.
  Where ctags has no entry for a wanted definition (an object's keys inside a call's
  arguments), the line declaring the name (``NAME:``, ``NAME =``) stands for it.
* definition MRR@10: the queries of ``bench/data/definitions_queries.json`` (written
  before their first run) asked to the default search; a hit is the wanted file at a line
  inside the wanted definition (its lines from ctags). The peer is ripgrep: each word of
  the query (``rg -n -i -F``), lines ranked by how many of the words they hold, then by
  file and line.

    python bench/definitions_coverage.py [--cache ~/.cache/sari-bench] [--languages go,java]
        [--misses 10] [--smoke]

``--smoke`` runs both measures on small files written by the bench (what CI runs: it
fails when the bench breaks, whatever the figures).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from sari_core.engine import Workspace
from sari_core.engine.files.textfile import language_of
from sari_core.engine.index.symbols import extract
from sari_core.models import SearchCall

QUERIES = Path(__file__).parent / "data" / "definitions_queries.json"
TARGET_COVERAGE = 0.95
TARGET_MRR = 0.70
DEPTH = 10
NPM = {"typescript": ("zod@3.25.76", "src"), "javascript": ("mocha@10.8.2", "lib")}
GO_SOURCE = Path("/usr/share/go-1.19/src")
GO_PACKAGES = ("text/template", "net/url")
RUST_SOURCE = Path("/usr/share/cargo/registry/regex-syntax-0.6.27")
JAVA_FILES = ("java/util/ArrayList.java", "java/util/HashMap.java", "java/util/AbstractList.java",
              "java/util/Spliterator.java", "java/util/Optional.java", "java/util/Objects.java",
              "java/util/LinkedList.java", "java/util/ArrayDeque.java",
              "java/util/concurrent/TimeUnit.java", "java/math/RoundingMode.java")
EXTENSIONS = {"typescript": (".ts",), "javascript": (".js",), "go": (".go",), "rust": (".rs",),
              "java": (".java",)}
# ctags kinds that are not definitions an outline lists: imports, packages, locals.
NOT_DEFINITIONS = frozenset(("local", "parameter", "import", "package", "packageName",
                             "unknown", "label", "receiver"))
ANONYMOUS = re.compile(r"^(Anonymous|anon|__anon)|AnonymousFunction|^[^\w$]")
INDENTED = re.compile(r"^/\^\s")
BLOCK_DECLARATION = re.compile(r"^/\^\s+(?:var|let|const)\s")


@dataclass(frozen=True)
class Truth:
    path: str
    name: str
    kind: str
    line: int
    end: int


def npm_source(spec: str, folder: str, cache: Path, into: Path) -> bool:
    cache.mkdir(parents=True, exist_ok=True)
    name, version = spec.rsplit("@", 1)
    tarball = cache / f"{name}-{version}.tgz"
    if not tarball.exists():
        done = subprocess.run(["npm", "pack", spec, "--silent"], cwd=cache,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0 or not tarball.exists():
            print(f"  npm pack {spec} failed: {done.stderr.strip()[:200]}")
            return False
    with tarfile.open(tarball) as archive:
        prefix = f"package/{folder}/"
        members = [m for m in archive.getmembers() if m.name.startswith(prefix) and m.isfile()]
        for member in members:
            member.name = member.name[len("package/"):]
            archive.extract(member, into, filter="data")
    return True


def java_zip() -> Path | None:
    for candidate in sorted(Path("/usr/lib/jvm").glob("*/lib/src.zip")):
        if candidate.exists():
            return candidate
    return None


def corpus(language: str, cache: Path, into: Path) -> str | None:
    """Write the language's library under ``into``; None when done, else why not."""
    if language in NPM:
        spec, folder = NPM[language]
        return None if npm_source(spec, folder, cache, into) else f"npm pack {spec} failed"
    if language == "go":
        if not GO_SOURCE.is_dir():
            return f"{GO_SOURCE} missing (apt-get install golang-1.19-src)"
        for package in GO_PACKAGES:
            shutil.copytree(GO_SOURCE / package, into / package)
        return None
    if language == "rust":
        if not RUST_SOURCE.is_dir():
            return f"{RUST_SOURCE} missing (apt-get install librust-regex-syntax-dev)"
        shutil.copytree(RUST_SOURCE / "src", into / "src",
                        ignore=shutil.ignore_patterns("unicode_tables"))
        return None
    found = java_zip()
    if found is None:
        return "no JDK src.zip under /usr/lib/jvm"
    with zipfile.ZipFile(found) as archive:
        for rel in JAVA_FILES:
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(f"java.base/{rel}"))
    return None


def source_files(root: Path, language: str) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*")
                  if path.is_file() and path.name.endswith(EXTENSIONS[language])
                  and not path.name.endswith(".d.ts"))


# After a name its declaration spells (``X =``, ``X: T``, ``X(``, ``X<T>``, ``class X {``,
# ``class X extends``); ctags 5.9's TypeScript reader also tags words that are none
# (``core`` of ``: core.$constructor<...>``, ``instanceof X)``, ``satisfies "x"``).
DECLARED_AFTER = r"\s*(?:[:=(<{,;?!]|$)|\s+(?:extends|implements)\b"


def _misread(tag: dict[str, str], root: Path, language: str) -> bool:
    if language not in ("typescript", "javascript"):
        return False
    lines = _lines(root / tag["path"])
    line = lines[int(tag["line"]) - 1] if 0 < int(tag["line"]) <= len(lines) else ""
    name = re.escape(tag["name"])
    number = int(tag["line"])
    statement = " ".join(lines[number - 1:number + 1]) if number <= len(lines) else line
    if re.match(rf"\s*(?:var|let|const)\s+{name}\s*=[^;]*\.{name}\s*;", statement):
        return True  # ``var X = errors.X``: brought in, as an import is
    return re.search(rf"(?<![\w$.]){re.escape(tag['name'])}{DECLARED_AFTER}", line) is None \
        and re.search(rf"['\"]{re.escape(tag['name'])}['\"]\s*:", line) is None


_LINES: dict[Path, list[str]] = {}


def _lines(path: Path) -> list[str]:
    if path not in _LINES:
        _LINES[path] = path.read_text(encoding="utf-8", errors="replace").split("\n")
    return _LINES[path]


def ctags_truth(root: Path, files: list[str], language: str = "") -> list[Truth]:
    done = subprocess.run(["ctags", "--sort=no", "--output-format=json", "--fields=+nKesZ",
                           "-f", "-",
                           *files], cwd=root, capture_output=True, text=True, check=True)
    out = []
    locals_: set[tuple[str, str]] = set()  # (path, scoped name) of block-level declarations
    for line in done.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") in NOT_DEFINITIONS:
            continue
        scope = tag.get("scope")
        if language in ("typescript", "javascript") and (
                BLOCK_DECLARATION.match(tag.get("pattern", ""))
                or (scope and (tag["path"], scope) in locals_)):
            # a var/let/const inside a block (ctags may call a function's local a class
            # member), or a key of such a local's object
            locals_.add((tag["path"], f"{scope}.{tag['name']}" if scope else tag["name"]))
            continue
        if ANONYMOUS.search(tag["name"]) or _local(tag) or _misread(tag, root, language):
            continue
        first = int(tag["line"])
        out.append(Truth(tag["path"], tag["name"], tag["kind"], first,
                         int(tag.get("end", first))))
    return out


def _local(tag: dict[str, str]) -> bool:
    """Is the tag a function's local, or ctags' guess rather than a declaration?

    Definitions inside a function body are locals (ctags scopes them to the function, or,
    in an anonymous callback, to nothing while the line is indented); a class ctags infers
    from ``Name.prototype.x = ...`` is declared elsewhere.
    """
    if tag.get("scopeKind") in ("function", "method", "generator"):
        return True
    if tag.get("kind") in ("constant", "variable") \
            and tag.get("scopeKind") in ("constant", "variable"):
        return True  # a local of the function a const holds (``const f = () => {...}``)
    if tag.get("pattern", "").startswith(("/^import ", "/^export {", "/^export type {")):
        return True  # an import or re-export names what is declared elsewhere
    if tag.get("kind") in ("constant", "variable") and "scope" not in tag \
            and INDENTED.match(tag.get("pattern", "")):
        return True
    return tag.get("kind") == "class" and f"{tag['name']}.prototype." in tag.get("pattern", "")


def coverage(root: Path, files: list[str], truth: list[Truth]
             ) -> tuple[float, list[Truth]]:
    held: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for rel in files:
        for name, _kind, is_def, line, end in extract(language_of(rel),
                                                      (root / rel).read_bytes()):
            if is_def:
                held.setdefault((rel, name), []).append((line, end))
    missed = [t for t in truth
              if not any(line <= t.line <= end for line, end in held.get((t.path, t.name), []))]
    return (1 - len(missed) / len(truth) if truth else 1.0), missed


def wanted(root: Path, truth: list[Truth], path: str, name: str) -> list[tuple[int, int]]:
    """The lines of the wanted definition: ctags', else the line declaring the name
    (``NAME:`` or ``NAME =``; ctags skips an object's keys inside a call's arguments)."""
    found = [(t.line, max(t.line, t.end)) for t in truth if t.path == path and t.name == name]
    if found or not (root / path).is_file():
        return found
    declares = re.compile(rf"(?<![\w$]){re.escape(name)}\s*(:|=[^=])")
    lines = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
    return [(number, number) for number, line in enumerate(lines, 1)
            if declares.search(line)][:1]


def reciprocal(ranked: list[tuple[str, int]], path: str, ranges: list[tuple[int, int]]) -> float:
    for rank, (hit_path, line) in enumerate(ranked[:DEPTH], 1):
        if hit_path == path and any(first <= line <= last for first, last in ranges):
            return 1 / rank
    return 0.0


def sari_ranked(workspace: Workspace, query: str) -> list[tuple[str, int]]:
    # literal=False: the default search a client gets when it names no kind
    result = workspace.search(SearchCall(query=query, limit=DEPTH, literal=False))
    return [(match.path, match.line) for match in result.matches]


def rg_ranked(root: Path, query: str) -> list[tuple[str, int]]:
    rg = Path(sys.executable).with_name("rg")
    binary = str(rg) if rg.exists() else shutil.which("rg") or "rg"
    words = list(dict.fromkeys(query.split()))
    score: dict[tuple[str, int], int] = {}
    for word in words:
        done = subprocess.run([binary, "-n", "-i", "-F", "--no-heading", "--no-messages",
                               "--", word, "."], cwd=root, capture_output=True, text=True,
                              check=False)
        for line in done.stdout.splitlines():
            path, number, _ = line.split(":", 2)
            key = (path.removeprefix("./"), int(number))
            score[key] = score.get(key, 0) + 1
    return sorted(score, key=lambda key: (-score[key], key))


def measure(language: str, root: Path, queries: list[dict[str, str]], misses: int
            ) -> dict[str, float]:
    files = source_files(root, language)
    truth = ctags_truth(root, files, language)
    share, missed = coverage(root, files, truth)
    print(f"{language}: {len(files)} files, {len(truth)} ctags definitions; "
          f"coverage {share:.3f} ({len(truth) - len(missed)}/{len(truth)})"
          f" {'PASS' if share >= TARGET_COVERAGE else 'FAIL'} (target {TARGET_COVERAGE})")
    kinds: dict[str, int] = {}
    for t in missed:
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    if kinds:
        print("  missed by kind: " + ", ".join(f"{k} {n}" for k, n in
                                               sorted(kinds.items(), key=lambda kv: -kv[1])))
    for t in missed[:misses]:
        print(f"    missed {t.kind} {t.name} {t.path}:{t.line}")
    sari_total = rg_total = 0.0
    asked = 0
    with Workspace([root], index_path=root.parent / f"{language}.sqlite") as workspace:
        workspace.ensure_index(progress=False)
        for query in queries:
            ranges = wanted(root, truth, query["path"], query["name"])
            if not ranges:
                print(f"  no ctags definition of {query['name']} in {query['path']}: skipped")
                continue
            asked += 1
            ours = reciprocal(sari_ranked(workspace, query["query"]), query["path"], ranges)
            peer = reciprocal(rg_ranked(root, query["query"]), query["path"], ranges)
            sari_total += ours
            rg_total += peer
            if ours < 1 and misses:
                print(f"    {query['query']!r}: sari {ours:.2f}, rg {peer:.2f}")
    sari_mrr = sari_total / asked if asked else 0.0
    rg_mrr = rg_total / asked if asked else 0.0
    ratio = f"{sari_mrr / rg_mrr:.2f}x" if rg_mrr else "n/a"
    print(f"  definition MRR@{DEPTH} over {asked} queries: sari {sari_mrr:.3f}, "
          f"rg {rg_mrr:.3f} ({ratio}) {'PASS' if sari_mrr >= TARGET_MRR else 'FAIL'} "
          f"(target {TARGET_MRR})")
    return {"coverage": share, "sari_mrr": sari_mrr, "rg_mrr": rg_mrr}


SMOKE = {
    "go": ("p/kinds.go", "package p\n\ntype Alias = string\n\nconst (\n\tFirst = iota\n"
           "\tSecond\n)\n\n// Run runs.\nfunc Run() {}\n",
           [{"query": "Second", "path": "p/kinds.go", "name": "Second"}]),
    "javascript": ("lib/events.js", "var constants = define({\n  EVENT_RUN_END: 'end'\n});\n"
                   "exports.slug = function (s) { return s; };\n",
                   [{"query": "EVENT_RUN_END", "path": "lib/events.js",
                     "name": "EVENT_RUN_END"}]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sari-bench")
    parser.add_argument("--languages", default="typescript,javascript,go,rust,java")
    parser.add_argument("--misses", type=int, default=10, help="missed definitions to list")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if shutil.which("ctags") is None:
        print("universal-ctags is needed as the second reader (apt-get install universal-ctags)")
        return 2
    sets = json.loads(QUERIES.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="sari-defs-") as tmp:
        if args.smoke:
            for language, (rel, text, queries) in SMOKE.items():
                root = Path(tmp) / language / "tree"
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
                measure(language, root, queries, args.misses)
            return 0
        for language in args.languages.split(","):
            root = Path(tmp) / language / "tree"
            root.mkdir(parents=True)
            why = corpus(language, args.cache, root)
            if why is not None:
                print(f"{language}: skipped: {why}")
                continue
            measure(language, root, sets[language], args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
