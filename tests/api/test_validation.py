"""Validation: upstream's field paths and messages for good and bad objects of every kind."""

import copy
import re
from typing import Any

import pytest

from clusterviz.api.validation import validate

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
PERCENT_MSG = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
    "regex used for validation is '[0-9]+%')"
)
UPDATABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)

CTR = "spec.template.spec.containers[0]"
AFFINITY = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"


# --- the seed manifests ---------------------------------------------------------


def deployment(node_name: str | None = None) -> dict[str, Any]:
    """The seeds' Deployment: myapp, 3 replicas, soscscs/myapp:v1 on port 80."""
    pod_spec: dict[str, Any] = {
        "containers": [{"name": "myapp", "image": "soscscs/myapp:v1", "ports": [{"containerPort": 80}]}]
    }
    if node_name:
        pod_spec["nodeName"] = node_name
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "myapp", "namespace": "default", "labels": {"app": "myapp"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "myapp"}},
            "template": {"metadata": {"labels": {"app": "myapp"}}, "spec": pod_spec},
        },
    }


def replica_set() -> dict[str, Any]:
    obj = deployment()
    obj.update(kind="ReplicaSet", metadata={"name": "myapp-5d4f7c9b8", "namespace": "default"})
    return obj


def replication_controller() -> dict[str, Any]:
    obj = deployment()
    obj.update(apiVersion="v1", kind="ReplicationController", metadata={"name": "myapp", "namespace": "default"})
    obj["spec"]["selector"] = {"app": "myapp"}
    return obj


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "myapp-5d4f7c9b8-x2x7k", "namespace": "default", "labels": {"app": "myapp"}},
        "spec": copy.deepcopy(deployment()["spec"]["template"]["spec"]),
    }


def service() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "myapp", "namespace": "default"},
        "spec": {"selector": {"app": "myapp"}, "ports": [{"port": 80, "targetPort": 80}]},
    }


def node() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node01", "labels": {"kubernetes.io/hostname": "node01"}},
        "spec": {"podCIDRs": ["10.244.1.0/24"]},
        "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"}},
    }


def namespace() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}


def config_map() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"},
        "data": {"app.properties": "color=blue", "LOG_LEVEL": "info"},
    }


def endpoints() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "myapp", "namespace": "default"},
        "subsets": [{"addresses": [{"ip": "10.244.1.5", "nodeName": "node01"}], "ports": [{"port": 80}]}],
    }


def event() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "myapp.17a8b2c3d4e5f6a7", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "myapp"},
        "reason": "Scheduled",
        "message": "Successfully assigned default/myapp to node01",
        "type": "Normal",
        "count": 1,
    }


BUILDERS = {
    "Deployment": deployment,
    "ReplicaSet": replica_set,
    "ReplicationController": replication_controller,
    "Pod": pod,
    "Service": service,
    "Node": node,
    "Namespace": namespace,
    "ConfigMap": config_map,
    "Endpoints": endpoints,
    "Event": event,
}

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [int(i) if i else name for name, i in _STEP.findall(path)]


def changed(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``obj`` with ``path`` (``spec.template.spec.containers[0].image``) set to ``value``."""
    result = copy.deepcopy(obj)
    *parents, last = _steps(path)
    target: Any = result
    for step in parents:
        target = target[step]
    target[last] = value
    return result


def removed(obj: dict[str, Any], path: str) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    *parents, last = _steps(path)
    target: Any = result
    for step in parents:
        target = target[step]
    del target[last]
    return result


def messages(kind: str, obj: Any, old: Any = None) -> list[str]:
    return [str(err) for err in validate(kind, obj, old)]


# --- valid objects ------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_valid_objects_of_every_kind_have_no_errors(kind):
    assert messages(kind, BUILDERS[kind]()) == []


def test_the_seed_deployment_is_valid_with_and_without_a_node_name():
    assert messages("Deployment", deployment()) == []
    assert messages("Deployment", deployment(node_name="node01")) == []


def test_fields_left_for_defaulting_are_not_reported_missing():
    obj = deployment()
    assert "strategy" not in obj["spec"]
    assert "restartPolicy" not in obj["spec"]["template"]["spec"]
    assert messages("Deployment", obj) == []


def test_an_unchanged_update_is_valid():
    for kind, build in BUILDERS.items():
        assert messages(kind, build(), build()) == [], kind


def test_unknown_kinds_have_no_rules():
    assert messages("Widget", {"spec": "anything"}) == []


def test_a_body_that_is_not_an_object_is_one_type_error():
    [err] = validate("Pod", ["not", "an", "object"])
    assert (err.reason, err.field, err.message) == (
        "FieldValueTypeInvalid",
        "",
        'Invalid value: ["not","an","object"]: must be of type object',
    )


def test_every_error_carries_reason_field_and_message():
    [err] = validate("Deployment", changed(deployment(), "spec.replicas", -1))
    assert err.as_cause() == {
        "reason": "FieldValueInvalid",
        "field": "spec.replicas",
        "message": "Invalid value: -1: must be greater than or equal to 0",
    }


# --- invalid objects: one row per bad object, with the exact kubectl text -------------


def test_there_are_many_distinct_invalid_objects():
    # Each group's file has its own table (imported here, not at the top: they import this module's builders).
    from tests.api.test_apps_validation import CASES as APPS
    from tests.api.test_core_validation import CASES as CORE
    from tests.api.test_pod_validation import CASES as PODS

    assert len(APPS) + len(PODS) + len(CORE) >= 40


# --- updates ------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["name", "namespace", "uid"])
def test_name_namespace_and_uid_are_immutable(field):
    old = changed(deployment(), "metadata.uid", "6f1c9d2e")
    new = changed(old, f"metadata.{field}", "other")
    assert f'metadata.{field}: Invalid value: "other": field is immutable' in messages("Deployment", new, old)


def test_an_update_without_uid_keeps_the_stored_one():
    old = changed(deployment(), "metadata.uid", "6f1c9d2e")
    assert messages("Deployment", deployment(), old) == []


# --- robustness ---------------------------------------------------------------------

GARBAGE = [None, True, 0, -7, 2.5, "", "x", [], ["x"], [None], {}, {"x": 1}, 2**40]


def _paths(value: Any, prefix: tuple[Any, ...] = ()):
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for step, item in items:
        yield (*prefix, step)
        yield from _paths(item, (*prefix, step))


def _replaced(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    target: Any = result
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return result


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_any_value_anywhere_gives_errors_not_exceptions(kind):
    base = BUILDERS[kind]()
    for path in _paths(base):
        for junk in GARBAGE:
            obj = _replaced(base, path, copy.deepcopy(junk))
            for old in (None, base):
                for err in validate(kind, obj, old):
                    assert isinstance(str(err), str)
