"""ResourceQuotas and LimitRanges: validation, the LimitRanger and ResourceQuota admission steps with upstream's
messages, kubectl get quota's columns and the protobuf body of kubectl create quota."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate
from clusterviz.apimachinery.protobuf import decode_object
from tests.apimachinery.test_protobuf import envelope, object_meta, v_msg, v_str

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def client() -> Client:
    return Client("demo", "kubectl", simulated=False)


def quota(name: str, **hard: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "default"},
            "spec": {"hard": {k.replace("_", "."): v for k, v in hard.items()}}}


def limit_range(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
            "spec": {"limits": list(items)}}


def pod(name: str, **resources: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "resources": resources}]}}


async def refusal(obj: dict[str, Any]) -> str:
    with pytest.raises(errors.StatusError) as refused:
        await client().create(obj)
    assert refused.value.code == 403
    return refused.value.message


def messages(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate(obj["kind"], obj)]


def test_quota_names_standard_resources_and_limit_ranges_keep_their_bounds_in_order():
    assert messages(quota("q", pods="2", requests_cpu="1", **{"count/deployments.apps": "3"})) == []
    assert messages(quota("q", widgets="2")) == [
        'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
        'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    ]
    assert messages(quota("q", pods="-1")) == [
        'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0'
    ]
    assert messages(limit_range({"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}})) == [
        'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
    ]
    assert messages(limit_range({"type": "Pod", "default": {"cpu": "1"}})) == [
        "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"
    ]


@pytest.mark.django_db(transaction=True)
async def test_limit_ranger_defaults_requests_and_limits_and_refuses_what_is_out_of_range():
    kubectl = client()
    await kubectl.create(limit_range({"type": "Container", "max": {"cpu": "1"}, "defaultRequest": {"cpu": "250m"},
                                      "min": {"memory": "64Mi"}}))
    created = await kubectl.create(pod("defaulted", requests={"memory": "128Mi"}))
    assert created["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "250m", "memory": "128Mi"},
                                                             "limits": {"cpu": "1"}}
    assert created["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container app; cpu limit for container app"
    )
    assert created["status"]["qosClass"] == "Burstable"
    assert await refusal(pod("big", limits={"cpu": "2"}, requests={"memory": "128Mi"})) == (
        'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2'
    )
    assert await refusal(pod("both", limits={"cpu": "2"}, requests={"memory": "32Mi"})) == (
        'pods "both" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, '
        "maximum cpu usage per Container is 1, but limit is 2]"
    )
    assert await kubectl.get_or_none("pods", "big", "default") is None


@pytest.mark.django_db(transaction=True)
async def test_a_quota_refuses_the_pod_past_its_count_and_demands_requests_it_tracks():
    kubectl = client()
    await kubectl.create(quota("q1", pods="2"))
    await kubectl.create(pod("one"))
    await kubectl.create(pod("two"))
    assert await refusal(pod("x")) == (
        'pods "x" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2'
    )
    await kubectl.create(quota("compute", requests_cpu="1", limits_memory="1Gi"))
    assert await refusal(pod("bare")) == (
        'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: app; requests.cpu for: app'
    )
    # Admission charged each Pod to q1's status.used; more room comes from a higher limit.
    assert (await kubectl.get("resourcequotas", "q1", "default"))["status"]["used"] == {"pods": "2"}
    await kubectl.patch("resourcequotas", "q1", {"spec": {"hard": {"pods": "10"}}}, "default")
    sized = pod("sized", requests={"cpu": "600m"}, limits={"memory": "512Mi"})
    await kubectl.create(sized)
    over = pod("over", requests={"cpu": "600m"}, limits={"memory": "512Mi"})
    assert await refusal(over) == (
        'pods "over" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, '
        "limited: requests.cpu=1"
    )


@pytest.mark.django_db(transaction=True)
async def test_object_counts_are_quota_too():
    kubectl = client()
    # The namespace already holds one ConfigMap: kube-root-ca.crt, which the root CA publisher writes.
    await kubectl.create(quota("objects", configmaps="2", **{"count/secrets": "0"}))
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}
    await kubectl.create(config)
    assert await refusal({**config, "metadata": {"name": "b", "namespace": "default"}}) == (
        'configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=2, '
        "limited: configmaps=2"
    )
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "default"}}
    assert await refusal(secret) == (
        'secrets "s" is forbidden: exceeded quota: objects, requested: count/secrets=1, used: count/secrets=0, '
        "limited: count/secrets=0"
    )


def test_kubectl_get_quota_columns():
    obj = quota("q1", pods="2")
    obj["metadata"]["creationTimestamp"] = "2025-12-31T23:00:00Z"
    obj["status"] = {"hard": {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"},
                     "used": {"pods": "1", "requests.cpu": "500m", "limits.memory": "0"}}
    table = build_table("quota", [obj], NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age", "Request", "Limit"]
    assert table["rows"][0]["cells"] == ["q1", "60m", "pods: 1/2, requests.cpu: 500m/1", "limits.memory: 0/1Gi"]
    limits = build_table("limitranges", [limit_range()], NOW)
    assert [c["name"] for c in limits["columnDefinitions"]] == ["Name", "Created At"]


def test_the_protobuf_body_of_kubectl_create_quota():
    # kubectl create quota q1 --hard=pods=2,requests.cpu=1: hard is a map of Quantity messages (field 1: string).
    hard = b"".join(v_msg(1, v_str(1, k), v_msg(2, v_str(1, v))) for k, v in (("pods", "2"), ("requests.cpu", "1")))
    raw = object_meta(1, "q1") + v_msg(2, hard) + v_msg(3)
    assert decode_object(envelope("v1", "ResourceQuota", raw)) == {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q1"},
        "spec": {"hard": {"pods": "2", "requests.cpu": "1"}},
    }


@pytest.mark.django_db(transaction=True)
async def test_a_claims_storage_stays_within_the_limit_range_and_the_quota():
    kubectl = client()
    await kubectl.create(limit_range({"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"},
                                      "max": {"storage": "5Gi"}}))

    def claim(name: str, size: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}}

    assert await refusal(claim("tiny", "500Mi")) == (
        'persistentvolumeclaims "tiny" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, '
        "but request is 500Mi"
    )
    assert await refusal(claim("huge", "10Gi")) == (
        'persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, '
        "but request is 10Gi"
    )
    await kubectl.create(quota("storage", requests_storage="6Gi"))
    await kubectl.create(claim("first", "4Gi"))
    assert await refusal(claim("second", "3Gi")) == (
        'persistentvolumeclaims "second" is forbidden: exceeded quota: storage, requested: requests.storage=3Gi, '
        "used: requests.storage=4Gi, limited: requests.storage=6Gi"
    )


@pytest.mark.django_db(transaction=True)
async def test_the_view_and_edit_roles_cover_ingresses_quotas_and_limit_ranges():
    view = await client().get("clusterroles", "system:aggregate-to-view")
    edit = await client().get("clusterroles", "system:aggregate-to-edit")
    readable = {(g, r) for rule in view["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert {("", "resourcequotas"), ("", "limitranges"), ("networking.k8s.io", "ingresses")} <= readable
    assert any("networking.k8s.io" in rule["apiGroups"] and "ingresses" in rule["resources"] and
               "create" in rule["verbs"] for rule in edit["rules"])


@pytest.mark.django_db(transaction=True)
async def test_scoped_quotas_count_only_the_pods_they_select():
    kubectl = client()
    best_effort = {**quota("best-effort", pods="1"), "spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}}
    await kubectl.create(best_effort)
    critical = quota("critical", pods="0")
    critical["spec"]["scopeSelector"] = {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["system-cluster-critical"]}]}
    await kubectl.create(critical)
    await kubectl.create(pod("free"))
    assert await refusal(pod("free-too")) == (
        'pods "free-too" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1'
    )
    await kubectl.create(pod("sized", requests={"cpu": "100m"}))
    urgent = pod("urgent", requests={"cpu": "100m"})
    urgent["spec"]["priorityClassName"] = "system-cluster-critical"
    assert await refusal(urgent) == (
        'pods "urgent" is forbidden: exceeded quota: critical, requested: pods=1, used: pods=0, limited: pods=0'
    )


@pytest.mark.django_db(transaction=True)
async def test_a_new_quotas_status_is_the_servers_to_write():
    written = {**quota("q1", pods="2"), "status": {"hard": {"pods": "100"}, "used": {"pods": "0"}}}
    assert (await client().create(written))["status"] == {}


@pytest.mark.django_db(transaction=True)
async def test_an_update_is_charged_what_it_adds():
    kubectl = client()
    await kubectl.create(quota("ports", **{"services.nodeports": "0", "services": "5"}))
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    await kubectl.create(service)
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.patch("services", "web", {"spec": {"type": "NodePort"}}, "default")
    assert refused.value.code == 403
    assert refused.value.message == (
        'services "web" is forbidden: exceeded quota: ports, requested: services.nodeports=1, '
        "used: services.nodeports=0, limited: services.nodeports=0"
    )
    labelled = await kubectl.patch("services", "web", {"metadata": {"labels": {"tier": "front"}}}, "default")
    assert labelled["metadata"]["labels"] == {"tier": "front"}


@pytest.mark.django_db(transaction=True)
async def test_a_create_refused_for_its_name_charges_no_quota():
    kubectl = client()
    await kubectl.create(quota("q1", pods="5"))
    await kubectl.create(pod("same"))
    charged = await kubectl.get("resourcequotas", "q1", "default")
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.create(pod("same"))
    assert refused.value.code == 409
    again = await kubectl.get("resourcequotas", "q1", "default")
    assert again["metadata"]["resourceVersion"] == charged["metadata"]["resourceVersion"]
    assert again["status"]["used"] == {"pods": "1"}
