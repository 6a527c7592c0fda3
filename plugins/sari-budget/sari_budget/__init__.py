"""sari-budget: the per-session read budget of seed 000 (Read Budget Guard)."""

from sari_budget.plugin import BudgetPlugin
from sari_budget.settings import BudgetSettings

__all__ = ["BudgetPlugin", "BudgetSettings"]
