"""sari-lspgate: the LSP Feedback Gate — real language servers validate every
edit, and the session is gated while the errors an edit introduced are open."""

from sari_lspgate.plugin import LspGatePlugin
from sari_lspgate.settings import LspGateSettings

__all__ = ["LspGatePlugin", "LspGateSettings"]
