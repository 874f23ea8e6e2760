"""Customers: the companies plans and quotes belong to (統一編號, language, currency, tax)."""
