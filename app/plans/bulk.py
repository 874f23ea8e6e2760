"""Bulk rows for load tests and benchmarks: many plans inserted in one statement."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from app.plans.models import Plan, utcnow

TIERS = ("single_gpu", "multi_gpu", "multi_node")
STATUSES = ("draft", "sent", "accepted", "lost")


def insert_plans(*, session: Session, owner_id: int, count: int, prefix: str = "bulk") -> None:
    """Insert `count` plans with a small result (list pages never read it) and commit."""
    now = utcnow()
    rows: list[dict[str, Any]] = [
        {
            "quote_number": f"{prefix.upper()}-{i:06d}",
            "name": f"{prefix} plan {i}",
            "customer": f"Customer {i % 250}",
            "owner_id": owner_id,
            "status": STATUSES[i % 4],
            "notes": "",
            "tags": [],
            "archived": i % 20 == 0,
            "version": 1,
            "price_list_id": None,
            "tier": TIERS[i % 3],
            "workload": {"model": {"preset": "llama-2-13b"}, "task": "lora"},
            "result": {"tier": TIERS[i % 3]},
            "created_at": now - timedelta(minutes=i),
            "updated_at": now - timedelta(minutes=i),
        }
        for i in range(count)
    ]
    session.execute(insert(Plan), rows)
    session.commit()
