"""A constructor stores its arguments under the names its whole class uses, so it holds the
words of what its methods do: among its file's chunks it comes after the method that does
what was asked, unless the query asks to create."""

from __future__ import annotations

from indexed_files import filler_functions, module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import search_words

# Other code, so that the query's words are rare in the workspace, as they are in a real one.
FILES = {
    "helpers.py": filler_functions(12),
    "signing.py": (
        "class Signer:\n"
        "    def __init__(self, secret_key, salt, key_derivation, digest_method):\n"
        "        self.secret_keys = [secret_key]\n"
        "        self.salt = salt or b'signer salt'\n"
        "        self.key_derivation = key_derivation or 'salted key'\n"
        "        self.digest_method = digest_method\n\n"
        "    def derive_key(self):\n"
        '        """The signing key."""\n'
        "        return self.digest_method(self.salt + self.secret_keys[-1])\n"),
}

workspace = module_workspace(FILES)


def _members(query: str, workspace: Workspace) -> list[str]:
    return [hit.scope for hit in search_words(workspace.store, query, 10)[0]
            if hit.scope.startswith("Signer.")]


def test_the_method_doing_it_comes_before_the_constructor(workspace: Workspace) -> None:
    # By its words alone the constructor is first: it names the secret key and the salt
    # again and again.
    assert _members("the key made from the secret key and the salt", workspace)[:2] == [
        "Signer.derive_key", "Signer.__init__"]


def test_a_query_asking_to_create_finds_the_constructor_first(workspace: Workspace) -> None:
    assert _members("create a signer from the secret key and the salt", workspace)[0] == \
        "Signer.__init__"
