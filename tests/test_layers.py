"""The layers depend downwards (DESIGN.md, "The shell depends downwards"): every module under
`app/` is parsed and each of its imports checked against the arrows below. Every import
counts: at the top, inside a function, under `TYPE_CHECKING`, relative or absolute."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"

FORBIDDEN = {
    "app.store": ("app.tables", "app.api", "app.cluster"),
    "app.tables": ("app.api", "app.cluster"),
    "app.cluster": ("app.api",),
}
"""Layer -> the packages none of its modules may import."""


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, *, package: bool = False) -> set[str]:
    """Every module `source` (the text of `module`) imports; for `from a import b`, both `a`
    and `a.b` (b may be a module). `package`: `module` is a package's `__init__`."""
    here = module.split(".") if package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return found


def _modules() -> list[tuple[str, set[str]]]:
    return [
        (module_name(path), imports_of(
            path.read_text(encoding="utf-8"), module_name(path),
            package=path.name == "__init__.py",
        ))
        for path in sorted(APP.rglob("*.py"))
    ]


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_scanner_sees_every_kind_of_import() -> None:
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import app.store.db\n"
        "from . import seats\n"
        "from ..cluster.keys import Keys\n"
        "if TYPE_CHECKING:\n"
        "    from app.api.lobby import TableOut\n"
        "def f():\n"
        "    from app.cluster import node\n"
    )
    found = imports_of(source, "app.tables.registry")
    assert {
        "app.store.db", "app.tables.seats", "app.cluster.keys", "app.api.lobby",
        "app.cluster.node",
    } <= found
    assert imports_of("from . import keys", "app.cluster", package=True) == {
        "app.cluster", "app.cluster.keys"
    }


def test_the_scan_covers_the_layers() -> None:
    names = {name for name, _ in _modules()}
    for layer in ("app.rules", "app.store", "app.tables", "app.cluster", "app.api"):
        assert sum(_within(name, layer) for name in names) >= 2, layer


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_imports_nothing_above_it(layer: str) -> None:
    wrong = sorted(
        f"{name} imports {imported}"
        for name, imported_names in _modules() if _within(name, layer)
        for imported in imported_names
        if any(_within(imported, above) for above in FORBIDDEN[layer])
    )
    assert wrong == []


RULES_TOOLS = {"app.rules.selfplay": {"tqdm"}}
"""Third-party imports allowed in the rules package: the self-play command's progress bar
(a command beside the core, not part of it)."""


def test_the_rules_import_only_the_rules_and_the_standard_library() -> None:
    wrong = sorted(
        f"{name} imports {imported}"
        for name, imported_names in _modules() if _within(name, "app.rules")
        for imported in imported_names
        if not _within(imported, "app.rules")
        and imported.split(".")[0] not in sys.stdlib_module_names
        and imported.split(".")[0] not in RULES_TOOLS.get(name, set())
    )
    assert wrong == []
