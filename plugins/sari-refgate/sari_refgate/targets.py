"""Kept so ``sari_refgate.targets`` still imports: the comparison forms live in :mod:`sari_core.targets`."""

from sari_core import normalize_path, symbol_names, words

__all__ = ["normalize_path", "symbol_names", "words"]
