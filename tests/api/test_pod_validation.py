"""Validation of Pods (containers, scheduling constraints, updates), with kubectl's exact text."""

import pytest

from tests.api.test_validation import (
    AFFINITY,
    LABEL_MSG,
    LABEL_VALUE_MSG,
    NAME_PART_MSG,
    SUBDOMAIN_MSG,
    UPDATABLE,
    changed,
    messages,
    pod,
    removed,
)

CASES = [
    # metadata
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
    # containers
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
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), CASES, ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None
)
def test_invalid_object_reports_the_upstream_path_and_message(kind, obj, expected):
    assert expected in messages(kind, obj)


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
