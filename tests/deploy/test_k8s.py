"""The Kubernetes base, deploy/k8s/, rendered as kustomize renders it (its kustomization lists
resources and nothing else, so the render is those files' documents) and validated offline
against the Kubernetes schemas that kubernetes-validate bundles, strictly (an unknown field
fails), for the oldest and the newest release it is meant for. Then what an operator
relies on: probes on /ready and /health, the image's numeric non-root user, the migration
as a Job of the same image, secrets taken from a Secret, requests and limits, an Ingress
with WebSocket timeouts that reaches the game's port and never the metrics port, a
disruption budget and a network policy over the server pods."""

from __future__ import annotations

import socket
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy.files import K8S_DIR, SETTINGS, image_env, image_uid, load_yaml

KUBERNETES_VERSIONS = ("1.30.0", "1.35.0")  # the oldest and newest releases the base targets
# JWT_OLD_SECRETS is optional in the Secret: it is set only during a key rotation
SECRET_SETTINGS = {"JWT_SECRET", "JWT_OLD_SECRETS", "DATABASE_URL", "REDIS_URL"}
Resource = dict[str, Any]


def render() -> list[Resource]:
    """Every document of the base, in the kustomization's order."""
    kustomization = load_yaml(K8S_DIR / "kustomization.yaml")
    # anything but resources (patches, generators, labels, a namespace) would change what
    # kustomize renders from what this reads
    assert set(kustomization) == {"apiVersion", "kind", "resources"}
    resources: list[Resource] = []
    for name in kustomization["resources"]:
        resources += [doc for doc in yaml.safe_load_all((K8S_DIR / name).read_text()) if doc]
    return resources


def _one(kind: str, resources: list[Resource] | None = None) -> Resource:
    (found,) = [r for r in resources or render() if r["kind"] == kind]
    return found


def _pod(kind: str) -> dict[str, Any]:
    spec: dict[str, Any] = _one(kind)["spec"]["template"]["spec"]
    return spec


def _port(container: dict[str, Any], name: str | int) -> int:
    """A container port by its name (or number)."""
    if isinstance(name, int):
        return name
    (port,) = [p["containerPort"] for p in container["ports"] if p["name"] == name]
    return int(port)


def test_every_file_of_the_folder_is_in_the_base() -> None:
    listed = set(load_yaml(K8S_DIR / "kustomization.yaml")["resources"])
    assert listed == {p.name for p in K8S_DIR.glob("*.yaml")} - {"kustomization.yaml"}


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_resource_is_valid_kubernetes_offline(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the validation tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    resources = render()
    assert {r["kind"] for r in resources} == {
        "ConfigMap", "Deployment", "Job", "Service", "Ingress", "PodDisruptionBudget",
        "NetworkPolicy"}  # fmt: skip
    for resource in resources:
        try:
            kubernetes_validate.validate(resource, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{resource['kind']} {resource['metadata']['name']}: {error.message}")


def test_the_server_is_probed_on_ready_and_health_and_runs_as_the_image_user() -> None:
    pod = _pod("Deployment")
    (server,) = pod["containers"]
    http = image_env("PORT")
    ready, live = server["readinessProbe"]["httpGet"], server["livenessProbe"]["httpGet"]
    assert ready["path"] == "/ready" and live["path"] == "/health"
    assert str(_port(server, ready["port"])) == str(_port(server, live["port"])) == http
    assert _one("Deployment")["spec"]["replicas"] >= 2
    for kind in ("Deployment", "Job"):
        pod = _pod(kind)
        assert pod["securityContext"]["runAsNonRoot"] is True, kind
        assert pod["securityContext"]["runAsUser"] == image_uid() != 0, kind
        assert pod["automountServiceAccountToken"] is False, kind
        for container in pod["containers"]:
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
            assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), kind
            assert {"cpu", "memory"} <= set(resources["limits"]), kind


def test_the_migration_is_a_job_of_the_servers_image_and_the_servers_do_not_migrate() -> None:
    resources = render()
    job = _one("Job", resources)["spec"]["template"]["spec"]
    (migrate,) = job["containers"]
    assert migrate["command"] == ["python", "-m", "app.store.migrate", "upgrade", "head"]
    assert job["restartPolicy"] == "Never"
    (server,) = _one("Deployment", resources)["spec"]["template"]["spec"]["containers"]
    assert migrate["image"] == server["image"]
    assert _one("ConfigMap", resources)["data"]["MIGRATE_ON_START"] == "false"


def test_secrets_come_from_a_secret_and_every_variable_is_a_setting() -> None:
    resources = render()
    assert "Secret" not in {r["kind"] for r in resources}  # the operator makes it
    config = _one("ConfigMap", resources)
    assert set(config["data"]) <= SETTINGS, set(config["data"]) - SETTINGS
    assert not set(config["data"]) & (SECRET_SETTINGS | {"NODE_ID"})
    for kind in ("Deployment", "Job"):
        for container in _pod(kind)["containers"]:
            env = {e["name"]: e for e in container.get("env", [])}
            assert set(env) <= SETTINGS, set(env) - SETTINGS
            assert "NODE_ID" not in env  # random at every start of the server
            for name in set(env) & SECRET_SETTINGS:
                assert "value" not in env[name], name
                assert env[name]["valueFrom"]["secretKeyRef"]["key"] == name
            for source in container.get("envFrom", []):
                assert source["configMapRef"]["name"] == config["metadata"]["name"]
    (server,) = _pod("Deployment")["containers"]
    assert {e["name"] for e in server["env"]} == SECRET_SETTINGS


def test_the_ingress_keeps_websockets_and_reaches_the_game_port_only() -> None:
    resources = render()
    ingress = _one("Ingress", resources)
    notes = ingress["metadata"]["annotations"]
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(notes[f"nginx.ingress.kubernetes.io/{timeout}"]) >= 3600, timeout
    service = _one("Service", resources)
    (server,) = _pod("Deployment")["containers"]
    metrics = image_env("METRICS_PORT")
    assert str(_port(server, "metrics")) == metrics
    targets = set()
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == service["metadata"]["name"]
            (port,) = [p for p in service["spec"]["ports"]
                       if p.get("name") == backend["port"].get("name")
                       or p["port"] == backend["port"].get("number")]  # fmt: skip
            targets.add(str(_port(server, port["targetPort"])))
    assert targets == {image_env("PORT")}
    assert metrics not in {str(_port(server, p["targetPort"])) for p in service["spec"]["ports"]}
    # Prometheus finds the metrics port by the pods' annotations instead
    notes = _one("Deployment", resources)["spec"]["template"]["metadata"]["annotations"]
    assert notes["prometheus.io/scrape"] == "true" and notes["prometheus.io/port"] == metrics


def test_the_budget_and_the_network_policy_cover_the_server_pods() -> None:
    resources = render()
    deployment = _one("Deployment", resources)
    pods = deployment["spec"]["selector"]["matchLabels"]
    assert deployment["spec"]["template"]["metadata"]["labels"].items() >= pods.items()
    budget = _one("PodDisruptionBudget", resources)["spec"]
    assert budget["selector"]["matchLabels"] == pods
    assert budget["maxUnavailable"] < deployment["spec"]["replicas"]
    assert _one("Service", resources)["spec"]["selector"] == pods
    policy = _one("NetworkPolicy", resources)["spec"]
    assert policy["podSelector"]["matchLabels"] == pods
    by_port = {str(p["port"]): rule["from"] for rule in policy["ingress"] for p in rule["ports"]}
    assert set(by_port) == {image_env("PORT"), image_env("METRICS_PORT")}
    # the game's port from the ingress controller alone: FORWARDED_ALLOW_IPS trusts it
    (controller,) = by_port[image_env("PORT")]
    assert controller["namespaceSelector"]["matchLabels"] == {
        "kubernetes.io/metadata.name": "ingress-nginx"}  # fmt: skip
    assert _one("ConfigMap", resources)["data"]["FORWARDED_ALLOW_IPS"]

