"""Scripted agent sessions on the Python standard library, for ``bench/replay_tokens.py``.

Each session is a small task ("how does json.dumps handle indent?") with the lines it
needs (whole definitions, resolved with :mod:`ast` at run time so the scripts hold on
every Python version) and the calls an agent typically makes to get there: a search,
whole-file reads, a re-read, overlapping ranges, a symbol read, and a read of a wrong
file. Modules are named by import name and resolved to their file in the stdlib.
"""

from __future__ import annotations

import ast
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()


@dataclass(frozen=True)
class Search:
    query: str
    kind: str = "text"


@dataclass(frozen=True)
class ReadFile:
    """``read`` mode file; no offset/limit is a whole-file read."""

    module: str
    offset: int | None = None
    limit: int | None = None


@dataclass(frozen=True)
class ReadAround:
    """``read`` mode snippet over a definition, widened by ``before``/``after`` lines."""

    module: str
    symbol: str
    before: int = 0
    after: int = 0


@dataclass(frozen=True)
class ReadSymbol:
    """``read`` mode symbol: the engine resolves the name (``path`` disambiguates)."""

    module: str
    symbol: str


Step = Search | ReadFile | ReadAround | ReadSymbol


@dataclass(frozen=True)
class Session:
    name: str
    task: str
    needs: tuple[tuple[str, str], ...]  # (module, dotted definition name)
    steps: tuple[Step, ...]


def module_path(module: str) -> str:
    """The module's source file, relative to the stdlib folder, with forward slashes.

    Looked up on disk rather than imported: some modules (``os``) are frozen, and a
    package may be a plain module in another Python version (``pathlib`` in 3.13).
    """
    base = module.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if (STDLIB / candidate).is_file():
            return candidate
    raise LookupError(f"module {module} has no source file in {STDLIB}")


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse((STDLIB / module_path(module)).read_text(encoding="utf-8"))


def definition_lines(module: str, dotted: str) -> tuple[int, int]:
    """First and last line of a (nested) def or class, decorators included."""
    nodes: list[ast.stmt] = list(_tree(module).body)
    found: ast.stmt | None = None
    for part in dotted.split("."):
        found = next((node for node in nodes
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and node.name == part), None)
        if found is None:
            raise LookupError(f"{dotted} is not defined in {module}")
        nodes = list(getattr(found, "body", []))
    assert found is not None and found.end_lineno is not None
    decorators = getattr(found, "decorator_list", [])
    start = min([found.lineno, *(d.lineno for d in decorators)])
    return start, found.end_lineno


def _s(name: str, task: str, needs: list[tuple[str, str]], *steps: Step) -> Session:
    return Session(name, task, tuple(needs), tuple(steps))


SESSIONS: tuple[Session, ...] = (
    _s("json-indent", "How does json.dumps pass indent to the encoder?",
       [("json", "dumps"), ("json.encoder", "JSONEncoder.__init__")],
       Search("def dumps"), ReadFile("json"), ReadFile("json.encoder"),
       ReadAround("json.encoder", "JSONEncoder.__init__", 5, 10), ReadFile("json"),
       ReadFile("json.decoder")),
    _s("argparse-subparsers", "How are subcommands added to an ArgumentParser?",
       [("argparse", "ArgumentParser.add_subparsers"), ("argparse", "_SubParsersAction.add_parser")],
       Search("def add_subparsers"), ReadFile("argparse"),
       ReadAround("argparse", "ArgumentParser.add_subparsers", 10, 10),
       ReadAround("argparse", "_SubParsersAction.add_parser", 0, 30),
       ReadAround("argparse", "ArgumentParser.add_subparsers"), ReadFile("optparse")),
    _s("functools-lru", "How does lru_cache build its wrapper?",
       [("functools", "lru_cache"), ("functools", "_lru_cache_wrapper")],
       Search("def lru_cache"), ReadFile("functools"), ReadAround("functools", "lru_cache", 5, 60),
       ReadFile("reprlib"), ReadFile("functools"),
       ReadAround("functools", "_lru_cache_wrapper")),
    _s("dataclasses-field", "What does dataclasses.field accept?",
       [("dataclasses", "field"), ("dataclasses", "Field.__init__")],
       Search("def field("), ReadFile("dataclasses", 0, 400), ReadAround("dataclasses", "field"),
       ReadFile("dataclasses", 200, 300), ReadFile("typing", 0, 200),
       ReadAround("dataclasses", "Field.__init__", 5, 5)),
    _s("pathlib-glob", "How does Path.glob select files?",
       [("pathlib", "Path.glob"), ("pathlib", "Path.rglob")],
       Search("def glob"), ReadFile("glob"), ReadFile("pathlib"),
       ReadAround("pathlib", "Path.glob", 10, 30), ReadFile("fnmatch"),
       ReadAround("pathlib", "Path.glob", 10, 30)),
    _s("logging-rotation", "When does RotatingFileHandler roll over?",
       [("logging.handlers", "RotatingFileHandler")],
       Search("class RotatingFileHandler"), ReadFile("logging"), ReadFile("logging.handlers"),
       ReadAround("logging.handlers", "RotatingFileHandler", 0, 20),
       ReadAround("logging.handlers", "RotatingFileHandler.shouldRollover", 10, 10),
       ReadFile("logging.handlers", 100, 120)),
    _s("subprocess-run", "What does subprocess.run return on failure?",
       [("subprocess", "run"), ("subprocess", "CompletedProcess.check_returncode")],
       Search("def run("), ReadFile("subprocess"), ReadAround("subprocess", "run", 40, 10),
       ReadAround("subprocess", "CompletedProcess"), ReadFile("subprocess", 460, 120),
       ReadFile("os", 0, 250)),
    _s("csv-dictreader", "How does csv.DictReader build its rows?",
       [("csv", "DictReader")],
       Search("class DictReader"), ReadFile("csv"), ReadFile("csv"),
       ReadAround("csv", "DictReader.__next__", 5, 5), ReadFile("tomllib._parser", 0, 150),
       ReadAround("csv", "DictReader", 10, 10)),
    _s("textwrap-dedent", "How does textwrap.dedent find the margin?",
       [("textwrap", "dedent")],
       Search("def dedent"), ReadFile("textwrap"), ReadAround("textwrap", "dedent", 5, 5),
       ReadFile("textwrap"), ReadFile("string"), ReadAround("textwrap", "indent")),
    _s("collections-namedtuple", "What does namedtuple generate?",
       [("collections", "namedtuple")],
       Search("def namedtuple"), ReadFile("collections"),
       ReadAround("collections", "namedtuple", 0, 20), ReadFile("typing", 2800, 200),
       ReadFile("collections", 300, 250), ReadAround("collections", "namedtuple")),
    _s("shutil-copytree", "How does copytree handle symlinks and errors?",
       [("shutil", "copytree"), ("shutil", "_copytree")],
       Search("def copytree"), ReadFile("shutil"), ReadAround("shutil", "_copytree", 10, 10),
       ReadAround("shutil", "copytree", 0, 10), ReadFile("os", 300, 200),
       ReadFile("shutil", 440, 150)),
    _s("http-response-read", "How does HTTPResponse.read handle chunked bodies?",
       [("http.client", "HTTPResponse.read"), ("http.client", "HTTPResponse._read_chunked")],
       Search("def _read_chunked"), ReadFile("http.client"),
       ReadAround("http.client", "HTTPResponse.read", 0, 20),
       ReadAround("http.client", "HTTPResponse._read_chunked", 20, 0), ReadFile("urllib.request"),
       ReadAround("http.client", "HTTPResponse.read", 0, 150)),
    _s("tempfile-named", "What does NamedTemporaryFile do with delete=False?",
       [("tempfile", "NamedTemporaryFile")],
       Search("def NamedTemporaryFile"), ReadFile("tempfile"),
       ReadAround("tempfile", "NamedTemporaryFile", 10, 10), ReadFile("io"),
       ReadFile("tempfile"), ReadAround("tempfile", "_sanitize_params")),
    _s("enum-auto", "How does enum.auto pick values?",
       [("enum", "auto"), ("enum", "Enum._generate_next_value_")],
       Search("class auto"), ReadFile("enum", 0, 400), ReadAround("enum", "auto", 0, 30),
       ReadFile("enum"), ReadAround("enum", "Enum._generate_next_value_", 10, 10),
       ReadFile("enum", 150, 100)),
    _s("heapq-merge", "How does heapq.merge handle key and reverse?",
       [("heapq", "merge")],
       Search("def merge"), ReadFile("heapq"), ReadFile("heapq"),
       ReadAround("heapq", "merge", 5, 5), ReadFile("bisect"), ReadFile("heapq", 300, 100)),
    _s("configparser-interpolation", "How does BasicInterpolation expand %(name)s?",
       [("configparser", "BasicInterpolation")],
       Search("class BasicInterpolation"), ReadFile("configparser"),
       ReadAround("configparser", "BasicInterpolation", 20, 20),
       ReadAround("configparser", "BasicInterpolation._interpolate_some"),
       ReadFile("string", 0, 200), ReadFile("configparser", 350, 150)),
    _s("zipfile-extract", "How does ZipFile.extractall guard paths?",
       [("zipfile", "ZipFile.extractall"), ("zipfile", "ZipFile._extract_member")],
       Search("def _extract_member"), ReadFile("zipfile"),
       ReadAround("zipfile", "ZipFile.extractall", 0, 40),
       ReadAround("zipfile", "ZipFile._extract_member", 10, 10), ReadFile("tarfile", 0, 300),
       ReadAround("zipfile", "ZipFile.extractall")),
    _s("asyncio-gather", "How does asyncio.gather cancel its children?",
       [("asyncio.tasks", "gather"), ("asyncio.tasks", "_GatheringFuture")],
       Search("def gather"), ReadFile("asyncio.base_events"), ReadFile("asyncio.tasks"),
       ReadAround("asyncio.tasks", "gather", 30, 10),
       ReadAround("asyncio.tasks", "_GatheringFuture", 0, 40), ReadFile("asyncio.tasks", 690, 150)),
    _s("mock-patch", "What does patch do on __enter__?",
       [("unittest.mock", "_patch.__enter__")],
       Search("def __enter__"), ReadFile("unittest.mock"),
       ReadAround("unittest.mock", "_patch.__enter__", 10, 10),
       ReadAround("unittest.mock", "_patch", 0, 0), ReadFile("contextlib"),
       ReadAround("unittest.mock", "_patch.__enter__", 10, 10)),
    _s("statistics-median", "How do median and median_low differ?",
       [("statistics", "median"), ("statistics", "median_low")],
       Search("def median_low"), ReadFile("statistics"), ReadAround("statistics", "median", 0, 30),
       ReadAround("statistics", "median_low", 10, 10), ReadFile("statistics", 500, 150),
       ReadFile("fractions", 0, 150)),
    _s("inspect-signature", "How does inspect.signature follow wrappers?",
       [("inspect", "signature"), ("inspect", "Signature.from_callable")],
       Search("def signature"), ReadFile("inspect"), ReadAround("inspect", "signature", 10, 10),
       ReadAround("inspect", "Signature.from_callable", 5, 5), ReadFile("functools", 0, 100),
       ReadFile("inspect", 3000, 300)),
    _s("email-parsestr", "What does email Parser.parsestr do with headersonly?",
       [("email.parser", "Parser.parsestr"), ("email.parser", "Parser.parse")],
       Search("def parsestr"), ReadFile("email.feedparser"), ReadFile("email.parser"),
       ReadFile("email.parser"), ReadAround("email.parser", "Parser", 5, 5),
       ReadFile("email.feedparser", 130, 100)),
    _s("symbols-by-name", "Where are heappush and heappop defined?",
       [("heapq", "heappush"), ("heapq", "heappop")],
       Search("heappush", "symbol"), ReadSymbol("heapq", "heappush"),
       ReadSymbol("heapq", "heappop"), ReadFile("heapq", 0, 200), ReadSymbol("heapq", "heappush"),
       ReadFile("queue")),
    # An agent that wanders: it found what it needed early, then keeps opening files.
    _s("wandering", "Which modules implement the copy protocol?",
       [("copy", "deepcopy"), ("copy", "copy")],
       Search("def __deepcopy__"), ReadAround("copy", "copy", 2, 2),
       ReadAround("copy", "deepcopy", 2, 2),
       *(ReadFile(module, 0, 60) for module in (
           "copyreg", "pickle", "shelve", "dbm", "pprint", "reprlib", "types", "weakref",
           "operator", "keyword", "numbers", "abc", "contextlib", "functools", "decimal",
           "fractions", "datetime", "calendar", "locale", "gettext", "string", "struct",
           "codecs", "io", "bisect", "heapq"))),
)
