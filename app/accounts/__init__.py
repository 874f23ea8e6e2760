"""Accounts: users (Argon2 passwords, admin|sales roles) and API tokens."""
