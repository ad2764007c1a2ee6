"""HorizontalPodAutoscalers through the real kubectl and the official Python client, in fast-forward."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import header, ok
from tests.livesim import LiveServer, wait_until

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
spec:
  replicas: 2
  selector: {matchLabels: {app: NAME}}
  template:
    metadata: {labels: {app: NAME}}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: 100m}}
"""


@pytest.fixture(scope="module")
def autoscaling_cluster(live: LiveServer) -> str:
    """A cluster of this module's own, so other tests' Pods never share its nodes' time."""
    created = live.manage("createcluster", "hpalab", "--nodes", "3")
    assert created.returncode == 0, created.stderr
    return "hpalab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, autoscaling_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(autoscaling_cluster), tmp_path)


def _deploy(kubectl: Kubectl, tmp_path: Path, name: str) -> None:
    manifest = tmp_path / f"{name}.yaml"
    manifest.write_text(WEB.replace("NAME", name))
    ok(kubectl("apply", "-f", str(manifest)))
    ok(kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s"))


def _replicas(kubectl: Kubectl, name: str) -> str:
    return ok(kubectl("get", "deployment", name, "-o", "jsonpath={.spec.replicas}"))


def test_an_hpa_scales_up_when_the_load_rises_and_back_after_the_stabilisation_window(kubectl: Kubectl, tmp_path: Path):
    _deploy(kubectl, tmp_path, "web")
    assert ok(kubectl("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=50")).strip() == (
        "horizontalpodautoscaler.autoscaling/web autoscaled"
    )
    # 2 Pods of 100m at 400m together: 200% of the request, four times the target; at most 2 x 2 per sync, then 5.
    ok(kubectl("annotate", "deployment", "web", "clusterviz.io/load=400m"))
    assert wait_until(lambda: _replicas(kubectl, "web") == "5")
    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=web,reason=SuccessfulRescale",
                        "-o", "jsonpath={range .items[*]}{.message}{'\\n'}{end}"))
    assert "New size: 4; reason: cpu resource utilization (percentage of request) above target" in events
    assert "New size: 5;" in events
    assert wait_until(lambda: ok(kubectl("get", "hpa", "web", "-o", "jsonpath={.status.currentReplicas}")) == "5")

    ok(kubectl("annotate", "deployment", "web", "clusterviz.io/load=50m", "--overwrite"))
    # Held for the 300 s window (highest recent recommendation), then straight to the minimum.
    assert wait_until(lambda: _replicas(kubectl, "web") == "2")
    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=web,reason=SuccessfulRescale",
                        "-o", "jsonpath={range .items[*]}{.message}{'\\n'}{end}"))
    assert "New size: 2; reason: All metrics below target" in events
    scaled = ok(kubectl("get", "hpa", "web", "-o", "jsonpath={.status.lastScaleTime}"))
    assert scaled
    ok(kubectl("delete", "hpa", "web"))
    ok(kubectl("delete", "deployment", "web"))


def test_get_and_describe_hpa_print_the_targets_bounds_and_conditions(kubectl: Kubectl, tmp_path: Path):
    _deploy(kubectl, tmp_path, "shown")
    ok(kubectl("autoscale", "deployment", "shown", "--min=2", "--max=6", "--cpu-percent=50"))
    ok(kubectl("annotate", "deployment", "shown", "clusterviz.io/load=40m"))
    assert wait_until(lambda: "cpu: 20%/50%" in ok(kubectl("get", "hpa", "shown")))
    out = ok(kubectl("get", "hpa", "shown"))
    assert header(out) == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    row = out.splitlines()[1].split()
    assert row[:2] == ["shown", "Deployment/shown"] and row[4:7] == ["2", "6", "2"]

    described = ok(kubectl("describe", "hpa", "shown"))
    assert "Reference:" in described and "Deployment/shown" in described
    assert "resource cpu on pods  (as a percentage of request):  20% (20m) / 50%" in described
    assert "Min replicas:" in described and "Deployment pods:" in described
    lines = {line.split()[0]: line.split()[1:3] for line in described.splitlines()
             if line.strip().startswith(("AbleToScale", "ScalingActive", "ScalingLimited"))}
    # 20% against 50% recommends 1 Pod; the 300 s window still holds the earlier recommendation of 2.
    assert lines["AbleToScale"] == ["True", "ScaleDownStabilized"]
    assert lines["ScalingActive"] == ["True", "ValidMetricFound"]
    assert lines["ScalingLimited"] == ["False", "DesiredWithinRange"]

    # kubectl autoscale posts autoscaling/v1; the v1 view converts the same object back.
    v1 = ok(kubectl("get", "horizontalpodautoscalers.v1.autoscaling", "shown", "-o",
                    "jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage} {.status.currentCPUUtilizationPercentage}"))
    assert v1 == "autoscaling/v1 50 20"
    refused = kubectl("autoscale", "deployment", "shown", "--name=bad", "--max=0")
    assert refused.returncode != 0
    ok(kubectl("delete", "hpa", "shown"))
    ok(kubectl("delete", "deployment", "shown"))


def test_a_v2_manifest_is_validated_with_upstreams_messages(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "bad.yaml"
    manifest.write_text("""apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: bad}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 2
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 4000}
""")
    result = kubectl("apply", "-f", str(manifest))
    assert result.returncode != 0
    assert 'The HorizontalPodAutoscaler "bad" is invalid' in result.stderr
    assert "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`" in result.stderr
    assert ("spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value "
            "or a target utilization") in result.stderr
    assert ("spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600"
            in result.stderr)
    assert "NotFound" in kubectl("get", "hpa", "bad").stderr


@pytest.fixture
def api_client(live: LiveServer, autoscaling_cluster: str) -> Iterator[client.ApiClient]:
    config = client.Configuration(host=live.cluster_url(autoscaling_cluster))
    with client.ApiClient(config) as api:
        yield api


def test_the_v1_and_v2_views_of_one_object_through_the_python_client(api_client: client.ApiClient):
    v1 = client.AutoscalingV1Api(api_client)
    v2 = client.AutoscalingV2Api(api_client)
    body = client.V2HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="viewed"),
        spec=client.V2HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V2CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="none"),
            max_replicas=4,
            metrics=[
                client.V2MetricSpec(type="Resource", resource=client.V2ResourceMetricSource(
                    name="cpu", target=client.V2MetricTarget(type="Utilization", average_utilization=60))),
                client.V2MetricSpec(type="Resource", resource=client.V2ResourceMetricSource(
                    name="memory", target=client.V2MetricTarget(type="AverageValue", average_value="100Mi"))),
            ],
            behavior=client.V2HorizontalPodAutoscalerBehavior(
                scale_down=client.V2HPAScalingRules(stabilization_window_seconds=60)),
        ),
    )
    created = v2.create_namespaced_horizontal_pod_autoscaler("default", body)
    assert created.spec.min_replicas == 1
    # A behavior given is completed with upstream's defaults; the scale-down window stays as written.
    assert created.spec.behavior.scale_up.stabilization_window_seconds == 0
    assert [(p.type, p.value, p.period_seconds) for p in created.spec.behavior.scale_up.policies] == [
        ("Pods", 4, 15), ("Percent", 100, 15)]
    assert created.spec.behavior.scale_down.select_policy == "Max"

    old = v1.read_namespaced_horizontal_pod_autoscaler("viewed", "default")
    assert old.api_version == "autoscaling/v1"
    assert old.spec.target_cpu_utilization_percentage == 60 and old.spec.max_replicas == 4
    # What v1 cannot say travels in upstream's annotations.
    assert '"memory"' in old.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"]
    assert '"StabilizationWindowSeconds":60' in old.metadata.annotations["autoscaling.alpha.kubernetes.io/behavior"]

    # An update through v1 keeps what only v2 shows. The autoscaler may write the status in between, so the
    # update is retried on a conflict, as client-go's RetryOnConflict does.
    for _attempt in range(5):
        old.spec.max_replicas = 7
        try:
            v1.replace_namespaced_horizontal_pod_autoscaler("viewed", "default", old)
            break
        except client.exceptions.ApiException as exc:
            if exc.status != 409:
                raise
            old = v1.read_namespaced_horizontal_pod_autoscaler("viewed", "default")
    else:
        raise AssertionError("the update kept conflicting")
    again = v2.read_namespaced_horizontal_pod_autoscaler("viewed", "default")
    assert again.spec.max_replicas == 7
    assert [m.resource.name for m in again.spec.metrics] == ["cpu", "memory"]
    assert again.spec.behavior.scale_down.stabilization_window_seconds == 60
    assert not (again.metadata.annotations or {})

    listed = v1.list_namespaced_horizontal_pod_autoscaler("default")
    assert [h.metadata.name for h in listed.items] == ["viewed"]
    v1.delete_namespaced_horizontal_pod_autoscaler("viewed", "default")
    assert wait_until(lambda: not v2.list_namespaced_horizontal_pod_autoscaler("default").items)
