"""The layers depend downwards (DESIGN.md, "The shell depends downwards"): every module under
`app/` is parsed and each of its imports checked against the arrows below. Every import
counts: at the top, inside a function, under `TYPE_CHECKING`, relative or absolute."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"

_APP = ("app.api", "app.cluster", "app.rooms", "app.tournaments", "app.tables", "app.store",
        "app.ops", "app.protocol", "app.rules", "app.web", "app.loadtest", "app.main",
        "app.admin")
_TOURNAMENT_SHELL = tuple(f"app.tournaments.{m}" for m in (
    "director", "events", "money", "rounds", "view"))
FORBIDDEN = {
    "app.settings": _APP,
    "app.ops": ("app.api", "app.cluster", "app.rooms", "app.tournaments", "app.tables",
                "app.web", "app.loadtest", "app.main", "app.admin"),
    "app.protocol": ("app.settings",) + tuple(
        p for p in _APP if p not in ("app.rules", "app.protocol")
    ),
    "app.store": ("app.tables", "app.api", "app.cluster", "app.rooms", "app.tournaments"),
    "app.tables": ("app.api", "app.cluster", "app.rooms", "app.tournaments"),
    "app.cluster": ("app.api",),
    "app.rooms": ("app.api", "app.cluster"),
    "app.tournaments": ("app.api", "app.cluster"),
    # a tournament's draw, standings and prizes are pure: the rules and each other, nothing
    # of the shell (the event's store, money, director and views are the shell)
    **{pure: ("app.settings", *_TOURNAMENT_SHELL) + tuple(
        p for p in _APP if p not in ("app.rules", "app.tournaments"))
       for pure in ("app.tournaments.swiss", "app.tournaments.prizes")},
}
"""Layer -> the packages none of its modules may import: settings imports nothing of the
app; the protocol only the rules and itself; ops only settings, rules, protocol, store and
itself; store never the shell above it; the tables neither the cluster, the API nor the rooms
(which hook in through interfaces the tables declare)."""


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


NO_CYCLES = [
    "app.rules", "app.tables", "app.api", "app.cluster", "app.store", "app.ops",
    "app.protocol", "app.rooms", "app.loadtest", "app.web",
]
"""Packages in which no module is part of an import cycle with other modules of the package
(its subpackages included), every kind of import counted: every package of the app."""


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of an import graph (module -> the modules it imports): its strongly connected
    components of more than one module, each sorted, smallest first. A module importing
    itself (`from . import x` in a package's `__init__` reads so) is no cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_cycle_finder_sees_a_cycle_and_only_a_cycle() -> None:
    sources = {
        "app.x": "from app.x import b\nfrom . import c\n",
        "app.x.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "app.x.b": "def f():\n    from app.x.c import C\n",
        "app.x.c": "import app.x.a\n",
        "app.x.d": "from app.x.a import A\n",
    }
    graph = {
        name: imports_of(text, name, package=name == "app.x") & set(sources) - {name}
        for name, text in sources.items()
    }
    assert import_cycles(graph) == [["app.x.a", "app.x.b", "app.x.c"]]


@pytest.mark.parametrize("package", NO_CYCLES)
def test_no_module_is_in_an_import_cycle_within_its_package(package: str) -> None:
    modules = {name: imported for name, imported in _modules() if _within(name, package)}
    graph = {name: imported & set(modules) - {name} for name, imported in modules.items()}
    cycles = import_cycles(graph)
    assert cycles == [], "\n".join(
        "import cycle: " + "; ".join(
            f"{name} imports {', '.join(sorted(graph[name] & set(cycle)))}" for name in cycle
        )
        for cycle in cycles
    )


def test_every_module_of_the_tournaments_is_pure_or_named_as_shell() -> None:
    """A new module of app/tournaments is either pure (a rule of the draw or the prizes)
    or listed as shell here, so that the pure ones can never import it unnoticed."""
    modules = {module_name(p) for p in (APP / "tournaments").glob("*.py")}
    pure = {"app.tournaments", "app.tournaments.swiss", "app.tournaments.prizes"}
    assert modules == pure | set(_TOURNAMENT_SHELL)
