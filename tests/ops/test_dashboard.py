"""The operators' dashboard (deploy/grafana/mahjong.json) and alert rules
(deploy/prometheus/rules.yml) read metrics a live node exposes from its start: a panel or an
alert whose metric was renamed, or appears only once something went wrong, would show "no
data" (or never fire) on the day an operator needs it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.ops.nodes import fresh_node, scrape

ROOT = Path(__file__).parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "mahjong.json"
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
NAME = re.compile(r"\bmahjong_[a-z0-9_]+")


def _panel_exprs() -> dict[str, list[str]]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return {panel["title"]: [t["expr"] for t in panel["targets"]] for panel in panels}


def _rule_exprs() -> dict[str, str]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return {rule["alert"]: rule["expr"] for group in groups for rule in group["rules"]}


def test_every_metric_of_the_dashboard_and_the_rules_is_on_a_fresh_node(tmp_path: Path) -> None:
    used: dict[str, str] = {}  # metric -> the panel or alert naming it
    for title, exprs in _panel_exprs().items():
        assert exprs, title
        used |= {name: title for expr in exprs for name in NAME.findall(expr)}
    for alert, expr in _rule_exprs().items():
        assert NAME.findall(expr) or "up{" in expr, alert
        used |= {name: alert for name in NAME.findall(expr)}
    assert len(used) > 20
    with fresh_node(tmp_path) as node:
        exposed = {name for name, _ in scrape(node.url)}  # before any request of a player
    missing = {name: where for name, where in used.items() if name not in exposed}
    assert missing == {}


def test_the_dashboard_covers_what_an_operator_watches() -> None:
    exprs = " ".join(e for exprs in _panel_exprs().values() for e in exprs)
    for watched in (
        "mahjong_ws_connections", "mahjong_live_tables",  # tables and sockets live
        "mahjong_action_broadcast_seconds_bucket",  # action p99
        "mahjong_settle_oldest_seconds", 'mahjong_settlements_total{outcome="failed"}',
        "mahjong_table_takeovers_total", "mahjong_leases_lost_total",
        "mahjong_rate_limited_total", "mahjong_login_failures_total",
        "mahjong_loop_lag_seconds", "mahjong_node_busy", "mahjong_shed_requests_total",
        "mahjong_db_pool_checked_out", "mahjong_db_pool_max",
        'up{job="mahjong"}', "mahjong_ready",  # nodes down, nodes not ready
        "mahjong_http_requests_total", "mahjong_redis_errors_total", "mahjong_build_info",
    ):
        assert watched in exprs, watched
