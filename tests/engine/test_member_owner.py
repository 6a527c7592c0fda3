"""A member whose class is named for the query's words ranks above a member of the same
name whose own text holds the words a little better: the class names what its members
are for."""

from __future__ import annotations

import pytest
from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search import word_search
from sari_core.engine.search.word_search import search_words

# Chunks that hold none of the query's words: they give the words their rarity.
HELPERS = "\n\n".join(f'def helper_{n}(value):\n    """Format value number {n}."""\n'
                      f'    return value + {n}\n' for n in range(8))
FILES = {
    "helpers.py": HELPERS,
    "senders.py": (
        "class QueueSender:\n"
        '    """Puts outgoing messages on a queue for a worker."""\n\n'
        "    def send(self, message, relay=None):\n"
        '        """Send the mail: a worker hands it to the smtp relay."""\n'
        "        self.queue.put(message.mail)\n\n\n"
        "class SmtpMailRelay:\n"
        '    """Talks to the server itself."""\n\n'
        "    def send(self, message):\n"
        '        """Send the mail now."""\n'
        "        self.connection.sendmail(message.mail)\n"),
}

workspace = module_workspace(FILES)


def senders(workspace: Workspace) -> list[str]:
    hits = search_words(workspace.store, "send mail through the smtp relay", 10)[0]
    return [hit.scope for hit in hits if hit.scope.endswith(".send")]


def test_the_member_of_the_class_named_for_the_query_comes_first(
        workspace: Workspace) -> None:
    assert senders(workspace) == ["SmtpMailRelay.send", "QueueSender.send"]


def test_without_the_class_name_the_words_alone_decide(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_search, "OWNER", 0.0)
    assert senders(workspace)[0] == "QueueSender.send"
