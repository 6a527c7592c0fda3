"""The plugin-facing API: dispatch through pluggy, the call context, strict verdicts."""

from __future__ import annotations

import logging
import sys
import textwrap
from pathlib import Path
from typing import Any

import pluggy
import pytest
from pydantic import ValidationError

from sari_core import CallContext, Kernel, Session, Verdict, hookimpl
from sari_core.kernel.manager import SariPluginManager
from sari_core.kernel.reasons import ReasonRegistry
from sari_core.kernel.stabilization import StabilizationField
from sari_core.kernel.verdicts import FoldedVerdict
from sari_core.models import ReadCall
from sari_core.testing import MemoryEngine

FILES = {"a.py": "".join(f"line {i}\n" for i in range(1, 41))}
READ = {"mode": "file", "target": "a.py", "session_id": "s"}


def kernel_with(*plugins: object) -> Kernel:
    return Kernel(MemoryEngine(FILES), plugins=plugins, load_entry_points=False,
                  builtins=False, analytics_sinks=[])


class Warner:
    name = "warner"

    @hookimpl
    def on_read_enter(self, call: ReadCall) -> Verdict:
        return Verdict.warn("PREVIEW_DEGRADED", message=f"saw {call.target}")


def test_policy_hooks_go_through_pluggy_so_call_monitoring_sees_them() -> None:
    kernel = kernel_with(Warner())
    seen: list[tuple[str, list[str]]] = []
    kernel.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append((name, [i.plugin_name for i in impls])),
        lambda outcome, name, impls, kwargs: None)
    kernel.execute_read(READ)
    assert ("on_read_enter", ["warner"]) in seen
    kernel.close()


def test_trace_env_prints_each_hook_call_with_plugins_verdicts_and_time(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SARI_TRACE_PLUGINS", "1")
    kernel = kernel_with(Warner())
    kernel.execute_read(READ)
    kernel.close()
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("sari trace: on_read_enter")]
    assert lines and "[warner] -> warner: warn(PREVIEW_DEGRADED)" in lines[0]
    assert lines[0].endswith("µs)")


class FirstSpecs:
    @pluggy.HookspecMarker("sari")(firstresult=True)
    def sari_pick(self) -> str | None:
        """A firstresult hook (test only)."""


def test_spec_options_are_honoured_firstresult_returns_the_first_answer() -> None:
    pm = SariPluginManager()
    pm.add_hookspecs(FirstSpecs)

    class Picker:
        def __init__(self, name: str) -> None:
            self.name = name

        @hookimpl
        def sari_pick(self) -> str:
            return self.name

    for name in ("zeta", "alpha", "mid"):
        pm.register(Picker(name), name=name)
    # pluggy's own rule: one value, from the plugin registered last
    assert pm.call_each("sari_pick") == "mid" == pm.hook.sari_pick()

    class Early(Picker):
        @hookimpl(tryfirst=True)
        def sari_pick(self) -> str:
            return self.name

    pm.register(Early("early"), name="early")
    assert pm.call_each("sari_pick") == "early"


def test_pluggy_runs_every_call_and_a_failing_plugin_is_still_isolated() -> None:
    """A direct ``pm.hook`` call is the kernel's call: same answers, same isolation,
    and pluggy's monitoring sees it."""

    class Fails:
        name = "fails"

        @hookimpl
        def sari_collect_metrics(self, session: object) -> dict[str, int]:
            raise RuntimeError("broken")

    class Counts:
        name = "counts"

        @hookimpl
        def sari_collect_metrics(self, session: object, ctx: object = "own default"
                                 ) -> dict[str, object]:
            return {"ctx": ctx}

    pm = SariPluginManager()
    pm.register(Fails())
    pm.register(Counts())
    seen: list[str] = []
    pm.add_hookcall_monitoring(lambda name, impls, kwargs: seen.append(name),
                               lambda outcome, name, impls, kwargs: None)
    direct = pm.hook.sari_collect_metrics(session=None, ctx="given")
    assert sorted(direct, key=lambda r: r.plugin) == sorted(
        pm.call_each("sari_collect_metrics", session=None, ctx="given"), key=lambda r: r.plugin)
    failure = next(r for r in direct if r.plugin == "fails")
    assert failure.failure == "RuntimeError: broken"
    # whatever pluggy hands a defaulted argument, the kernel's call hands the same
    counted = next(r for r in direct if r.plugin == "counts")
    assert pm.metrics(session=None, ctx="given")["ctx"] == counted.value["ctx"]
    assert seen == ["sari_collect_metrics"] * 3
    assert isinstance(pm.get_plugin("counts"), Counts)
    assert pm.unregister(name="fails").__class__ is Fails
    assert pm.implementers("sari_collect_metrics") == ["counts"]


@pytest.mark.filterwarnings("ignore:Argument")
def test_a_kernel_side_argument_error_is_the_kernels_not_a_plugin_error() -> None:
    kernel = kernel_with(Warner())
    call = ReadCall(mode="file", target="a.py")
    # A hook called without an argument the plugin declares: the caller's bug, raised
    # (the server answers INTERNAL_ERROR), never folded into the plugin's PLUGIN_ERROR.
    with pytest.raises(pluggy.HookCallError, match="call"):
        kernel.pm.call_each("on_read_enter", calls=call, session=None, ctx=None)
    kernel.close()


def test_hook_wrappers_are_refused_at_registration() -> None:
    class Wrapper:
        @hookimpl(wrapper=True)
        def on_read_enter(self, call: ReadCall) -> Any:
            return (yield)

    pm = SariPluginManager()
    with pytest.raises(pluggy.PluginValidationError, match="cannot be a wrapper"):
        pm.register(Wrapper(), name="wrapper")
    assert pm.get_plugin("wrapper") is None


def test_verdict_constructors_refuse_misspelt_arguments() -> None:
    with pytest.raises(TypeError, match="next_cal"):
        Verdict.block("X", message="m", next_cal=())  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="next_cal"):
        Verdict(action="block", message="m", next_cal=())  # type: ignore[call-arg]
    assert not hasattr(Verdict, "clamp")  # one name for narrowing: Verdict.narrow
    assert Verdict.narrow("X", to={"limit": 3}).narrow_to == {"limit": 3}


def test_merging_two_folds_takes_the_smaller_narrow_and_keeps_both_annotations() -> None:
    registry = ReasonRegistry.with_kernel_codes()
    enter = FoldedVerdict(narrow_to={"limit": 5, "offset": 9},
                          annotations={"p": {"at_enter": 1}})
    exit_ = FoldedVerdict(narrow_to={"limit": 9}, annotations={"p": {"at_exit": 2}})
    merged = enter.merge(exit_, registry)
    assert merged.narrow_to == {"limit": 5, "offset": 9}
    assert merged.annotations == {"p": {"at_enter": 1, "at_exit": 2}}


def test_metric_key_clash_is_reported_and_the_first_plugin_by_name_keeps_it(
        caplog: pytest.LogCaptureFixture) -> None:
    class Metrics:
        def __init__(self, name: str, value: int) -> None:
            self.name, self.value = name, value

        @hookimpl
        def sari_collect_metrics(self) -> dict[str, int]:
            return {"reads": self.value, f"{self.name}_own": 1}

    kernel = kernel_with(Metrics("zz", 2), Metrics("aa", 1))
    with caplog.at_level(logging.ERROR):
        metrics = kernel.execute_read(READ)["meta"]["stabilization"]["metrics_snapshot"]
    assert metrics == {"aa_own": 1, "reads": 1, "zz_own": 1}
    assert any("'reads'" in r.message and "'zz'" in r.message and "'aa'" in r.message
               for r in caplog.records)
    kernel.close()


def test_the_call_context_links_enter_exit_and_completion_of_one_call() -> None:
    seen: list[tuple[str, str, Any]] = []

    class Linker:
        name = "linker"

        @hookimpl
        def on_read_enter(self, ctx: CallContext) -> None:
            ctx.scratch["linker"] = ctx.call_id

        @hookimpl
        def on_read_exit(self, ctx: CallContext) -> None:
            seen.append(("exit", ctx.call_id, ctx.scratch.get("linker")))

        @hookimpl
        def on_call_complete(self, ctx: CallContext, session: Session) -> None:
            seen.append((ctx.tool, ctx.call_id, ctx.scratch.get("linker")))
            assert ctx.session is session

    kernel = kernel_with(Linker())
    first = kernel.execute_read(READ)["meta"]["execution_id"]
    second = kernel.execute_read(READ)["meta"]["execution_id"]
    assert seen == [("exit", first, first), ("read", first, first),
                    ("exit", second, second), ("read", second, second)]
    kernel.close()


def test_session_offers_the_plugin_surface_and_not_the_kernel() -> None:
    kernel = kernel_with()
    session = kernel.session("s")
    assert not hasattr(session, "kernel") and not hasattr(session, "state")
    with session.lock:
        assert session.workspace_id == kernel.workspace_hash
    probe = session.probe_read(ReadCall(mode="file", target="a.py"))
    assert probe.total_lines == 40
    assert session.file_lines("a.py") == 40
    assert session.file_lines("missing.py") is None  # no length, no exception
    assert session.file_lines("../outside.py") is None  # nor a way out of the workspace
    kernel.close()


DENIED_SOURCE = textwrap.dedent('''
    from sari_core import hookimpl

    @hookimpl
    def on_read_enter(call):
        return None
''')


def test_deny_listed_and_not_allow_listed_plugins_are_never_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("denied", "unlisted", "wanted"):
        module = f"sari_never_{name}"
        (tmp_path / f"{module}.py").write_text(DENIED_SOURCE)
        info = tmp_path / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[sari]\n{name} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SARI_PLUGINS", "denied,wanted")
    monkeypatch.setenv("SARI_DISABLE_PLUGINS", "denied")
    pm = SariPluginManager()
    infos = pm.load_entry_points()
    assert "sari_never_denied" not in sys.modules
    assert "sari_never_unlisted" not in sys.modules
    assert "sari_never_wanted" in sys.modules
    loaded = {info.distribution for info in infos if info.enabled}
    assert "sari_never_wanted" in loaded and "sari_never_denied" not in loaded


class Annotator:
    name = "annotator"

    def __init__(self, fields: list[StabilizationField]) -> None:
        self.fields = fields

    @hookimpl
    def sari_register_stabilization_fields(self) -> list[StabilizationField]:
        return self.fields

    @hookimpl
    def on_read_enter(self) -> Verdict:
        return Verdict.allow(annotations={"level": "high", "ref": "r-1", "note": "n"})


def test_registered_annotation_keys_are_published_at_the_top_of_stabilization() -> None:
    fields = [StabilizationField("level", default="low", placement="first",
                                 severity=("low", "high")), StabilizationField("ref")]
    kernel = kernel_with(Annotator(fields))
    stab = kernel.execute_read(READ)["meta"]["stabilization"]
    assert list(stab) == ["level", "suggested_next_action", "warnings", "reason_codes",
                          "metrics_snapshot", "next_calls", "ref", "annotations"]
    assert (stab["level"], stab["ref"], stab["annotations"]) == ("high", "r-1",
                                                                 {"annotator": {"note": "n"}})
    kernel.close()
    plain = kernel_with(Annotator([]))  # nothing registered: the kernel lifts nothing
    stab = plain.execute_read(READ)["meta"]["stabilization"]
    assert "level" not in stab
    assert stab["annotations"] == {"annotator": {"level": "high", "ref": "r-1", "note": "n"}}
    plain.close()


def test_the_kernel_vocabulary_holds_no_policy_plugins_words() -> None:
    from sari_core.kernel.reasons import ReasonCode
    from sari_core.kernel.verdicts import FoldedVerdict

    assert [code.value for code in ReasonCode] == [
        "PREVIEW_DEGRADED", "PLUGIN_ERROR", "SESSION_ID_REQUIRED", "INDEX_BUILDING",
        "EXTERNAL_CHANGE"]
    assert "budget_state" not in Verdict.model_fields
    assert "budget_state" not in FoldedVerdict.__dataclass_fields__


def test_no_in_repo_plugin_reaches_behind_the_session() -> None:
    plugins = Path(__file__).resolve().parents[2] / "plugins"
    offenders = [
        f"{path.relative_to(plugins)}:{number}"
        for path in sorted(plugins.glob("sari-*/sari_*/**/*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if not line.lstrip().startswith(("from sari_core", "import sari_core"))
        and any(internal in line for internal in ("session.kernel", "session.state",
                                                  "session._", "kernel.sessions"))
    ]
    assert offenders == []
