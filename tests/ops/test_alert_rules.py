"""The alert rules an operator loads (deploy/prometheus/rules.yml): Prometheus's own checker
accepts them, each alert says what happened, what it means and where the procedure is, and
each goes off in `promtool test rules` (tests/ops/prometheus/rules_test.yml) for the node it
should, and only then. Needs `TEST_PROMETHEUS` (tests/prometheus.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from tests.prometheus import ROOT, RULES, promtool

UNIT_TESTS = Path(__file__).parent / "prometheus" / "rules_test.yml"
RUNBOOK = ROOT / "docs" / "operating.md"


def _alerts() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"] if "alert" in rule]


def test_promtool_accepts_the_rules() -> None:
    checked = promtool("check", "rules", str(RULES))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(_alerts())} rules found" in checked.stdout


def test_promtool_finds_a_broken_rule(tmp_path: Path) -> None:
    """The check above can fail: a rule naming a function PromQL lacks is refused."""
    broken = tmp_path / "broken.yml"
    broken.write_text(RULES.read_text().replace("increase(", "increas(", 1))
    checked = promtool("check", "rules", str(broken))
    assert checked.returncode != 0 and "increas" in checked.stdout + checked.stderr


def test_every_alert_goes_off_in_the_unit_tests() -> None:
    ran = promtool("test", "rules", str(UNIT_TESTS))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "SUCCESS" in ran.stdout
    firing = {
        case["alertname"]
        for test in yaml.safe_load(UNIT_TESTS.read_text())["tests"]
        for case in test["alert_rule_test"] if case["exp_alerts"]
    }
    assert firing == {rule["alert"] for rule in _alerts()}


def test_every_alert_says_what_happened_and_where_the_procedure_is() -> None:
    for rule in _alerts():
        notes = rule["annotations"]
        assert notes["summary"] and notes["description"], rule["alert"]
        assert "$labels.instance" in notes["summary"], rule["alert"]  # which node
        assert re.fullmatch(r"docs/operating\.md#[a-z0-9-]+", notes["runbook_url"]), rule["alert"]
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
