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

CASES = [
    # metadata
    (
        "Deployment",
        removed(deployment(), "metadata.name"),
        "metadata.name: Required value: name or generateName is required",
    ),
    (
        "Deployment",
        changed(deployment(), "metadata.name", "My_App"),
        f'metadata.name: Invalid value: "My_App": {SUBDOMAIN_MSG}',
    ),
    ("Pod", removed(pod(), "metadata.namespace"), "metadata.namespace: Required value"),
    (
        "Pod",
        changed(pod(), "metadata.namespace", "Default"),
        f'metadata.namespace: Invalid value: "Default": {LABEL_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "metadata.labels", ["app", "myapp"]),
        'metadata.labels: Invalid value: ["app","myapp"]: must be of type object',
    ),
    (
        "Pod",
        changed(pod(), "metadata.labels", {"bad key!": "x"}),
        f'metadata.labels: Invalid value: "bad key!": {NAME_PART_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "metadata.labels", {"app": "my app"}),
        f'metadata.labels: Invalid value: "my app": {LABEL_VALUE_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "metadata.labels", {"version": 2}),
        "metadata.labels[version]: Invalid value: 2: must be of type string",
    ),
    (
        "Pod",
        changed(pod(), "metadata.annotations", {"note": "x" * 262144}),
        "metadata.annotations: Too long: must have at most 262144 bytes",
    ),
    ("Pod", changed(pod(), "metadata", "myapp"), 'metadata: Invalid value: "myapp": must be of type object'),
    (
        "Namespace",
        changed(namespace(), "metadata.name", "Team_A"),
        f'metadata.name: Invalid value: "Team_A": {LABEL_MSG}',
    ),
    (
        "Namespace",
        changed(namespace(), "metadata.name", "team.a"),
        'metadata.name: Invalid value: "team.a": must not contain dots',
    ),
    ("Service", changed(service(), "metadata.name", "1web"), f'metadata.name: Invalid value: "1web": {DNS1035_MSG}'),
    ("Node", changed(node(), "metadata.name", "Node_01"), f'metadata.name: Invalid value: "Node_01": {SUBDOMAIN_MSG}'),
    (
        "ConfigMap",
        changed(config_map(), "metadata.name", "-settings"),
        f'metadata.name: Invalid value: "-settings": {SUBDOMAIN_MSG}',
    ),
    # workload spec
    (
        "Deployment",
        changed(deployment(), "spec.replicas", -1),
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.replicas", 1.5),
        "spec.replicas: Invalid value: 1.5: must be of type integer",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.replicas", "3"),
        'spec.replicas: Invalid value: "3": must be of type integer',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.replicas", True),
        "spec.replicas: Invalid value: true: must be of type integer",
    ),
    (
        "Deployment",
        changed(deployment(), "spec", "replicas: 3"),
        'spec: Invalid value: "replicas: 3": must be of type object',
    ),
    ("Deployment", removed(deployment(), "spec.selector"), "spec.selector: Required value"),
    (
        "Deployment",
        changed(deployment(), "spec.selector", {}),
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.selector.matchLabels", {"app": "other"}),
        'spec.template.metadata.labels: Invalid value: {"app":"myapp"}: `selector` does not match template `labels`',
    ),
    (
        "Deployment",
        changed(
            deployment(),
            "spec.selector",
            {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["myapp"]}]},
        ),
        'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.selector", {"matchExpressions": [{"key": "app", "operator": "In"}]}),
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ),
    ("Deployment", removed(deployment(), "spec.template"), "spec.template.spec.containers: Required value"),
    (
        "Deployment",
        changed(deployment(), "spec.template.metadata.labels", {"app": "myapp", "tier": "web front"}),
        f'spec.template.labels: Invalid value: "web front": {LABEL_VALUE_MSG}',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.template.spec.restartPolicy", "Never"),
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.template.spec.activeDeadlineSeconds", 30),
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"type": "BlueGreen"}),
        'spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"',
    ),
    (
        "Deployment",
        changed(
            deployment(),
            "spec.strategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}},
        ),
        "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"rollingUpdate": {"maxUnavailable": "110%"}}),
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"rollingUpdate": {"maxSurge": "half"}}),
        f'spec.strategy.rollingUpdate.maxSurge: Invalid value: "half": {PERCENT_MSG}',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"rollingUpdate": {"maxSurge": -1}}),
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"rollingUpdate": {"maxSurge": 1.5}}),
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: 1.5: must be an integer or a string",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.strategy", {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
        "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ),
    (
        "Deployment",
        changed(changed(deployment(), "spec.minReadySeconds", 30), "spec.progressDeadlineSeconds", 30),
        "spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.revisionHistoryLimit", -2),
        "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
    ),
    (
        "ReplicaSet",
        changed(replica_set(), "spec.replicas", -3),
        "spec.replicas: Invalid value: -3: must be greater than or equal to 0",
    ),
    (
        "ReplicaSet",
        changed(replica_set(), "spec.selector", {"matchLabels": {}}),
        'spec.selector: Invalid value: {"matchLabels":{}}: empty selector is invalid for deployment',
    ),
    (
        "ReplicationController",
        changed(replication_controller(), "spec.template.spec.restartPolicy", "Never"),
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ),
    ("ReplicationController", removed(replication_controller(), "spec.template"), "spec.template: Required value"),
    (
        "ReplicationController",
        changed(replication_controller(), "spec.selector", {"app": "web"}),
        'spec.template.metadata.labels: Invalid value: {"app":"myapp"}: `selector` does not match template `labels`',
    ),
    (
        "ReplicationController",
        changed(removed(replication_controller(), "spec.selector"), "spec.template.metadata.labels", {}),
        "spec.selector: Required value",
    ),
    # containers
    ("Deployment", removed(deployment(), f"{CTR}.image"), f"{CTR}.image: Required value"),
    ("Deployment", changed(deployment(), f"{CTR}.image", ""), f"{CTR}.image: Required value"),
    (
        "Deployment",
        changed(deployment(), "spec.template.spec.containers", []),
        "spec.template.spec.containers: Required value",
    ),
    (
        "Deployment",
        changed(deployment(), "spec.template.spec.containers", "nginx"),
        'spec.template.spec.containers: Invalid value: "nginx": must be of type array',
    ),
    (
        "Deployment",
        changed(deployment(), "spec.template.spec.containers", ["nginx"]),
        'spec.template.spec.containers[0]: Invalid value: "nginx": must be of type object',
    ),
    ("Deployment", changed(deployment(), f"{CTR}.name", "My_App"), f'{CTR}.name: Invalid value: "My_App": {LABEL_MSG}'),
    ("Deployment", removed(deployment(), f"{CTR}.name"), f"{CTR}.name: Required value"),
    (
        "Pod",
        changed(pod(), "spec.containers", [{"name": "web", "image": "nginx"}, {"name": "web", "image": "redis"}]),
        'spec.containers[1].name: Duplicate value: "web"',
    ),
    (
        "Pod",
        changed(pod(), "spec.initContainers", [{"name": "myapp", "image": "busybox"}]),
        'spec.initContainers[0].name: Duplicate value: "myapp"',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].containerPort", 70000),
        f"{CTR}.ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].containerPort", 0),
        f"{CTR}.ports[0].containerPort: Required value",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].containerPort", True),
        f"{CTR}.ports[0].containerPort: Invalid value: true: must be of type integer",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].containerPort", "80"),
        f'{CTR}.ports[0].containerPort: Invalid value: "80": must be of type integer',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].hostPort", 65536),
        f"{CTR}.ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].protocol", "HTTP"),
        f'{CTR}.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].name", "web--port"),
        f'{CTR}.ports[0].name: Invalid value: "web--port": must not contain consecutive hyphens',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].name", "8080"),
        f'{CTR}.ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.ports[0].name", "a-very-long-port-name"),
        f'{CTR}.ports[0].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
    ),
    (
        "Deployment",
        changed(
            deployment(), f"{CTR}.ports", [{"containerPort": 80, "name": "http"}, {"containerPort": 81, "name": "http"}]
        ),
        f'{CTR}.ports[1].name: Duplicate value: "http"',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.env", [{"name": "A=B", "value": "1"}]),
        f"{CTR}.env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
    ),
    ("Deployment", changed(deployment(), f"{CTR}.env", [{"value": "1"}]), f"{CTR}.env[0].name: Required value"),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.env", [{"name": "A", "valueFrom": {}}]),
        f'{CTR}.env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    ),
    (
        "Deployment",
        changed(
            deployment(),
            f"{CTR}.env",
            [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "bad key"}}}],
        ),
        f'{CTR}.env[0].valueFrom.configMapKeyRef.key: Invalid value: "bad key": {CONFIG_KEY_MSG}',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.imagePullPolicy", "Sometimes"),
        f'{CTR}.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.livenessProbe", {"initialDelaySeconds": 5}),
        f"{CTR}.livenessProbe: Required value: must specify a handler type",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.livenessProbe", {"httpGet": {"port": 80}, "successThreshold": 2}),
        f"{CTR}.livenessProbe.successThreshold: Invalid value: 2: must be 1",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.readinessProbe", {"tcpSocket": {"port": 0}}),
        f"{CTR}.readinessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive",
    ),
    # resources
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        f'{CTR}.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"requests": {"memory": "256Mi"}, "limits": {"memory": "128Mi"}}),
        f'{CTR}.resources.requests: Invalid value: "256Mi": must be less than or equal to memory limit of 128Mi',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"limits": {"memory": "lots"}}),
        f'{CTR}.resources.limits[memory]: Invalid value: "lots": {QUANTITY_MSG}',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"requests": {"cpu": True}}),
        f"{CTR}.resources.requests[cpu]: Invalid value: true: {QUANTITY_MSG}",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"limits": {"cpu": "-1"}}),
        f'{CTR}.resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"limits": {"gpu": "1"}}),
        f'{CTR}.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"requests": {"example.com/gpu": "1"}}),
        f"{CTR}.resources.limits: Required value: Limit must be set for non overcommitable resources",
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", {"limits": {"example.com/gpu": "500m"}}),
        f'{CTR}.resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
    ),
    (
        "Deployment",
        changed(deployment(), f"{CTR}.resources", "1 cpu"),
        f'{CTR}.resources: Invalid value: "1 cpu": must be of type object',
    ),
    # pod spec fields
    (
        "Pod",
        changed(pod(), "spec.restartPolicy", "Sometimes"),
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ),
    (
        "Pod",
        changed(pod(), "spec.dnsPolicy", "Google"),
        'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ),
    ("Pod", changed(pod(), "spec.nodeName", "Node_01"), f'spec.nodeName: Invalid value: "Node_01": {SUBDOMAIN_MSG}'),
    (
        "Pod",
        changed(pod(), "spec.nodeSelector", {"disk type": "ssd"}),
        f'spec.nodeSelector: Invalid value: "disk type": {NAME_PART_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "spec.nodeSelector", ["ssd"]),
        'spec.nodeSelector: Invalid value: ["ssd"]: must be of type object',
    ),
    (
        "Pod",
        changed(pod(), "spec.activeDeadlineSeconds", 0),
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
    ),
    (
        "Pod",
        changed(pod(), "spec.serviceAccountName", "Robot"),
        f'spec.serviceAccountName: Invalid value: "Robot": {SUBDOMAIN_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "spec.preemptionPolicy", "Always"),
        'spec.preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"',
    ),
    # affinity
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "disk", "operator": "Within", "values": ["ssd"]}]}
                        ]
                    }
                }
            },
        ),
        f'{AFFINITY}.matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator',
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "disk", "operator": "NotIn"}]}]
                    }
                }
            },
        ),
        f"{AFFINITY}.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "disk", "operator": "Exists", "values": ["ssd"]}]}
                        ]
                    }
                }
            },
        ),
        f"{AFFINITY}.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["2", "4"]}]}
                        ]
                    }
                }
            },
        ),
        f"{AFFINITY}.matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
        ),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 0,
                            "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]},
                        }
                    ]
                }
            },
        ),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "myapp"}}}
                    ]
                }
            },
        ),
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.affinity",
            {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 101, "podAffinityTerm": {"topologyKey": "zone"}}
                    ]
                }
            },
        ),
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100",
    ),
    # tolerations
    (
        "Pod",
        changed(pod(), "spec.tolerations", [{"key": "gpu", "operator": "Maybe"}]),
        'spec.tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
    ),
    (
        "Pod",
        changed(pod(), "spec.tolerations", [{"key": "gpu", "operator": "Exists", "effect": "NoRun"}]),
        'spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ),
    (
        "Pod",
        changed(pod(), "spec.tolerations", [{"key": "gpu", "operator": "Exists", "value": "yes"}]),
        'spec.tolerations[0].operator: Invalid value: {"key":"gpu","operator":"Exists","value":"yes"}: value must be empty when `operator` is \'Exists\'',
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.tolerations",
            [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 60}],
        ),
        "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ),
    (
        "Pod",
        changed(pod(), "spec.tolerations", [{"operator": "Equal", "value": "x"}]),
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ),
    # volumes
    (
        "Pod",
        changed(
            changed(pod(), "spec.volumes", [{"name": "data", "emptyDir": {}}]),
            "spec.containers[0].volumeMounts",
            [{"name": "logs", "mountPath": "/var/log"}],
        ),
        'spec.containers[0].volumeMounts[0].name: Not found: "logs"',
    ),
    (
        "Pod",
        changed(pod(), "spec.volumes", [{"name": "data", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]),
        'spec.volumes[1].name: Duplicate value: "data"',
    ),
    (
        "Pod",
        changed(pod(), "spec.volumes", [{"name": "data", "emptyDir": {}, "hostPath": {"path": "/data"}}]),
        "spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type",
    ),
    (
        "Pod",
        changed(pod(), "spec.volumes", [{"name": "Data", "emptyDir": {}}]),
        f'spec.volumes[0].name: Invalid value: "Data": {LABEL_MSG}',
    ),
    (
        "Pod",
        changed(pod(), "spec.volumes", [{"name": "cfg", "configMap": {}}]),
        "spec.volumes[0].configMap.name: Required value",
    ),
    (
        "Pod",
        changed(pod(), "spec.volumes", [{"name": "cfg", "hostPath": {"path": "/x", "type": "Folder"}}]),
        'spec.volumes[0].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    ),
    (
        "Pod",
        changed(
            changed(pod(), "spec.volumes", [{"name": "a", "emptyDir": {}}]),
            "spec.containers[0].volumeMounts",
            [{"name": "a", "mountPath": "/x"}, {"name": "a", "mountPath": "/x"}],
        ),
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/x": must be unique',
    ),
    # topology spread
    (
        "Pod",
        changed(
            pod(),
            "spec.topologySpreadConstraints",
            [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
        ),
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.topologySpreadConstraints",
            [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}],
        ),
        'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"',
    ),
    (
        "Pod",
        changed(pod(), "spec.topologySpreadConstraints", [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]),
        "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
    ),
    (
        "Pod",
        changed(
            pod(),
            "spec.topologySpreadConstraints",
            [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}] * 2,
        ),
        'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
    ),
    # services
    ("Service", removed(service(), "spec.ports"), "spec.ports: Required value"),
    (
        "Service",
        changed(service(), "spec.ports[0].port", 0),
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
    ),
    (
        "Service",
        changed(service(), "spec.ports[0].port", 80.5),
        "spec.ports[0].port: Invalid value: 80.5: must be of type integer",
    ),
    (
        "Service",
        changed(service(), "spec.ports[0].protocol", "ICMP"),
        'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ),
    (
        "Service",
        changed(service(), "spec.ports[0].targetPort", "HTTP"),
        'spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ),
    (
        "Service",
        changed(service(), "spec.ports[0].targetPort", 70000),
        "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ),
    (
        "Service",
        changed(service(), "spec.type", "Internal"),
        'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ),
    (
        "Service",
        changed(changed(service(), "spec.type", "NodePort"), "spec.ports[0].nodePort", 8080),
        "spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767",
    ),
    (
        "Service",
        changed(service(), "spec.ports[0].nodePort", 30080),
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ),
    ("Service", changed(service(), "spec.ports", [{"port": 80}, {"port": 443}]), "spec.ports[0].name: Required value"),
    (
        "Service",
        changed(service(), "spec.ports", [{"name": "web", "port": 80}, {"name": "web", "port": 443}]),
        'spec.ports[1].name: Duplicate value: "web"',
    ),
    (
        "Service",
        changed(service(), "spec.ports", [{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
        'spec.ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}',
    ),
    (
        "Service",
        changed(service(), "spec.sessionAffinity", "Sticky"),
        'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"',
    ),
    (
        "Service",
        changed(service(), "spec.clusterIP", "10.96.0.300"),
        'spec.clusterIP: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ),
    (
        "Service",
        changed(service(), "spec.selector", {"app": "my app"}),
        f'spec.selector: Invalid value: "my app": {LABEL_VALUE_MSG}',
    ),
    (
        "Service",
        changed(service(), "spec.externalTrafficPolicy", "Local"),
        'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ),
    ("Service", {**service(), "spec": {"type": "ExternalName"}}, "spec.externalName: Required value"),
    # nodes (upstream reports taints under metadata.taints)
    ("Node", changed(node(), "spec.taints", [{"key": "gpu"}]), "metadata.taints[0].effect: Required value"),
    (
        "Node",
        changed(node(), "spec.taints", [{"key": "gpu", "effect": "Evict"}]),
        'metadata.taints[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ),
    (
        "Node",
        changed(node(), "spec.taints", [{"key": "gpu!", "effect": "NoSchedule"}]),
        f'metadata.taints[0].key: Invalid value: "gpu!": {NAME_PART_MSG}',
    ),
    (
        "Node",
        changed(node(), "spec.taints", [{"key": "gpu", "value": "a b", "effect": "NoSchedule"}]),
        f'metadata.taints[0].value: Invalid value: "a b": {LABEL_VALUE_MSG}',
    ),
    (
        "Node",
        changed(
            node(),
            "spec.taints",
            [{"key": "gpu", "effect": "NoSchedule"}, {"key": "gpu", "value": "x", "effect": "NoSchedule"}],
        ),
        'metadata.taints[1]: Duplicate value: {"effect":"NoSchedule","key":"gpu","value":"x"}: taints must be unique by key and effect pair',
    ),
    (
        "Node",
        changed(node(), "spec.taints", "gpu=true:NoSchedule"),
        'spec.taints: Invalid value: "gpu=true:NoSchedule": must be of type array',
    ),
    (
        "Node",
        changed(node(), "status.capacity.cpu", "four"),
        f'status.capacity.cpu: Invalid value: "four": {QUANTITY_MSG}',
    ),
    (
        "Node",
        changed(node(), "status.capacity.memory", "-4Gi"),
        'status.capacity.memory: Invalid value: "-4Gi": must be greater than or equal to 0',
    ),
    (
        "Node",
        changed(node(), "spec.podCIDRs", ["10.244.1.0"]),
        'spec.podCIDRs[0]: Invalid value: ["10.244.1.0"]: must be valid CIDR',
    ),
    (
        "Node",
        changed(node(), "spec.unschedulable", "yes"),
        'spec.unschedulable: Invalid value: "yes": must be of type boolean',
    ),
    # namespaces, configmaps, endpoints, events
    (
        "Namespace",
        changed(namespace(), "spec", {"finalizers": ["cleanup"]}),
        'spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
    ),
    (
        "ConfigMap",
        changed(config_map(), "data", {"bad key": "x"}),
        f'data[bad key]: Invalid value: "bad key": {CONFIG_KEY_MSG}',
    ),
    ("ConfigMap", changed(config_map(), "data", {"..": "x"}), "data[..]: Invalid value: \"..\": must not be '..'"),
    (
        "ConfigMap",
        changed(config_map(), "data", {"..x": "x"}),
        "data[..x]: Invalid value: \"..x\": must not start with '..'",
    ),
    (
        "ConfigMap",
        changed(config_map(), "data", {"replicas": 3}),
        "data[replicas]: Invalid value: 3: must be of type string",
    ),
    (
        "ConfigMap",
        changed(config_map(), "binaryData", {"app.properties": "eA=="}),
        'data[app.properties]: Invalid value: "app.properties": duplicate of key present in binaryData',
    ),
    (
        "ConfigMap",
        changed(config_map(), "data", {"big": "x" * (1024 * 1024 + 1)}),
        ": Too long: must have at most 1048576 bytes",
    ),
    (
        "Endpoints",
        changed(endpoints(), "subsets[0].addresses", []),
        "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
    ),
    (
        "Endpoints",
        changed(endpoints(), "subsets[0].addresses[0].ip", "127.0.0.1"),
        'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ),
    (
        "Endpoints",
        changed(endpoints(), "subsets[0].addresses[0].ip", "pod-a"),
        'subsets[0].addresses[0].ip: Invalid value: "pod-a": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ),
    (
        "Endpoints",
        changed(endpoints(), "subsets[0].ports[0].port", 0),
        "subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
    ),
    (
        "Event",
        changed(event(), "involvedObject.namespace", "kube-system"),
        'involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace',
    ),
    (
        "Event",
        changed(event(), "involvedObject", "pod/myapp"),
        'involvedObject: Invalid value: "pod/myapp": must be of type object',
    ),
    ("Event", changed(event(), "count", "1"), 'count: Invalid value: "1": must be of type integer'),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), CASES, ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None
)
def test_invalid_object_reports_the_upstream_path_and_message(kind, obj, expected):
    assert expected in messages(kind, obj)


def test_there_are_many_distinct_invalid_objects():
    assert len(CASES) >= 40


def test_a_generate_name_stands_in_for_the_name():
    obj = removed(deployment(), "metadata.name")
    obj["metadata"]["generateName"] = "myapp-"
    assert messages("Deployment", obj) == []
    obj["metadata"]["generateName"] = "My_App-"
    assert messages("Deployment", obj) == [f'metadata.generateName: Invalid value: "My_App-": {SUBDOMAIN_MSG}']


def test_a_missing_selector_also_means_the_template_is_not_selected():
    assert messages("Deployment", removed(deployment(), "spec.selector")) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: {"app":"myapp"}: `selector` does not match template `labels`',
    ]


def test_selector_expressions_select_the_template_too():
    obj = changed(
        deployment(),
        "spec.selector",
        {"matchExpressions": [{"key": "app", "operator": "In", "values": ["myapp", "web"]}]},
    )
    assert messages("Deployment", obj) == []
    obj = changed(obj, "spec.selector.matchExpressions[0].operator", "NotIn")
    assert messages("Deployment", obj) == [
        'spec.template.metadata.labels: Invalid value: {"app":"myapp"}: `selector` does not match template `labels`'
    ]


def test_replication_controller_selector_defaults_to_the_template_labels():
    obj = removed(replication_controller(), "spec.selector")
    assert messages("ReplicationController", obj) == []


def test_port_name_problems_are_all_reported():
    obj = changed(deployment(), f"{CTR}.ports[0].name", "HTTP_Port")
    assert messages("Deployment", obj) == [
        f'{CTR}.ports[0].name: Invalid value: "HTTP_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]


def test_an_unknown_resource_name_gets_both_upstream_messages():
    obj = changed(deployment(), f"{CTR}.resources", {"limits": {"cpus": "1"}})
    assert messages("Deployment", obj) == [
        f'{CTR}.resources.limits[cpus]: Invalid value: "cpus": must be a standard resource type or fully qualified',
        f'{CTR}.resources.limits[cpus]: Invalid value: "cpus": must be a standard resource for containers',
    ]


def test_requests_equal_to_limits_and_extended_resources_are_fine():
    resources = {
        "requests": {"cpu": "500m", "memory": "128Mi"},
        "limits": {"cpu": "0.5", "memory": "128Mi", "example.com/gpu": 1},
    }
    assert messages("Deployment", changed(deployment(), f"{CTR}.resources", resources)) == []


def test_quantities_written_as_json_numbers_are_accepted():
    resources = {"requests": {"cpu": 0.25, "memory": 134217728}, "limits": {"cpu": 1}}
    assert messages("Deployment", changed(deployment(), f"{CTR}.resources", resources)) == []


def test_valid_affinity_tolerations_and_spread_constraints_pass():
    spec = pod()["spec"]
    spec["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["2"]}]},
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node01"]}]},
                ]
            }
        },
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "myapp"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        },
    }
    spec["tolerations"] = [
        {"operator": "Exists"},
        {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "gpu", "value": "true", "effect": "NoExecute", "tolerationSeconds": 60},
    ]
    spec["topologySpreadConstraints"] = [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "myapp"}},
        }
    ]
    assert messages("Pod", {**pod(), "spec": spec}) == []


def test_node_field_selectors_only_know_the_node_name():
    terms = [{"matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["x"]}]}]
    obj = changed(
        pod(),
        "spec.affinity",
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}},
    )
    assert (
        f'{AFFINITY}.matchFields[0].key: Invalid value: "metadata.labels": not a valid field selector key'
        in messages("Pod", obj)
    )


def test_a_headless_or_external_name_service_needs_no_ports():
    headless = removed(changed(service(), "spec.clusterIP", "None"), "spec.ports")
    assert messages("Service", headless) == []
    external = {**service(), "spec": {"type": "ExternalName", "externalName": "db.example.com."}}
    assert messages("Service", external) == []


def test_external_name_services_may_not_have_a_cluster_ip():
    obj = {**service(), "spec": {"type": "ExternalName", "externalName": "db.example.com", "clusterIP": "10.96.0.9"}}
    assert "spec.clusterIPs: Forbidden: may not be set for ExternalName services" in messages("Service", obj)


def test_a_node_port_service_in_range_is_valid():
    obj = changed(changed(service(), "spec.type", "NodePort"), "spec.ports[0].nodePort", 30080)
    assert messages("Service", obj) == []


def test_new_style_events_need_their_reporter():
    obj = {**event(), "eventTime": "2025-01-01T00:00:00.000000Z"}
    found = messages("Event", obj)
    assert "reportingComponent: Required value" in found
    assert "reportingInstance: Required value" in found
    assert "action: Required value" in found


def test_events_for_cluster_scoped_objects_may_live_in_default():
    obj = changed(event(), "involvedObject", {"kind": "Node", "name": "node01"})
    assert messages("Event", obj) == []


# --- updates ------------------------------------------------------------------------


def test_deployment_selector_is_immutable():
    old = deployment()
    new = changed(
        changed(old, "spec.selector.matchLabels", {"app": "v2"}), "spec.template.metadata.labels", {"app": "v2"}
    )
    assert messages("Deployment", new, old) == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"v2"}}: field is immutable'
    ]


def test_replica_set_selector_is_immutable():
    old = replica_set()
    new = changed(old, "spec.selector.matchLabels", {"app": "myapp", "tier": "web"})
    new["spec"]["template"]["metadata"]["labels"]["tier"] = "web"
    assert 'spec.selector: Invalid value: {"matchLabels":{"app":"myapp","tier":"web"}}: field is immutable' in messages(
        "ReplicaSet", new, old
    )


def test_deployment_template_and_replicas_may_change():
    old = deployment()
    new = changed(changed(old, "spec.replicas", 5), f"{CTR}.image", "soscscs/myapp:v2")
    assert messages("Deployment", new, old) == []


@pytest.mark.parametrize("field", ["name", "namespace", "uid"])
def test_name_namespace_and_uid_are_immutable(field):
    old = changed(deployment(), "metadata.uid", "6f1c9d2e")
    new = changed(old, f"metadata.{field}", "other")
    assert f'metadata.{field}: Invalid value: "other": field is immutable' in messages("Deployment", new, old)


def test_an_update_without_uid_keeps_the_stored_one():
    old = changed(deployment(), "metadata.uid", "6f1c9d2e")
    assert messages("Deployment", deployment(), old) == []


def test_pod_image_may_change():
    old = pod()
    new = changed(old, "spec.containers[0].image", "soscscs/myapp:v2")
    assert messages("Pod", new, old) == []


def test_pod_node_name_may_be_set_once():
    old = pod()
    bound = changed(old, "spec.nodeName", "node01")
    assert messages("Pod", bound, old) == []
    moved = changed(bound, "spec.nodeName", "node02")
    [error] = messages("Pod", moved, bound)
    assert error.startswith(f"spec: Forbidden: {UPDATABLE}\n")
    assert 'spec.nodeName: "node01" -> "node02"' in error


def test_other_pod_spec_changes_are_forbidden():
    old = pod()
    new = changed(old, "spec.containers[0].ports[0].containerPort", 8080)
    [error] = messages("Pod", new, old)
    assert error.startswith(f"spec: Forbidden: {UPDATABLE}")
    assert "spec.containers[0].ports[0].containerPort: 80 -> 8080" in error


def test_pod_containers_may_not_be_added():
    old = pod()
    new = changed(old, "spec.containers", old["spec"]["containers"] + [{"name": "sidecar", "image": "busybox"}])
    assert messages("Pod", new, old) == ["spec.containers: Forbidden: pod updates may not add or remove containers"]


def test_pod_tolerations_may_be_added_but_not_removed():
    old = changed(pod(), "spec.tolerations", [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])
    added = changed(old, "spec.tolerations", old["spec"]["tolerations"] + [{"key": "ssd", "operator": "Exists"}])
    assert messages("Pod", added, old) == []
    removed_all = changed(old, "spec.tolerations", [])
    assert (
        "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
        in messages("Pod", removed_all, old)
    )


def test_pod_active_deadline_may_only_shrink():
    old = changed(pod(), "spec.activeDeadlineSeconds", 60)
    assert messages("Pod", changed(old, "spec.activeDeadlineSeconds", 30), old) == []
    assert messages("Pod", changed(old, "spec.activeDeadlineSeconds", 90), old) == [
        "spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value"
    ]


def test_pod_labels_may_change():
    old = pod()
    new = changed(old, "metadata.labels", {"app": "myapp", "canary": "true"})
    assert messages("Pod", new, old) == []


def test_service_cluster_ip_may_not_change_once_set():
    old = changed(service(), "spec.clusterIP", "10.96.0.10")
    old["spec"]["clusterIPs"] = ["10.96.0.10"]
    new = changed(changed(old, "spec.clusterIP", "10.96.0.11"), "spec.clusterIPs", ["10.96.0.11"])
    assert messages("Service", new, old) == [
        'spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set'
    ]
    assert messages("Service", removed(removed(new, "spec.clusterIP"), "spec.clusterIPs"), old) == []


def test_immutable_config_map_data_is_frozen():
    old = {**config_map(), "immutable": True}
    new = changed(old, "data", {"LOG_LEVEL": "debug"})
    assert messages("ConfigMap", new, old) == ["data: Forbidden: field is immutable when `immutable` is set"]
    thawed = {**old, "immutable": False}
    assert messages("ConfigMap", thawed, old) == ["immutable: Forbidden: field is immutable when `immutable` is set"]


def test_node_pod_cidrs_are_fixed_once_assigned():
    old = node()
    new = changed(old, "spec.podCIDRs", ["10.244.2.0/24"])
    assert messages("Node", new, old) == [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'
    ]
    assert messages("Node", changed(old, "spec.taints", [{"key": "gpu", "effect": "NoSchedule"}]), old) == []


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
