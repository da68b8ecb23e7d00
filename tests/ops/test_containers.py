"""The compose reference (docker-compose.yml and deploy/compose/), read as Docker Compose and
its services would read it; no Docker engine runs here. The file follows the Compose
specification (its JSON schema, as check-jsonschema ships it); a proxy alone faces the
players and the app believes it alone; replicas with no node id written in; no password
with a default; PostgreSQL and Redis keep their data and report their health; every log
is rotated; Prometheus scrapes every replica and loads the alert rules (checked by
promtool, as the container mounts them) and Grafana is provisioned with the dashboards.
The image itself is tests/ops/test_dockerfile.py's; the proxy's configuration is checked by
Caddy in tests/deploy/test_caddy.py."""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.deploy.files import COMPOSE_DIR, COMPOSE_FILE, ROOT, SETTINGS, image_env, load_yaml
from tests.prometheus import promtool

SECRETS = ("JWT_SECRET", "POSTGRES_PASSWORD", "GRAFANA_ADMIN_PASSWORD")
SERVER_SERVICES = ("app", "migrate")  # the services that run the server's image


def _services() -> dict[str, Any]:
    services: dict[str, Any] = load_yaml(COMPOSE_FILE)["services"]
    return services


def _mounts(service: dict[str, Any]) -> dict[Path, str]:
    """A service's bind mounts of the repository's files: the file or folder -> where the
    container sees it."""
    mounts = {}
    for volume in service.get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            mounts[(ROOT / source).resolve()] = target
    return mounts


def _published(service: dict[str, Any]) -> list[str]:
    return [str(port) for port in service.get("ports", [])]


def test_the_compose_file_follows_the_compose_specification() -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(COMPOSE_FILE)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_proxy_alone_faces_the_players_and_the_app_believes_it_alone() -> None:
    compose = load_yaml(COMPOSE_FILE)
    services = compose["services"]
    proxy = services["proxy"]
    assert re.fullmatch(r"caddy:2\.6(-alpine)?", proxy["image"])  # Debian's caddy validates it
    assert _mounts(proxy)[COMPOSE_DIR / "Caddyfile"] == "/etc/caddy/Caddyfile"
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    targets = {port.split(":")[-1] for port in _published(proxy)}
    assert targets == {"80", "443", "443/udp"}

    # the app's address for the proxy is the proxy's fixed address on the network they share
    app = services["app"]
    (network, settings), = proxy["networks"].items()
    assert network in app["networks"]
    proxy_address = ipaddress.ip_address(settings["ipv4_address"])
    subnet = ipaddress.ip_network(compose["networks"][network]["ipam"]["config"][0]["subnet"])
    assert proxy_address in subnet
    assert app["environment"]["FORWARDED_ALLOW_IPS"] == str(proxy_address)

    # the replicas publish nothing; the other services only on the host's loopback; the
    # metrics port nowhere
    assert "ports" not in app
    for name, service in services.items():
        for port in _published(service):
            assert "9100" not in port, name
            if name != "proxy":
                assert port.startswith("127.0.0.1:"), (name, port)
    assert image_env("METRICS_PORT") == "9100"


def test_the_server_runs_as_replicas_that_each_start_as_a_new_node() -> None:
    services = _services()
    app = services["app"]
    assert app["deploy"]["replicas"] >= 2
    assert "container_name" not in app  # one name cannot be given to several replicas
    for name in SERVER_SERVICES:
        environment = services[name]["environment"]
        assert set(environment) <= SETTINGS, set(environment) - SETTINGS
        assert "NODE_ID" not in environment  # random at every start (app/settings.py)
    env = app["environment"]
    assert env["DATABASE_URL"] == services["migrate"]["environment"]["DATABASE_URL"]
    postgres = services["postgres"]["environment"]
    assert env["DATABASE_URL"].startswith(f"postgresql://{postgres['POSTGRES_USER']}:")
    assert env["DATABASE_URL"].endswith(f"@postgres:5432/{postgres['POSTGRES_DB']}")
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    assert env["MIGRATE_ON_START"] == "false"  # the migrate service did it
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for dependency in ("postgres", "redis"):
        assert app["depends_on"][dependency]["condition"] == "service_healthy"
    assert "/ready" in " ".join(app["healthcheck"]["test"])
    migrate = services["migrate"]
    assert migrate["command"][:3] == ["python", "-m", "app.store.migrate"]
    assert migrate["restart"] == "no"
    assert migrate["image"] == app["image"]


def test_no_secret_has_a_default() -> None:
    """Each secret is read as ${NAME:?message}: unset, compose stops and says so."""
    text = COMPOSE_FILE.read_text()
    for name in SECRETS:
        uses = re.findall(rf"\$\{{{name}(\W*)", text)
        assert uses, name
        assert all(use.startswith(":?") for use in uses), (name, uses)
    assert re.findall(r"\$\{(\w+):?-", text) == [  # the defaults there are: none of a secret
        "BUILD_COMMIT", "SITE_ADDRESS", "HTTP_PUBLISH", "HTTPS_PUBLISH", "HTTPS_PUBLISH",
        "JWT_OLD_SECRETS"]  # fmt: skip  (no old secret unless a key rotation is under way)
    # and each service that needs one gets it from the operator
    users = {secret: [name for name, service in _services().items()
                      if f"${{{secret}:?" in str(service.get("environment"))]
             for secret in SECRETS}  # fmt: skip
    assert users == {"JWT_SECRET": ["app"], "POSTGRES_PASSWORD": ["app", "migrate", "postgres"],
                     "GRAFANA_ADMIN_PASSWORD": ["grafana"]}  # fmt: skip


def test_postgres_and_redis_keep_their_data_and_report_their_health() -> None:
    compose = load_yaml(COMPOSE_FILE)
    services = compose["services"]
    for name, data in (("postgres", "/var/lib/postgresql/data"), ("redis", "/data")):
        service = services[name]
        assert service["healthcheck"]["test"], name
        volume = next(v for v in service["volumes"] if v.split(":")[1] == data)
        assert volume.split(":")[0] in compose["volumes"], name  # a named volume
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "everysec"
    assert compose["networks"]["backend"]["internal"] is True
    assert services["postgres"]["networks"] == services["redis"]["networks"] == ["backend"]


def test_every_container_log_is_rotated() -> None:
    for name, service in _services().items():
        logging = service["logging"]
        assert logging["driver"] == "json-file", name
        assert re.fullmatch(r"\d+[km]", logging["options"]["max-size"]), name
        assert int(logging["options"]["max-file"]) >= 2, name


def test_the_caddyfile_defaults_point_at_the_app_service() -> None:
    """Caddy's environment comes from compose; what it leaves unset has the Caddyfile's
    default, which must be the app service and its port."""
    text = (COMPOSE_DIR / "Caddyfile").read_text()
    placeholders = dict(re.findall(r"\{\$(\w+):([^}]*)\}", text))
    assert set(re.findall(r"\{\$(\w+)", text)) == set(placeholders)  # each has a default
    assert placeholders["APP_HOST"] in _services()
    assert placeholders["APP_PORT"] == image_env("PORT")
    assert set(_services()["proxy"]["environment"]) <= set(placeholders)


def _prometheus() -> tuple[dict[str, Any], str]:
    """Prometheus's configuration and where its container sees deploy/prometheus/."""
    prometheus = _services()["prometheus"]
    mounts = _mounts(prometheus)
    assert mounts[COMPOSE_DIR / "prometheus.yml"] == "/etc/prometheus/prometheus.yml"
    return load_yaml(COMPOSE_DIR / "prometheus.yml"), mounts[ROOT / "deploy" / "prometheus"]


def test_prometheus_scrapes_every_replica_and_loads_the_alert_rules() -> None:
    config, rules_folder = _prometheus()
    assert config["rule_files"] == [f"{rules_folder}/*.yml"]
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "mahjong"]
    (discovery,) = job["dns_sd_configs"]
    assert discovery["names"] == ["app"] and discovery["type"] == "A"
    assert str(discovery["port"]) == image_env("METRICS_PORT")
    assert set(_services()["app"]["networks"]) & set(_services()["prometheus"]["networks"])
    rules = sorted((ROOT / "deploy" / "prometheus").glob("*.yml"))
    assert rules, "deploy/prometheus/ holds no rule file"
    for path in rules:  # each file the glob loads is a rule file
        assert load_yaml(path)["groups"], path


def test_promtool_accepts_the_configuration_with_the_rules_it_mounts(tmp_path: Path) -> None:
    """The configuration as the container reads it: the rules' folder is the repository's."""
    config, rules_folder = _prometheus()
    config["rule_files"] = [
        pattern.replace(rules_folder, str(ROOT / "deploy" / "prometheus"))
        for pattern in config["rule_files"]
    ]
    path = tmp_path / "prometheus.yml"
    path.write_text(json.dumps(config))  # JSON is YAML
    checked = promtool("check", "config", str(path))
    output = checked.stdout + checked.stderr
    assert checked.returncode == 0, output
    found = re.search(r"SUCCESS: (\d+) rule files found", output)
    assert found, output
    assert int(found.group(1)) == len(list((ROOT / "deploy" / "prometheus").glob("*.yml")))
    assert int(found.group(1)) >= 1, "deploy/prometheus/ holds no rule file"


def test_grafana_is_provisioned_with_prometheus_and_the_dashboards() -> None:
    grafana = _services()["grafana"]
    mounts = _mounts(grafana)
    provisioning = COMPOSE_DIR / "grafana" / "provisioning"
    assert mounts[provisioning] == "/etc/grafana/provisioning"
    (source,) = load_yaml(provisioning / "datasources" / "prometheus.yml")["datasources"]
    assert source["type"] == "prometheus" and source["isDefault"] is True
    assert source["url"] == "http://prometheus:9090"
    assert "9090" in " ".join(_published(_services()["prometheus"]))
    assert set(grafana["networks"]) & set(_services()["prometheus"]["networks"])

    (provider,) = load_yaml(provisioning / "dashboards" / "mahjong.yml")["providers"]
    assert provider["type"] == "file"
    assert provider["options"]["path"] == mounts[ROOT / "deploy" / "grafana"]
    dashboards = sorted((ROOT / "deploy" / "grafana").glob("*.json"))
    assert dashboards
    for path in dashboards:  # each picks its data source by type: the provisioned one
        variables = json.loads(path.read_text())["templating"]["list"]
        kinds = {v["query"] for v in variables if v["type"] == "datasource"}
        assert kinds == {source["type"]}, path

