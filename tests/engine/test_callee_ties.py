"""Of a caller and the function it calls, in one file and nearly tied, the callee comes first
when its head says as much of the query: the caller holds the callee's words by calling it."""

from __future__ import annotations

from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.engine.search.word_search import CALLEE_TIE, _callees_first

FILES = {
    "invoices.py": (
        "def print_invoice(invoice):\n"
        '    """Print an invoice."""\n'
        "    print(render_invoice_lines(invoice))\n\n\n"
        "def render_invoice_lines(invoice):\n"
        '    """Render the lines of an invoice as text."""\n'
        "    return '\\n'.join(line.text for line in invoice.lines)\n\n\n"
        "def total(invoice):\n"
        '    """Sum the lines of an invoice."""\n'
        "    return sum(line.amount for line in invoice.lines)\n\n\n"
        "class Ledger:\n"
        '    """Invoices kept in order."""\n\n'
        "    def add(self, invoice):\n"
        "        self.check(invoice)\n"
        "        self.invoices.append(invoice)\n\n"
        "    def check(self, invoice):\n"
        '        """Refuse an invoice without lines."""\n'
        "        if not invoice.lines:\n"
        "            raise ValueError(invoice)\n"),
}

workspace = module_workspace(FILES)


def rows(workspace: Workspace) -> dict[str, tuple]:
    """The word index's chunk rows of the file, by scope, shaped as the word search's."""
    found = workspace.store.reader.execute(
        "SELECT c.id, c.file_id, f.root, f.path, c.line, c.end_line, c.scope, c.kind, 0, 0"
        " FROM word_chunks c JOIN files f ON f.id = c.file_id").fetchall()
    return {row[6]: tuple(row) for row in found}


def order(workspace: Workspace, scored: list[tuple[str, float]], said: dict[str, float]
          ) -> list[str]:
    """Scopes in the order ``_callees_first`` leaves ``scored`` (scope, score: best first)."""
    chunk = rows(workspace)
    entries = [(-score, chunk[scope][3], chunk[scope][4], chunk[scope]) for scope, score in scored]
    shares = {chunk[scope][0]: share for scope, share in said.items()}
    return [entry[3][6] for entry in _callees_first(workspace.store, entries, shares)]


def test_a_callee_nearly_tied_with_its_caller_comes_first(workspace: Workspace) -> None:
    found = order(workspace, [("print_invoice", 10.0), ("total", 9.9),
                              ("render_invoice_lines", 9.8)],
                  {"print_invoice": 0.5, "total": 0.5, "render_invoice_lines": 0.5})
    # just above its caller; the other function keeps its place after them
    assert found == ["render_invoice_lines", "print_invoice", "total"]


def test_a_callee_well_below_its_caller_stays_below(workspace: Workspace) -> None:
    score = 10.0 * CALLEE_TIE - 1.0
    found = order(workspace, [("print_invoice", 10.0), ("render_invoice_lines", score)],
                  {"print_invoice": 0.5, "render_invoice_lines": 0.5})
    assert found == ["print_invoice", "render_invoice_lines"]


def test_a_callee_whose_head_says_less_stays_below(workspace: Workspace) -> None:
    found = order(workspace, [("print_invoice", 10.0), ("render_invoice_lines", 9.9)],
                  {"print_invoice": 0.75, "render_invoice_lines": 0.5})
    assert found == ["print_invoice", "render_invoice_lines"]


def test_a_function_its_neighbour_does_not_call_stays_below(workspace: Workspace) -> None:
    found = order(workspace, [("print_invoice", 10.0), ("total", 9.9)],
                  {"print_invoice": 0.5, "total": 0.5})
    assert found == ["print_invoice", "total"]


def test_a_method_called_by_a_sibling_method_comes_first(workspace: Workspace) -> None:
    found = order(workspace, [("Ledger.add", 10.0), ("Ledger.check", 9.9)],
                  {"Ledger.add": 0.5, "Ledger.check": 0.5})
    assert found == ["Ledger.check", "Ledger.add"]


def test_a_class_is_no_caller_of_its_methods(workspace: Workspace) -> None:
    found = order(workspace, [("Ledger", 10.0), ("Ledger.check", 9.9)],
                  {"Ledger": 0.5, "Ledger.check": 0.5})
    assert found == ["Ledger", "Ledger.check"]
