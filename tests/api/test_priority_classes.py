"""PriorityClasses and the Priority admission plugin, with the real API server's messages."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate

pytestmark = pytest.mark.django_db(transaction=True)


def client() -> Client:
    return Client("demo", "kubectl", simulated=False)


def priority_class(name: str, value: int = 1000, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}}


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate("PriorityClass", obj, old)]


def test_user_classes_may_not_reach_the_system_range():
    assert messages(priority_class("high", 1000000000)) == []
    assert messages(priority_class("higher", 1000000001)) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
    ]


def test_the_system_prefix_is_reserved():
    assert messages(priority_class("system-node-critical", 2000001000)) == []
    assert messages(priority_class("system-mine", 5)) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-mine is not a known system priority class"
    ]
    assert messages(priority_class("system-cluster-critical", 5)) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-cluster-critical PriorityClass must be 2000000000"
    ]


def test_value_and_preemption_policy_never_change():
    old = priority_class("high", 10, preemptionPolicy="Never")
    assert messages(priority_class("high", 11, preemptionPolicy="PreemptLowerPriority"), old) == [
        "value: Forbidden: may not be changed in an update.",
        'preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable',
    ]
    assert messages(priority_class("high", 10, preemptionPolicy="Sometimes")) == [
        'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'
    ]


async def test_every_cluster_has_the_system_classes_and_they_cannot_be_deleted():
    listed = await client().list("priorityclasses")
    values = {pc["metadata"]["name"]: (pc["value"], pc["preemptionPolicy"]) for pc in listed["items"]}
    assert values == {
        "system-cluster-critical": (2000000000, "PreemptLowerPriority"),
        "system-node-critical": (2000001000, "PreemptLowerPriority"),
    }
    with pytest.raises(errors.StatusError) as refused:
        await client().delete("priorityclasses", "system-node-critical")
    assert refused.value.code == 403
    assert refused.value.message == (
        'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
        "this is a system priority class and cannot be deleted"
    )


async def test_a_pod_takes_its_class_priority_and_preemption_policy():
    kubectl = client()
    await kubectl.create(priority_class("batch-low", -10, preemptionPolicy="Never"))
    created = await kubectl.create(pod("low", priorityClassName="batch-low"))
    assert (created["spec"]["priority"], created["spec"]["preemptionPolicy"]) == (-10, "Never")
    plain = await kubectl.create(pod("plain"))
    assert (plain["spec"]["priority"], plain["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in plain["spec"]
    critical = await kubectl.create(pod("critical", priorityClassName="system-cluster-critical"))
    assert critical["spec"]["priority"] == 2000000000


async def test_an_unknown_class_or_a_written_priority_is_refused():
    kubectl = client()
    with pytest.raises(errors.StatusError) as unknown:
        await kubectl.create(pod("x", priorityClassName="nope"))
    assert (unknown.value.code, unknown.value.message) == (
        403, 'pods "x" is forbidden: no PriorityClass with name nope was found'
    )
    with pytest.raises(errors.StatusError) as written:
        await kubectl.create(pod("y", priority=7))
    assert written.value.message == (
        'pods "y" is forbidden: the integer value of priority (7) must not be provided in pod spec; '
        "priority admission controller computed 0 from the given PriorityClass name"
    )
    # Naming the class's own value is allowed, as upstream's comparison lets it through.
    same = await kubectl.create(pod("z", priorityClassName="system-node-critical", priority=2000001000))
    assert same["spec"]["priority"] == 2000001000


async def test_the_global_default_class_names_pods_without_one_and_only_one_may_exist():
    kubectl = client()
    await kubectl.create(priority_class("everyday", 50, globalDefault=True))
    created = await kubectl.create(pod("p"))
    assert (created["spec"]["priorityClassName"], created["spec"]["priority"]) == ("everyday", 50)
    with pytest.raises(errors.StatusError) as second:
        await kubectl.create(priority_class("another", 60, globalDefault=True))
    assert second.value.message == (
        'priorityclasses.scheduling.k8s.io "another" is forbidden: '
        "PriorityClass everyday is already marked as default. Only one default can exist"
    )
    # The default itself may be updated.
    updated = await kubectl.patch("priorityclasses", "everyday", {"description": "most Pods"})
    assert updated["description"] == "most Pods"


async def test_an_update_without_the_priority_keeps_it():
    kubectl = client()
    created = await kubectl.create(pod("kept", priorityClassName="system-cluster-critical"))
    body = {**created, "spec": {k: v for k, v in created["spec"].items() if k != "priority"}}
    body["metadata"] = {**created["metadata"], "labels": {"a": "b"}}
    replaced = await kubectl.update(body)
    assert replaced["spec"]["priority"] == 2000000000


async def test_controllers_pods_are_refused_with_the_generated_name_prefix():
    kubectl = client()
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.create({"apiVersion": "v1", "kind": "Pod",
                              "metadata": {"generateName": "web-", "namespace": "default"},
                              "spec": {"priorityClassName": "nope",
                                       "containers": [{"name": "app", "image": "nginx:1.27"}]}})
    assert refused.value.message == 'pods "web-" is forbidden: no PriorityClass with name nope was found'


def test_kubectl_get_priorityclasses_prints_upstreams_columns():
    table = build_table("priorityclasses", [priority_class("high", 1000, globalDefault=True)], datetime.now(UTC))
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Value", "Global-Default", "Age", "PreemptionPolicy"
    ]
    assert table["rows"][0]["cells"][:3] == ["high", 1000, True]
    assert table["rows"][0]["cells"][4] == "PreemptLowerPriority"


async def test_malformed_priorities_are_reported_by_validation_not_admission():
    kubectl = client()
    with pytest.raises(errors.StatusError) as bad:
        await kubectl.create(pod("typed", priority="high"))
    assert bad.value.code == 422
    with pytest.raises(errors.StatusError) as bad_class:
        await kubectl.create(priority_class("typed", "high"))  # type: ignore[arg-type]
    assert bad_class.value.code == 422
    assert (await kubectl.list("priorityclasses"))["items"][0]["metadata"]["name"].startswith("system-")
