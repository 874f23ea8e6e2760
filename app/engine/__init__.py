"""Stratagem's sizing and cost arithmetic.

Pure Python: nothing in this package imports FastAPI, SQLModel, Jinja or Plotly. It takes
plain dataclasses / Pydantic models and returns them, so every figure can be tested (and
explained) without a server or a database.
"""
