"""Persistence: accounts, the silver ledger, ranks and stats, hand records (SQLAlchemy 2)."""
