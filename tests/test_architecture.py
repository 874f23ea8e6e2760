"""The shape of the code: no import cycles in app/, services and tables free of the web layer.

The import graph is read with `ast` (every `import` and `from … import`, at any depth of
the module, so a cycle hidden inside a function counts too).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"
FEATURES = (
    "accounts",
    "architectures",
    "assess",
    "catalog",
    "costs",
    "home",
    "leads",
    "planner",
    "plans",
    "quotes",
    "sharing",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The app modules `path` imports (a `from pkg import mod` counts as pkg.mod)."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent / "x")
    package = package.rsplit(".", 1)[0] if path.name != "__init__.py" else package
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("app"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if not base.startswith("app"):
                continue
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in APP.rglob("*.py")}
    return {name: imports_of(path) & paths.keys() for name, path in paths.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `g` (a list of modules, first == last), or None. Iterative DFS."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for root in sorted(g):
        if state.get(root):
            continue
        stack: list[tuple[str, list[str]]] = [(root, sorted(g[root]))]
        path = [root]
        state[root] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(g.get(nxt, ()))))
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_app_has_no_import_cycles() -> None:
    g = graph()
    # A package importing its own submodules (an __init__ re-export) is not a cycle of design.
    for name, deps in g.items():
        g[name] = {d for d in deps if d != name and not d.startswith(name + ".")}
    cycle = find_cycle(g)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("feature", FEATURES)
def test_feature_services_and_tables_do_not_import_the_web_layer(feature: str) -> None:
    """`service.py` and `models.py` (files or packages) import neither app.web nor FastAPI."""
    folder = APP / feature
    assert folder.is_dir(), f"feature folder app/{feature}/ is missing"
    checked = [
        p
        for name in ("service", "models")
        for p in [folder / f"{name}.py", *sorted((folder / name).glob("*.py"))]
        if p.exists()
    ]
    for path in checked:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for n in names:
                assert not n.startswith(("app.web", "fastapi", "starlette")), (
                    f"{path.relative_to(APP.parent)} imports {n}"
                )


def test_app_web_holds_framework_code_only() -> None:
    """No feature pages in app/web/: its modules are the framework the features share."""
    allowed = {
        "__init__",
        "api_messages",  # the JSON API's 422 messages, in the reader's language
        "concurrency",  # at most N requests at once per process, the rest queue
        "compression",  # gzip for every response but /static's, which encodes its own
        "csrf",
        "content_encoding",  # a compressed request body: 415 naming its encoding at the door
        "docs",
        "errors",
        "failures",  # the 422 and 500 answers that never fail (issue 13)
        "form_body",  # form bodies that are not UTF-8: a 422 at the door
        "forms",
        "head",  # HEAD answered as its GET, without the body
        "headers",
        "htmx",
        "json_body",  # JSON bodies with a lone UTF-16 surrogate or a repeated key: 422 at the door
        "json_response",  # the API writes floats without binary noise
        "language",
        "limits",  # request body limits
        "notices",
        "openapi",  # operation ids, documented error statuses
        "path_ids",  # ids no row can have: 404 before any dependency
        "query_once",  # a declared query parameter sent twice: 422 naming it
        "serving",  # `serve --workers N`: a listening socket per worker process
        "static",
        "templating",
    }
    found = {p.stem for p in (APP / "web").glob("*.py")}
    assert found <= allowed, f"feature code in app/web/: {sorted(found - allowed)}"


def test_old_layers_are_gone() -> None:
    for gone in ("api", "services", "security"):
        assert not (APP / gone).exists(), f"app/{gone}/ should not exist"


def test_app_tables_imports_every_table_module() -> None:
    """Alembic and the migration drift test see the tables app/tables.py imports; a module
    with a `table=True` model left out would hide its columns from them."""
    with_tables = {
        ".".join(path.relative_to(APP.parent).with_suffix("").parts)
        for path in APP.rglob("*.py")
        if re.search(r"table\s*=\s*True", path.read_text(encoding="utf-8"))
        and path.name != "tables.py"
    }
    tree = ast.parse((APP / "tables.py").read_text(encoding="utf-8"))
    imported = {
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    }
    assert with_tables <= imported, f"add to app/tables.py: {sorted(with_tables - imported)}"
