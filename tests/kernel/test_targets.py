"""sari_core.targets: every spelling of a file compares equal to the name responses use."""

from __future__ import annotations

from pathlib import Path

import pytest

from sari_core.engine.files.paths import PathGuard
from sari_core.targets import normalize_path, root_prefixes, symbol_names, words


def test_one_root_has_no_prefix_and_several_are_named_by_their_folder() -> None:
    assert root_prefixes([]) is None
    assert root_prefixes([Path("/srv/only")]) is None
    assert root_prefixes([Path("/srv/api"), Path("/srv/web")]) == ["api", "web"]
    assert root_prefixes([Path("/x/lib"), Path("/y/lib"), Path("/z/doc")]) == [
        "lib~0", "lib~1", "doc~2"]


@pytest.mark.parametrize(("spelling", "expected"), [
    ("  src/main.py  ", "src/main.py"),
    ("src/./pkg/../main.py", "src/main.py"),
    ("src\\pkg\\main.py", "src/pkg/main.py"),
    ("/srv/only/src/main.py", "src/main.py"),
    ("/srv/only/", ""),
    ("/srv/only", "/srv/only"),          # the root itself is no file of it
    ("/srv/onlyother/main.py", "/srv/onlyother/main.py"),  # a sibling folder is not inside
    (".", ""),
    ("", ""),
])
def test_spellings_of_one_root(spelling: str, expected: str) -> None:
    assert normalize_path(spelling, [Path("/srv/only")]) == expected


def test_without_roots_an_absolute_path_is_only_normalised() -> None:
    assert normalize_path("/srv/only//src/main.py") == "/srv/only/src/main.py"


def test_a_drive_letter_path_is_taken_as_absolute() -> None:
    assert normalize_path("C:\\ws\\src\\main.py", [Path("C:/ws")]) == "src/main.py"
    assert normalize_path("C:\\other\\main.py", [Path("C:/ws")]) == "C:/other/main.py"


def test_a_root_given_through_a_symlink_matches_both_spellings(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert normalize_path(f"{link}/src/main.py", [link]) == "src/main.py"
    assert normalize_path(f"{real}/src/main.py", [link]) == "src/main.py"


def test_names_agree_with_the_engine_for_several_roots(tmp_path: Path) -> None:
    roots = [tmp_path / "a" / "app", tmp_path / "b" / "app", tmp_path / "tools"]
    for index, root in enumerate(roots):
        (root / "src").mkdir(parents=True)
        (root / "src" / f"mod{index}.py").write_text("x = 1\n", encoding="utf-8")
    guard = PathGuard(roots)
    engine_names = []
    for index, root in enumerate(guard.roots):
        absolute = f"{root}/src/mod{index}.py"
        engine_names.append(guard.resolve(absolute).display)
        assert normalize_path(absolute, guard.roots) == engine_names[-1]
        assert normalize_path(engine_names[-1], guard.roots) == engine_names[-1]
    assert engine_names == ["app~0/src/mod0.py", "app~1/src/mod1.py", "tools~2/src/mod2.py"]


def test_a_path_whose_first_folder_shares_a_roots_name_is_found_unprefixed(
        tmp_path: Path) -> None:
    """A project "shop" holding a package "shop", served with a second root (Claude Code's
    --add-dir): "shop/cart.py", as the client names it from the project, is that file."""
    shop, lib = tmp_path / "shop", tmp_path / "lib"
    (shop / "shop").mkdir(parents=True)
    (shop / "shop" / "cart.py").write_text("x = 1\n", encoding="utf-8")
    (shop / "top.py").write_text("y = 2\n", encoding="utf-8")
    lib.mkdir()
    guard = PathGuard([shop, lib])
    assert guard.resolve("shop/cart.py").display == "shop/shop/cart.py"
    assert guard.resolve("shop/shop/cart.py").display == "shop/shop/cart.py"
    assert guard.resolve("shop/top.py").display == "shop/top.py"  # the prefixed spelling
    # a new file keeps going to the root its prefix names
    assert guard.resolve("shop/new.py", must_exist=False).display == "shop/new.py"
    assert guard.resolve("lib/new.py", must_exist=False).display == "lib/new.py"


def test_symbol_names_add_the_last_part() -> None:
    assert symbol_names("Config.load") == {"Config.load", "load"}
    assert symbol_names("ns::Config::load") == {"ns::Config::load", "load"}
    assert symbol_names(" main ") == {"main"}
    assert symbol_names("  ") == set()


def test_words_are_identifiers_only() -> None:
    assert words("load_config(path) -> 2 items, _private9") == {"load_config", "path", "items",
                                                                "_private9"}
    assert words("") == set()
