"""Quotes: the PDF quote, the bill of materials (CSV) and plan export/import."""
