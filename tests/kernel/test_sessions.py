"""Session keys, strict mode, and the bounded runtime state."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from sari_core import Kernel, hookimpl
from sari_core.kernel.sessions import (
    RuntimeStateStore,
    SessionIdRequired,
    canonical_root,
    resolve_session_key,
    workspace_hash,
)
from sari_core.testing import MemoryEngine


def test_workspace_hash_is_sha1_of_the_canonical_root(tmp_path: Path) -> None:
    real = tmp_path / "repo"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    expected = hashlib.sha1(os.path.realpath(real).encode()).hexdigest()[:12]
    assert workspace_hash(real) == expected
    assert workspace_hash(link) == expected  # realpath
    assert workspace_hash(str(real) + "/") == expected
    assert canonical_root(real).startswith("/") and "\\" not in canonical_root(real)


def test_home_is_expanded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert workspace_hash("~") == workspace_hash(tmp_path)


def test_key_format(tmp_path: Path) -> None:
    digest = workspace_hash(tmp_path)
    assert resolve_session_key(tmp_path, session_id="abc", connection_id="c-1") \
        == f"ws:{digest}:sid:abc"
    assert resolve_session_key(tmp_path, session_id=None, connection_id="c-1") \
        == f"ws:{digest}:conn:c-1"
    assert len(digest) == 12 and all(ch in "0123456789abcdef" for ch in digest)


def test_strict_mode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(SessionIdRequired):
        resolve_session_key(tmp_path, session_id=None, connection_id="c", strict=True)
    monkeypatch.setenv("SARI_STRICT_SESSION_ID", "1")
    kernel = Kernel(MemoryEngine({"a.py": "x\n"}), load_entry_points=False, analytics_sinks=[])
    refused = kernel.execute_read({"mode": "file", "target": "a.py"})
    assert refused["ok"] is False
    assert refused["error"]["code"] == "SESSION_ID_REQUIRED"
    assert refused["meta"]["stabilization"]["reason_codes"] == ["SESSION_ID_REQUIRED"]
    served = kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "s1"})
    assert served["ok"] is True
    kernel.close()


def test_client_connection_ids_are_not_keys() -> None:
    kernel = Kernel(MemoryEngine({"a.py": "x\n"}), load_entry_points=False, analytics_sinks=[])
    one = kernel.session(None, "server-conn", client_connection_id="client-A")
    two = kernel.session(None, "server-conn", client_connection_id="client-B")
    assert one.key == two.key and "client" not in one.key
    kernel.close()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_lru_eviction() -> None:
    evicted = []
    store = RuntimeStateStore(max_sessions=2, ttl_seconds=100, clock=FakeClock(),
                              on_evict=lambda s: evicted.append(s.key))
    store.get("a")
    store.get("b")
    store.get("a")  # a is now most recent
    store.get("c")  # evicts b
    assert store.keys() == ["a", "c"]
    assert evicted == ["b"]


def test_ttl_eviction() -> None:
    clock = FakeClock()
    evicted = []
    store = RuntimeStateStore(max_sessions=10, ttl_seconds=60, clock=clock,
                              on_evict=lambda s: evicted.append(s.key))
    first, created = store.get("a")
    first.namespace("p", dict)["x"] = 1
    clock.now = 30
    store.get("b")
    clock.now = 61  # a idle 61 s, b idle 31 s
    assert [s.key for s in store.expire()] == ["a"]
    again, created = store.get("a")
    assert created and again.namespace("p", dict) == {}
    clock.now = 200
    store.get("c")
    assert "b" in evicted and store.keys() == ["c"]


def test_store_is_thread_safe() -> None:
    store = RuntimeStateStore(max_sessions=50, ttl_seconds=1000)

    def work(offset: int) -> None:
        for i in range(2000):
            state, _ = store.get(f"k{(i + offset) % 80}")
            with state.lock:
                counter = state.namespace("n", lambda: [0])
                counter[0] += 1

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store) == 50


def test_session_end_hook_fires_on_eviction() -> None:
    ended = []

    class Observer:
        @hookimpl
        def on_session_start(self, session) -> None:
            ended.append(("start", session.key))

        @hookimpl
        def on_session_end(self, session) -> None:
            ended.append(("end", session.key))

    kernel = Kernel(MemoryEngine({"a.py": "x\n"}), plugins=[Observer()], load_entry_points=False,
                    analytics_sinks=[], settings={"core": {"max_sessions": 1}})
    kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "one"})
    kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "two"})
    keys = [key.rsplit(":", 1)[-1] for _, key in ended]
    # the LRU evicts "one" while admitting "two", before "two" starts
    assert [kind for kind, _ in ended] == ["start", "end", "start"]
    assert keys == ["one", "one", "two"]
    kernel.close()
