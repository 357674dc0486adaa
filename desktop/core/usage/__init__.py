"""Spend accounting: the usage ledger, its summaries and the budgets that govern spend."""
