"""What a ``search`` query with no ``kind`` is: a name, a dotted name, code, a regex, or words.

The default search answers each its own way (see :mod:`sari_core.engine.search.search`):

* ``identifier``: one name (``resolve_redirects``, ``HTTPAdapter``): the literal, its
  definitions first;
* ``dotted``: a qualified name (``Session.send``, ``requests.utils.super_len``,
  ``Foo::bar``): the definition of the last part inside the named class or module first,
  then the literal;
* ``regex``: a pattern that only makes sense as a regex (``def \\w+_redirect``,
  ``foo.*bar``): the literal if it exists, else the regex;
* ``code``: a fragment of code (``allow_redirects=False``, ``get_close_matches(opt``):
  the literal;
* ``words``: words in a sentence (``where are redirects followed``): the literal phrase if
  a file holds it, else the word index, ranked.
"""

from __future__ import annotations

import re
from typing import Literal

SHORT_CODE_WORDS = 3
QueryKind = Literal["identifier", "dotted", "regex", "code", "words"]

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*\Z")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+(?:\(\))?\Z")
# Regex syntax a literal of code rarely holds: classes, escapes, quantified wildcards.
_REGEX = re.compile(r"\\[wdsbWDSB]|\[[^\]]+\][*+?]?|\.[*+?]|\(\?[:=!<]|[^\\]\|[^|]|^\^|\$\Z")
# Characters of code, not of a sentence.
_CODE = re.compile(r"[=(){}\[\];<>\"`]|(?<![A-Za-z])'|'(?![A-Za-z])|->|::|\w\.\w|\w_\w|\w\(")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A first word that makes a short query code: ``def helper``, ``class Parser``, ``import os``
# (a longer one is a sentence: "import settings from a file").
_CODE_KEYWORDS = frozenset((
    "def", "class", "import", "from", "return", "function", "func", "fn", "const", "let",
    "var", "struct", "impl", "interface", "enum", "pub", "async", "await", "raise", "throw",
    "new", "package", "module", "trait", "typedef", "#include", "#define", "extends"))


def classify(query: str) -> QueryKind:
    text = query.strip()
    if _IDENTIFIER.match(text):
        return "identifier"
    if _DOTTED.match(text):
        return "dotted"
    if _REGEX.search(text):
        return "regex"
    words = text.split()
    if words[0] in _CODE_KEYWORDS and len(words) <= SHORT_CODE_WORDS:
        return "code"
    plain = sum(bool(_WORD.fullmatch(word.strip(",.?!:;"))) for word in words)
    if len(words) >= 2 and not _CODE.search(text) and plain >= 2 and 2 * plain > len(words):
        return "words"
    return "code"
