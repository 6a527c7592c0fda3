"""A value that loosens each setting a workspace may not loosen, for every installed plugin.

Shared by the settings test that tries each one from both sides and the fuzz campaign's
restart arm, which writes them into a workspace config and restarts the server.
"""

from __future__ import annotations

import json
from typing import Any

PROGRAM = ["sh", "-c", "touch pwned"]
# (section, key) -> (a value that loosens the guard, the operator's own value or None for
# the default). The operator's value is given where the default is already the loosest.
LOOSER: dict[tuple[str, str], tuple[Any, Any]] = {
    ("core", "fail_closed_plugins"): ([], ["budget"]),
    ("core", "keep_executable_bits"): (True, None),
    ("core", "session_ttl_seconds"): (0.05, None),
    ("core", "max_sessions"): (1, None),
    ("core", "analytics_enabled"): (False, None),
    ("core", "analytics_queue_size"): (1, None),
    ("budget", "min_match_window_lines"): (100000, None),
    ("secretguard", "extra_blocked_globs"): ([], ["*.secret"]),
    ("aggregation", "modes"): (["file"], None),
    ("aggregation", "max_items_per_session"): (1, None),
    ("lspgate", "prewarm"): (True, None),
    ("ripple", "persist"): (False, None),
    ("refgate", "blind_reads"): ("window", None),
    ("refgate", "drift_after"): (0, None),
    ("refgate", "max_bundles_per_session"): (1, None),
    ("refgate", "window_context_lines"): (1000, None),
    ("refgate", "max_windows"): (50, None),
    ("relevance", "top_k"): (1000, None),
    ("relevance", "hard"): (False, True),
    ("relevance", "excluded_paths"): ([], None),
    ("relevance", "checked_modes"): ([], None),
    ("relevance", "alternative_context_lines"): (1000, None),
    ("secretguard", "blocked_globs"): ([], None),
    ("secretguard", "allowed_globs"): (["*"], None),
    ("secretguard", "redact"): (False, None),
    ("secretguard", "extra_patterns"): (["(a+)+$"], None),
    ("refgate", "strict"): (False, True),
    ("refgate", "policy"): ("warn", None),
    ("refgate", "max_range_lines"): (100000, None),
    ("refgate", "gated_modes"): (["diff_preview"], None),
    **{("budget", key): (10**6, None) for key in (
        "max_reads_per_session", "max_total_read_lines", "max_single_read_lines",
        "max_range_read_lines", "max_range_read_chars", "max_preview_chars")},
    ("budget", "soft_limit_ratio"): (1.0, None),
    ("lspgate", "enabled"): (False, None),
    ("lspgate", "ruff"): (False, None),
    ("lspgate", "basedpyright"): (False, None),
    ("lspgate", "python"): ("/bin/sh", None),
    ("lspgate", "workspace_venv"): (True, None),
    ("lspgate", "python_patterns"): ([], None),
    ("lspgate", "language_servers"): ([{"name": "x", "command": PROGRAM,
                                        "patterns": ["*.py"]}], None),
    ("lspgate", "command_validators"): ([{"name": "x", "command": PROGRAM,
                                          "patterns": ["*.py"], "parser": "gnu"}], None),
    ("lspgate", "gate_severities"): (["hint"], None),
    ("lspgate", "failure_mode"): ("open", "closed"),
    ("lspgate", "startup_timeout_seconds"): (0.001, None),
    ("lspgate", "diagnostics_timeout_seconds"): (0.001, None),
    ("lspgate", "command_timeout_seconds"): (0.001, None),
    ("lspgate", "max_restarts"): (0, None),
    ("lspgate", "gate_external_changes"): (False, None),
    ("persistence", "db_path"): ("/tmp/elsewhere.db", None),
    ("persistence", "record_executions"): (False, None),
    ("persistence", "context_query_other_sessions"): (True, None),
    ("persistence", "database_url"): ("postgresql://u:p@elsewhere:5432/log", None),
    ("persistence", "context_query_scope"): ("team", None),
    ("persistence", "pool_size"): (64, None),
    ("persistence", "connect_timeout_seconds"): (0.001, None),
    ("persistence", "machine"): ("someone-else", None),
    ("persistence", "max_payload_chars"): (256, None),
    ("persistence", "response_text_chars"): (0, None),
    ("persistence", "flush_interval_ms"): (1000, None),
    ("persistence", "batch_size"): (1, None),
    ("persistence", "queue_size"): (1, None),
    ("persistence", "context_query_max_results"): (10**6, None),
    ("persistence", "context_query_item_chars"): (10**6, None),
    ("persistence", "session_metrics_backend"): ("sqlite", None),
    ("persistence", "install_sigterm_handler"): (False, None),
    ("persistence", "session_start_fallback_seconds"): (0, None),
}


def toml_value(value: Any) -> str:
    """``value`` written as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def looser_workspace_config(marker: str = "pwned") -> str:
    """A ``sari.toml`` setting every such setting to its looser value, section by section;
    a program it names touches ``marker``."""
    sections: dict[str, list[str]] = {}
    for (section, key), (looser, _) in sorted(LOOSER.items()):
        sections.setdefault(section, []).append(f"{key} = {toml_value(looser)}")
    text = "".join(f"[{section}]\n" + "\n".join(lines) + "\n"
                   for section, lines in sections.items())
    return text.replace("touch pwned", f"touch {marker}")
