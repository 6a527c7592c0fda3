"""Editing a client's config file without losing anything already in it.

Every change is computed in memory first, checked (the other entries must come
out unchanged), then written atomically after a timestamped backup of the old
file into Sari's state folder. TOML is edited with tomlkit, which keeps a user's comments
and layout.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.items

from sari_core.locations import private_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigFileError(Exception):
    """The file cannot be updated safely; the message says why and what to do."""


def read_json_object(path: Path) -> dict[str, Any]:
    """The file's JSON object, ``{}`` when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError(f"{path} is not valid JSON ({exc}); fix or move it, then rerun "
                              "(nothing was changed).") from exc
    if not isinstance(data, dict):
        raise ConfigFileError(f"{path} does not hold a JSON object; nothing was changed.")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def with_json_server(data: dict[str, Any], name: str, entry: dict[str, Any],
                     path: Path, key: str = "mcpServers") -> dict[str, Any]:
    """A copy of ``data`` whose ``key`` table has ``name`` set to ``entry``, others untouched."""
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise ConfigFileError(f"{path}: {key!r} is not an object; nothing was changed.")
    updated = dict(data)
    updated[key] = {**servers, name: entry}
    return updated


def _entry(values: dict[str, str | list[str]], inline: bool = False) -> Any:
    entry = tomlkit.inline_table() if inline else tomlkit.table()
    for key, value in values.items():
        entry[key] = value
    return entry


def toml_table(header: str, values: dict[str, str | list[str]]) -> str:
    """``[header]`` (``"table.name"``) holding ``values``, as TOML text."""
    table, _, name = header.partition(".")
    document = tomlkit.document()
    outer = tomlkit.table(is_super_table=True)
    outer.add(name, _entry(values))
    document.add(table, outer)
    return tomlkit.dumps(document)


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{path} is not valid TOML ({exc}); fix it, then rerun "
                              "(nothing was changed).") from exc


def _rewritten_table(existing: tomlkit.items.Table,
                     values: dict[str, str | list[str]]) -> tomlkit.items.Table:
    """``existing`` with exactly ``values``, built anew through tomlkit's public API.

    Comments and blank lines stay where they were, a kept key keeps its own comment, and a
    new key goes right after the key before it in ``values`` (not after the comments that
    close the table). The header keeps its comment and indent.
    """
    order = list(values)
    after: dict[str | None, list[str]] = {}
    for index, key in enumerate(order):
        if key not in existing:
            anchor = next((k for k in reversed(order[:index]) if k in existing), None)
            after.setdefault(anchor, []).append(key)
    table = tomlkit.table()
    for key in after.get(None, []):
        table.add(key, values[key])
    for key, item in existing.value.body:
        if key is None:  # a comment or a blank line
            if isinstance(item, (tomlkit.items.Comment, tomlkit.items.Whitespace)):
                table.add(item)
            continue
        name = key.key
        if name not in values:
            continue
        if isinstance(item, tomlkit.items.Item) and not isinstance(item, tomlkit.items.Table):
            replaced = tomlkit.item(values[name])
            replaced.trivia.comment_ws = item.trivia.comment_ws
            replaced.trivia.comment = item.trivia.comment
            replaced.trivia.indent = item.trivia.indent
            replaced.trivia.trail = item.trivia.trail
            table.add(key, replaced)
        else:
            table.add(key, values[name])
        for extra in after.get(name, []):
            table.add(extra, values[extra])
    header = existing.trivia
    table.trivia.indent = header.indent
    table.trivia.comment_ws = header.comment_ws
    table.trivia.comment = header.comment
    table.trivia.trail = header.trail
    return table


def with_toml_server(text: str, table: str, name: str, values: dict[str, str | list[str]],
                     path: Path) -> str:
    """``text`` with ``table.name`` set to ``values``, edited with tomlkit: comments, order
    and layout of everything else are kept, and an entry written inline stays inline.

    The result is re-parsed and must leave every other value exactly as it was; a form the
    edit cannot rewrite cleanly (dotted keys) is refused with what to do instead.
    """
    before = _parse_toml(text, path)
    document = tomlkit.parse(text)
    servers = document.get(table)
    if servers is None:
        outer = tomlkit.table(is_super_table=True)
        outer.add(name, _entry(values))
        document.add(table, outer)
    elif isinstance(servers, (tomlkit.items.Table, tomlkit.items.InlineTable)):
        existing = servers.get(name)
        if isinstance(existing, tomlkit.items.Table):
            servers[name] = _rewritten_table(existing, values)
        else:
            inline = isinstance(servers, tomlkit.items.InlineTable) \
                or isinstance(existing, tomlkit.items.InlineTable)
            servers[name] = _entry(values, inline=inline)
    else:
        raise ConfigFileError(f"{path}: {table!r} is not a table; nothing was changed.")
    updated = tomlkit.dumps(document)
    if not updated.endswith("\n"):
        updated += "\n"
    after = _parse_toml(updated, path)
    expected = {key: value for key, value in before.items() if key != table}
    got = {key: value for key, value in after.items() if key != table}
    others_before = {k: v for k, v in before.get(table, {}).items() if k != name}
    others_after = {k: v for k, v in after.get(table, {}).items() if k != name}
    if got != expected or others_before != others_after or after[table][name] != values:
        raise ConfigFileError(f"{path}: could not set {table}.{name} without touching other "
                              "entries (dotted keys?); add the --print snippet by hand "
                              "(nothing was changed).")
    return updated


def backup(path: Path, folder: Path) -> Path:
    """Copy ``path`` into ``folder`` as ``<where>-<name>.<timestamp>.bak`` (never overwriting).

    Backups live in Sari's state folder, not next to the file: a project's config file
    sits in a git work tree, where a backup would show up as an untracked file. The
    name starts with a digest of the file's folder, so two projects' ``.mcp.json``
    backups never mix.
    """
    private_dir(folder)
    where = hashlib.sha256(str(path.resolve().parent).encode("utf-8")).hexdigest()[:12]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{where}-{path.name}.{stamp}.bak"
    counter = 1
    while target.exists():
        target = folder / f"{where}-{path.name}.{stamp}-{counter}.bak"
        counter += 1
    shutil.copy2(path, target)
    return target


def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder and a rename; keeps the file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
