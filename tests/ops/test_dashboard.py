"""The operators' dashboard (deploy/grafana/mahjong.json) reads metrics the server exposes:
a panel whose metric was renamed or never existed would show "no data" to an operator on
the day they need it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.ops import metrics

DASHBOARD = Path(__file__).parents[2] / "deploy" / "grafana" / "mahjong.json"


def test_every_metric_of_the_dashboard_is_exposed() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exposed = set(re.findall(r"^# TYPE (\S+) ", metrics.exposition().decode(), re.MULTILINE))
    used: set[str] = set()
    for panel in dashboard["panels"]:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            used |= set(re.findall(r"\bmahjong_[a-z_]+", target["expr"]))
    assert used
    family = {name.removesuffix("_bucket") for name in used}
    assert family <= exposed, sorted(family - exposed)


def test_the_dashboard_shows_the_shedding() -> None:
    exprs = " ".join(t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"]
                     for t in p["targets"])
    for name in ("mahjong_node_busy", "mahjong_shed_requests_total", "mahjong_loop_lag_seconds"):
        assert name in exprs
