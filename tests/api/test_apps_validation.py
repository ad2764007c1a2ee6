"""Validation of the apps group's Deployments and ReplicaSets (and the Pod templates in them),
with kubectl's exact text."""

import pytest

from tests.api.test_validation import (
    CONFIG_KEY_MSG,
    CTR,
    LABEL_MSG,
    LABEL_VALUE_MSG,
    PERCENT_MSG,
    QUANTITY_MSG,
    SUBDOMAIN_MSG,
    changed,
    deployment,
    messages,
    removed,
    replica_set,
)

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
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), CASES, ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None
)
def test_invalid_object_reports_the_upstream_path_and_message(kind, obj, expected):
    assert expected in messages(kind, obj)


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
