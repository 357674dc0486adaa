"""Cron service and scheduled jobs (scheduling issue)."""
