"""A file that answers a query in several places ranks above one whose single chunk holds
the words a little better; the files' places are the words', whatever meaning adds."""

from __future__ import annotations

import pytest
from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search import word_search
from sari_core.engine.search.word_search import search_words

# Chunks that hold none of the query's words: they give the words their rarity.
HELPERS = filler_functions(8)
FILES = {
    "helpers.py": HELPERS,
    # One function that mentions the words on its way to something else.
    "accounts.py": (
        "def close_account(user):\n"
        '    """Close the account: its uploads and storage quota are released."""\n'
        "    user.closed = True\n"
        "    user.sessions.clear()\n"
        "    notify(user.email, 'closed')\n"
        "    archive(user.history)\n"
        "    audit.write(user.name, 'closed')\n"
        "    user.tokens.revoke_all()\n"
        "    user.groups.leave_all()\n"
        "    user.invoices.settle()\n"
        "    user.devices.forget()\n"
        "    user.mailbox.archive()\n"
        "    user.save()\n"),
    # The module about the question: the check itself, and the functions beside it that
    # say the same things.
    "quota.py": (
        "def over_quota(user, size):\n"
        '    """Whether an upload would pass the storage quota."""\n'
        "    return user.used + size > user.limit\n\n\n"
        "def quota_left(user):\n"
        '    """Storage left before the quota is reached."""\n'
        "    return user.limit - user.used\n\n\n"
        "def record_upload(user, size):\n"
        '    """Count an upload against the quota."""\n'
        "    user.used += size\n"),
}

workspace = module_workspace(FILES)


def paths(workspace: Workspace, query: str) -> list[str]:
    hits = search_words(workspace.store, query, 10)[0]
    return list(dict.fromkeys(hit.path for hit in hits))


def test_a_file_answering_in_several_places_comes_first(workspace: Workspace) -> None:
    assert paths(workspace, "release the storage quota of uploads")[:2] == [
        "quota.py", "accounts.py"]


def test_placing_files_again_keeps_each_file_s_own_order(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    def own_order() -> list[str]:
        hits = search_words(workspace.store, "release the storage quota of uploads", 10)[0]
        return [hit.scope for hit in hits if hit.path == "quota.py"]

    placed = own_order()
    monkeypatch.setattr(word_search, "FILE_EVIDENCE", 0.0)
    assert placed == own_order()
    assert len(placed) == 3
