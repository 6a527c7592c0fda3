"""The short forms code spells words with, so a question in words finds abbreviated names.

An agent asks for "environment variable"; the code says ``envvar``, ``environ``, ``env``.
Each group below is one word and the spellings code commonly gives it; a query word in a
group also matches the others. Two neighbouring query words also match the name code
glues them into (``look up``: ``lookup``, ``file name``: ``filename``), their short forms
too (``env`` + ``var``: ``envvar``; ``config`` + ``dir``: ``configdir``).
"""

from __future__ import annotations

from functools import cache

# Each line: the spellings of one word, the full word first.
_GROUPS = """
argument arg args argv
parameter param params
attribute attr attrs
authentication auth authn
authorization auth authz
buffer buf
callback cb
character char chr
command cmd
configuration config cfg conf
connection conn
context ctx
current cur curr
database db
decode dec
default defaults dflt
delete del rm remove
destination dest dst
dictionary dict
directory dir dirs folder
document doc docs
element elem el
encode enc
environment env environ
error err errno
exception exc
execute exec run
expression expr
file fd fp
format fmt
function func fn
identifier id ident
implementation impl
index idx
initialize init
integer int
iterator iter
length len
library lib
maximum max
message msg
minimum min
number num
object obj
option opt opts
package pkg
position pos
previous prev
process proc
property prop
reference ref
request req
response resp res
return ret
separator sep
sequence seq
source src
specification spec
statistics stats
string str
system sys
temporary tmp temp
utility util utils
value val
variable var vars
version ver
"""


@cache
def _spellings() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for line in _GROUPS.strip().splitlines():
        words = line.split()
        for word in words:
            out.setdefault(word, [])
            out[word].extend(other for other in words if other != word
                             and other not in out[word])
    return {word: tuple(others) for word, others in out.items()}


def spellings(word: str) -> tuple[str, ...]:
    """The other spellings of ``word`` in code (none when it has no common short form)."""
    return _spellings().get(word, ())


def short_forms(word: str) -> list[str]:
    """``word`` and its spellings of at most four letters (the ones code glues together)."""
    return [form for form in (word, *spellings(word)) if len(form) <= 4]


def glued(first: str, second: str) -> list[str]:
    """Names code makes of two neighbouring words: ``look`` + ``up`` -> ``lookup``,
    ``file`` + ``name`` -> ``filename``, ``env`` + ``var`` -> ``envvar``."""
    return list(dict.fromkeys([first + second, *(a + b for a in short_forms(first)
                                                  for b in short_forms(second))]))
