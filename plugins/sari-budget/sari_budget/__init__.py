"""sari-budget: the per-session read budget (Read Budget Guard)."""

from sari_budget.plugin import BudgetPlugin
from sari_budget.settings import BudgetSettings

__all__ = ["BudgetPlugin", "BudgetSettings"]
