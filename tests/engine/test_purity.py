"""The engine is pure: importing it loads no web, database, template or chart library."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_no_web_or_database_modules() -> None:
    code = (
        "import sys, app.engine.estimate, app.engine.costs, app.engine.plan_costs;"
        "bad = [m for m in ('fastapi', 'sqlmodel', 'sqlalchemy', 'jinja2', 'plotly') "
        "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
