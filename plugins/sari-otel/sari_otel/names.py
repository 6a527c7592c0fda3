"""Attribute, span, event and instrument names.

Where OpenTelemetry has a semantic convention it is used: the MCP server conventions
(``mcp.method.name``, ``mcp.session.id``, ``mcp.protocol.version``,
``jsonrpc.request.id``, the ``mcp.server.operation.duration`` histogram), the GenAI
tool attributes (``gen_ai.operation.name=execute_tool``, ``gen_ai.tool.name``) and
``error.type``. Everything Sari-specific lives under ``sari.``.
"""

from __future__ import annotations

MCP_METHOD = "mcp.method.name"
MCP_SESSION_ID = "mcp.session.id"
MCP_PROTOCOL_VERSION = "mcp.protocol.version"
JSONRPC_REQUEST_ID = "jsonrpc.request.id"
GEN_AI_OPERATION = "gen_ai.operation.name"
GEN_AI_TOOL = "gen_ai.tool.name"
ERROR_TYPE = "error.type"

EXECUTE_TOOL = "execute_tool"
TOOLS_CALL = "tools/call"

SESSION_KEY = "sari.session.key"
EXECUTION_ID = "sari.execution.id"
CALL_OK = "sari.call.ok"
TARGET = "sari.target"
REASON_CODES = "sari.reason_codes"
TOKENS = "sari.response.tokens"
SESSION_METRIC_PREFIX = "sari.session."

POLICY_NAME = "sari.policy.name"
POLICY_HOOK = "sari.policy.hook"
POLICY_ACTION = "sari.policy.action"
POLICY_REASON_CODES = "sari.policy.reason_codes"
POLICY_ERROR_CODE = "sari.policy.error_code"
CHANGED_PATHS = "sari.changes.paths"

# On the engine's spans: what an operator filters on.
SEARCH_KIND = "sari.search.kind"
SEARCH_HITS = "sari.search.hits"
SEARCH_RETURNED = "sari.search.returned"
INDEX_STATE = "sari.index.state"  # ready | building
READ_MODE = "sari.read.mode"
READ_BYTES = "sari.read.bytes"  # UTF-8 bytes of the text the read returned
READ_LINES = "sari.read.lines"
WRITE_PATHS = "sari.write.paths"

VERDICT_EVENT = "sari.policy.verdict"
EXTERNAL_CHANGE_EVENT = "sari.external_change"
ENGINE_SPANS = {"read": "sari.engine.read", "search": "sari.engine.search",
                "write": "sari.engine.write"}

DURATION_METRIC = "mcp.server.operation.duration"
SESSION_DURATION_METRIC = "mcp.server.session.duration"
SESSIONS_METRIC = "sari.sessions.active"
CALLS_METRIC = "sari.calls"
REFUSALS_METRIC = "sari.refusals"
TOKENS_METRIC = "sari.tokens"
VERDICTS_METRIC = "sari.policy.verdicts"
# The MCP conventions' advisory buckets for operation durations, in seconds.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
