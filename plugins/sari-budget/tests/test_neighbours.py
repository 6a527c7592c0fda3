"""Which definitions beside a matched one count as its neighbours: what it calls, and
what calls it — by the call's form, so another object's method of the same name is not."""

from __future__ import annotations

import pytest

neighbours = pytest.importorskip("sari_budget.neighbours")
Definition = neighbours.Definition


def test_a_method_is_called_through_self_or_cls_only() -> None:
    close = Definition("method", "close", 10, 12)
    assert close.called_in("        self.close()\n")
    assert close.called_in("        cls.close ()\n")
    assert not close.called_in("        f.close()\n")  # another object's close
    assert not close.called_in("        closed = True\n")


def test_a_function_or_class_is_called_by_its_bare_name() -> None:
    helper = Definition("function", "_helper", 1, 5)
    assert helper.called_in("    return _helper(value)\n")
    assert not helper.called_in("    return other._helper(value)\n")
    assert not helper.called_in("    return my_helper(value)\n")
    assert Definition("class", "Future", 1, 9).called_in("    return Future(loop=loop)\n")


def test_dunders_and_constants_are_not_neighbours() -> None:
    outline = ("constant __all__ 1-3\n"
               "class Box 5-20\n"
               "  method __init__ 6-8\n"
               "  method open 10-12\n"
               "function _helper 22-30\n")
    assert [(d.kind, d.name) for d in neighbours._definitions(outline)] == [
        ("class", "Box"), ("method", "open"), ("function", "_helper")]
