"""Policies see a read under the name the engine's responses give its file."""

from __future__ import annotations

from pathlib import Path

from sari_core import ReadCall, Session, hookimpl
from sari_core.testing import Kernels


class _SeenTargets:
    def __init__(self) -> None:
        self.targets: list[str] = []

    @hookimpl
    def on_read_enter(self, call: ReadCall, session: Session, ctx: object) -> None:
        self.targets.append(call.path if call.mode == "symbol" else call.target)


def _roots(tmp_path: Path) -> list[Path]:
    shop, other = tmp_path / "shop", tmp_path / "other"
    (shop / "shop").mkdir(parents=True)
    other.mkdir()
    (shop / "shop" / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    (other / "notes.py").write_text("NOTE = 1\n")
    return [shop, other]


def test_with_several_roots_an_unprefixed_spelling_reaches_policies_prefixed(
        tmp_path: Path, kernels: Kernels) -> None:
    seen = _SeenTargets()
    kernel = kernels.build(None, [seen], roots=_roots(tmp_path))
    kernel.execute_read({"mode": "file", "target": "shop/cart.py"})
    kernel.execute_read({"mode": "file", "target": "shop/shop/cart.py"})
    kernel.execute_read({"mode": "symbol", "target": "total", "path": "shop/cart.py"})
    kernel.execute_read({"mode": "file", "target": "other/notes.py"})
    assert seen.targets == ["shop/shop/cart.py", "shop/shop/cart.py", "shop/shop/cart.py",
                            "other/notes.py"]


def test_with_one_root_a_read_reaches_policies_as_the_client_spelled_it(
        tmp_path: Path, kernels: Kernels) -> None:
    seen = _SeenTargets()
    root = _roots(tmp_path)[0]
    kernel = kernels.build(None, [seen], roots=[root])
    kernel.execute_read({"mode": "file", "target": str(root / "shop" / "cart.py")})
    assert seen.targets == [str(root / "shop" / "cart.py")]


def test_a_path_outside_the_workspace_is_left_for_the_engine_to_refuse(
        tmp_path: Path, kernels: Kernels) -> None:
    seen = _SeenTargets()
    kernel = kernels.build(None, [seen], roots=_roots(tmp_path))
    response = kernel.execute_read({"mode": "file", "target": "../outside.py"})
    assert response["error"]["code"] == "PATH_OUTSIDE_WORKSPACE"
