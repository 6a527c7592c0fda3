"""What a plugin is handed and declares: the kernel view, the checked plugin attributes,
and the engine's optional capabilities found by protocol."""

from __future__ import annotations

from pathlib import Path

import pluggy
import pytest

from sari_core import (
    CountsReferences,
    IndexesDefinitions,
    Kernel,
    KernelView,
    ListsMatchingFiles,
    NamesFiles,
    Plugin,
    SearchCall,
    Session,
    hookimpl,
)
from sari_core.engine import Workspace
from sari_core.kernel.plugin import declared_attributes
from sari_core.testing import MemoryEngine

FILES = {"a.py": "def alpha():\n    return 1\n"}


class Recorder(Plugin):
    name = "recorder"

    def __init__(self) -> None:
        self.started: object = None
        self.stopped: object = None

    @hookimpl
    def on_kernel_start(self, kernel: KernelView) -> None:
        self.started = kernel

    @hookimpl
    def on_kernel_shutdown(self, kernel: KernelView) -> None:
        self.stopped = kernel


def test_lifecycle_hooks_are_handed_a_view_not_the_kernel() -> None:
    recorder = Recorder()
    kernel = Kernel(MemoryEngine(FILES), plugins=[recorder], load_entry_points=False,
                    analytics_sinks=[])
    view = recorder.started
    assert isinstance(view, KernelView) and view is not kernel
    assert view.roots == tuple(kernel.roots)
    assert view.engine is kernel.engine
    assert view.settings.get("core") is kernel.core
    assert view.workspace_hash == kernel.workspace_hash
    assert not hasattr(view, "pm") and not hasattr(view, "sessions")
    kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "s1"})
    assert len(list(view.live_sessions())) == 1
    kernel.close()
    assert recorder.stopped is view


def test_the_view_lets_a_plugin_watch_hook_calls_and_stop() -> None:
    kernel = Kernel(MemoryEngine(FILES), plugins=[Recorder()], load_entry_points=False,
                    analytics_sinks=[])
    seen: list[str] = []
    stop = kernel.view.watch_hook_calls(lambda name, impls, kwargs: seen.append(name),
                                        lambda outcome, name, impls, kwargs: None)
    kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "s1"})
    stop()
    count = len(seen)
    kernel.execute_read({"mode": "file", "target": "a.py", "session_id": "s1"})
    kernel.close()
    assert "on_read_exit" in seen and len(seen) == count


def test_plugin_defaults_and_declared_attributes() -> None:
    class Bare:
        pass

    assert declared_attributes(Bare()).fail_closed is False
    assert declared_attributes(Bare()).client_hook_events is None
    declared = declared_attributes(type("Gate", (Plugin,), {
        "name": "gate", "fail_closed": True,
        "client_hook_events": frozenset({("claude-code", "pre-compact")})})())
    assert declared.name == "gate" and declared.fail_closed
    assert declared.client_hook_events == {("claude-code", "pre-compact")}


@pytest.mark.parametrize(("attribute", "value"), [
    ("fail_closed", "yes"),
    ("client_hook_events", "claude-code"),
    ("client_hook_events", {("claude-code",)}),
    ("name", 3),
])
def test_a_plugin_attribute_of_the_wrong_type_is_refused_at_registration(
        attribute: str, value: object) -> None:
    class Odd:
        @hookimpl
        def on_read_enter(self) -> None:
            return None

    odd = Odd()
    setattr(odd, attribute, value)
    with pytest.raises(pluggy.PluginValidationError, match=attribute):
        Kernel(MemoryEngine(FILES), plugins=[odd], load_entry_points=False, analytics_sinks=[])


def test_optional_engine_capabilities_are_found_by_protocol(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(FILES["a.py"])
    workspace = Workspace([tmp_path])
    try:
        workspace.ensure_index(progress=False)
        assert isinstance(workspace, ListsMatchingFiles)
        assert isinstance(workspace, CountsReferences)
        assert isinstance(workspace, IndexesDefinitions)
        assert isinstance(workspace, NamesFiles)
        assert [d.name for d in workspace.definitions("alpha", "exact")] == ["alpha"]
    finally:
        workspace.close()
    memory = MemoryEngine(FILES)
    assert not isinstance(memory, ListsMatchingFiles | CountsReferences | IndexesDefinitions)


def test_a_session_over_an_engine_without_a_capability_answers_none() -> None:
    kernel = Kernel(MemoryEngine(FILES), load_entry_points=False, analytics_sinks=[])
    session: Session = kernel.session("s1")
    try:
        assert session.matching_files(SearchCall(query="alpha")) is None
        assert session.reference_counts() is None
    finally:
        kernel.close()
