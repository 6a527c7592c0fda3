"""Scan: search answered by ripgrep over the workspace instead of the index.

Before the first index exists (:mod:`.scan`, :mod:`.scan_search`, :mod:`.scan_words`),
and for the regex searches ripgrep answers faster (:mod:`.regex_routing`); ripgrep's
command lines (:mod:`.rg_command`).
"""
