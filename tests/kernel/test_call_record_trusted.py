"""``CallRecord.trusted``: the kernel's fast construction equals a validated record."""

from __future__ import annotations

import pickle

from sari_core.models import CallRecord

VALUES = dict(execution_id="ex-1", tool="read", session_key="ws:0123456789ab:sid:s",
              arguments={"mode": "file", "target": "a.py"}, ok=False, target="a.py",
              error_code="NOT_FOUND", reason_codes=["PREVIEW_DEGRADED"], duration_ms=1.5,
              timestamp=1700000000.25, response={"ok": False, "meta": {}},
              native="claude-code:Read")


def test_trusted_record_is_indistinguishable_from_a_validated_one() -> None:
    trusted = CallRecord.trusted(**VALUES)
    validated = CallRecord.model_validate(VALUES)
    assert trusted == validated
    assert trusted.model_dump() == validated.model_dump()
    assert trusted.model_dump_json() == validated.model_dump_json()
    assert trusted.model_fields_set == validated.model_fields_set
    assert trusted.model_copy(update={"ok": True}).ok is True and trusted.ok is False
    assert pickle.loads(pickle.dumps(trusted)) == validated
    assert repr(trusted) == repr(validated)
