"""docs/operating.md against the repository it describes: every migration is classified in
its table (and one that removes or changes what older code uses is a contract), every
alert rule has its section and every link to an anchor of the runbook resolves, and every
metric it names is one the server exports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from tests.ops.operating import RUNBOOK

ROOT = RUNBOOK.parents[1]
MIGRATIONS = ROOT / "migrations" / "versions"
# the anchors the alert rules link to (issue 37); the lead's list
ALERT_ANCHORS = (
    "alert-settlement-failures", "alert-settlement-lag", "alert-node-down",
    "alert-node-not-ready", "alert-loop-lag", "alert-action-latency", "alert-rate-limited",
    "alert-takeovers", "alert-db-pool", "alert-redis-errors",
)
# what a migration does that code of the release before it may break on
CONTRACTING_CALLS = {"drop_column", "drop_table", "drop_constraint", "rename_table"}
CONTRACTING_SQL = re.compile(r"\b(DROP\s+(COLUMN|TABLE)|RENAME|ALTER\s+COLUMN\s+\S+\s+(SET\s+NOT\s+NULL|TYPE))\b",
                             re.IGNORECASE)


def _anchors(text: str) -> set[str]:
    """The anchors a Markdown renderer (GitHub's) makes: explicit ids and headings' slugs."""
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


def _links() -> list[tuple[str, str]]:
    """(file, anchor) of every link to an anchor of the runbook, in the runbook itself, the
    other documents and the deployment files."""
    files = [RUNBOOK, ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
             *(p for p in (ROOT / "deploy").rglob("*") if p.is_file())]
    links = []
    for path in files:
        text = path.read_text(errors="replace")
        pattern = r"\]\(#([\w-]+)\)" if path == RUNBOOK else r"operating\.md#([\w-]+)"
        links += [(str(path.relative_to(ROOT)), anchor) for anchor in re.findall(pattern, text)]
    return links


def test_every_link_to_the_runbook_names_one_of_its_anchors() -> None:
    anchors = _anchors(RUNBOOK.read_text())
    assert set(ALERT_ANCHORS) <= anchors, sorted(set(ALERT_ANCHORS) - anchors)
    links = _links()
    assert any(path.startswith("deploy/") for path, _ in links)  # the alert rules link here
    broken = [(path, anchor) for path, anchor in links if anchor not in anchors]
    assert not broken, f"links to anchors docs/operating.md does not have: {broken}"


def test_every_alert_rule_has_its_section() -> None:
    text = RUNBOOK.read_text()
    sections = set(re.findall(r"^### (Mahjong\w+)$", text, re.MULTILINE))
    rules = [rule["alert"] for path in (ROOT / "deploy" / "prometheus").glob("*.yml")
             for group in yaml.safe_load(path.read_text())["groups"]
             for rule in group["rules"] if "alert" in rule]
    assert rules
    assert sorted(set(rules) - sections) == [], "alerts without a section in the runbook"
    assert sorted(sections - set(rules)) == [], "sections of alerts no rule defines"


def _contracts(path: Path) -> list[str]:
    """What the migration's upgrade() does that older code may break on."""
    tree = ast.parse(path.read_text())
    upgrade = next(node for node in tree.body
                   if isinstance(node, ast.FunctionDef) and node.name == "upgrade")
    found = []
    for node in ast.walk(upgrade):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            keywords = {k.arg: k.value for k in node.keywords}
            nullable = keywords.get("nullable")
            if name in CONTRACTING_CALLS:
                found.append(name)
            elif name == "alter_column" and (
                "new_column_name" in keywords or "type_" in keywords
                or (isinstance(nullable, ast.Constant) and nullable.value is False)
            ):
                found.append(f"alter_column({', '.join(sorted(k for k in keywords if k))})")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and (match := CONTRACTING_SQL.search(node.value))):
            found.append(match[0])
    return found


def _classified() -> dict[str, str]:
    """Migration -> kind, from the runbook's table."""
    text = RUNBOOK.read_text().split("<!-- migrations: the test reads this table -->", 1)[1]
    rows = re.findall(r"^\| (\d{4}) \| (\w+) \|", text.split("\n\n", 1)[0], re.MULTILINE)
    return dict(rows)


def _revision(path: Path) -> str:
    found = re.search(r"^revision: str = '([^']+)'", path.read_text(), re.MULTILINE)
    assert found, path
    return found[1]


def test_every_migration_is_classified_and_each_contract_says_so() -> None:
    kinds = _classified()
    migrations = {_revision(path): path for path in sorted(MIGRATIONS.glob("*.py"))}
    assert sorted(kinds) == sorted(migrations), "the runbook's table lists other migrations"
    assert set(kinds.values()) <= {"initial", "expand", "contract"}
    for revision, path in migrations.items():
        contracts = _contracts(path)
        if kinds[revision] != "initial" and contracts:
            assert kinds[revision] == "contract", (
                f"{path.name} {contracts}: a contract migration (docs/operating.md, 'Expand, "
                "then contract'): ship it a release after the code stopped using what it "
                "removes, and list it as a contract with what older nodes do after it"
            )
    # the detection itself: the two contracts of the history are found
    assert _contracts(migrations["0004"]) and _contracts(migrations["0006"])
    assert not _contracts(migrations["0007"])


def test_every_metric_the_runbook_names_is_exported() -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "app" / "ops").glob("*.py"))
    exported = {f"mahjong_{name}" for name in re.findall(r'(?:\{PREFIX\}|"mahjong)_(\w+)"', source)}
    named = set(re.findall(r"`(mahjong_\w+?)(?:_total|_bucket|_count|_sum)?`", RUNBOOK.read_text()))
    assert named
    assert sorted(named - exported) == [], "metrics the runbook names that no node exports"
