"""Defaulting: objects come back filled in the way a real API server fills them."""

import copy
import json
from typing import Any

import pytest
from kubernetes import client as k8s

from clusterviz.api.defaulting import apply_defaults, qos_class
from clusterviz.apimachinery.image_reference import image_pull_policy

NOT_READY = {
    "key": "node.kubernetes.io/not-ready",
    "operator": "Exists",
    "effect": "NoExecute",
    "tolerationSeconds": 300,
}
UNREACHABLE = {
    "key": "node.kubernetes.io/unreachable",
    "operator": "Exists",
    "effect": "NoExecute",
    "tolerationSeconds": 300,
}


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "containers": [{"name": "web", "image": "soscscs/myapp:v1", "ports": [{"containerPort": 80}]}],
            **spec,
        },
    }


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "myapp", "namespace": "default", "labels": {"app": "myapp"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "myapp"}},
            "template": {
                "metadata": {"labels": {"app": "myapp"}},
                "spec": {
                    "containers": [{"name": "myapp", "image": "soscscs/myapp:v1", "ports": [{"containerPort": 80}]}]
                },
            },
        },
    }


def with_resources(resources: dict[str, Any], *more: dict[str, Any]) -> dict[str, Any]:
    obj = pod()
    obj["spec"]["containers"][0]["resources"] = resources
    for extra in more:
        obj["spec"]["containers"].append(
            {"name": f"c{len(obj['spec']['containers'])}", "image": "x", "resources": extra}
        )
    return obj


def deserialize(obj: dict[str, Any], model: str) -> Any:
    return k8s.ApiClient().deserialize(json.dumps(obj), model, "application/json")


# --- general -------------------------------------------------------------------------


def test_defaulting_returns_a_copy_and_leaves_the_input_alone():
    original = pod()
    snapshot = copy.deepcopy(original)
    result = apply_defaults("Pod", original)
    assert original == snapshot
    assert result is not original
    assert result["spec"]["restartPolicy"] == "Always"


@pytest.mark.parametrize(
    "kind",
    ["Pod", "Deployment", "ReplicaSet", "ReplicationController", "Service", "Node", "Namespace", "Event", "Endpoints"],
)
def test_defaulting_twice_changes_nothing_more(kind):
    obj = {**deployment(), "kind": kind} if kind in ("Deployment", "ReplicaSet", "ReplicationController") else pod()
    once = apply_defaults(kind, obj)
    assert apply_defaults(kind, once) == once


def test_unknown_kinds_only_get_metadata():
    assert apply_defaults("Widget", {"spec": {"size": 1}}) == {"metadata": {}, "spec": {"size": 1}}


@pytest.mark.parametrize("junk", [None, "text", 3, [1, 2]])
def test_a_body_that_is_not_an_object_comes_back_unchanged(junk):
    assert apply_defaults("Pod", junk) == junk


JUNK = [None, True, 0, -1, 2.5, "", "x", [], ["x"], [None], {}, {"x": 1}]


def _paths(value: Any, prefix: tuple[Any, ...] = ()):
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for step, item in items:
        yield (*prefix, step)
        yield from _paths(item, (*prefix, step))


@pytest.mark.parametrize(
    "kind", ["Pod", "Deployment", "ReplicationController", "Service", "Node", "Namespace", "Event"]
)
def test_any_value_anywhere_is_tolerated(kind):
    base = apply_defaults(
        kind, {**deployment(), "kind": kind} if kind in ("Deployment", "ReplicationController") else pod()
    )
    for path in _paths(base):
        for junk in JUNK:
            obj = copy.deepcopy(base)
            target: Any = obj
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = copy.deepcopy(junk)
            apply_defaults(kind, obj)


# --- pods ----------------------------------------------------------------------------


def test_pod_spec_gets_the_scheme_defaults():
    spec = apply_defaults("Pod", pod())["spec"]
    assert spec["restartPolicy"] == "Always"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["securityContext"] == {}
    assert spec["enableServiceLinks"] is True


def test_pod_gets_what_admission_adds():
    spec = apply_defaults("Pod", pod())["spec"]
    assert spec["priority"] == 0
    assert spec["preemptionPolicy"] == "PreemptLowerPriority"
    assert spec["serviceAccountName"] == "default"
    assert spec["serviceAccount"] == "default"
    assert spec["tolerations"] == [NOT_READY, UNREACHABLE]


def test_explicit_values_are_kept():
    spec = apply_defaults(
        "Pod",
        pod(
            restartPolicy="Never",
            dnsPolicy="Default",
            terminationGracePeriodSeconds=0,
            enableServiceLinks=False,
            priority=7,
        ),
    )["spec"]
    assert (spec["restartPolicy"], spec["dnsPolicy"], spec["terminationGracePeriodSeconds"]) == ("Never", "Default", 0)
    assert spec["enableServiceLinks"] is False
    assert spec["priority"] == 7


def test_system_priority_classes_carry_their_priority():
    assert apply_defaults("Pod", pod(priorityClassName="system-node-critical"))["spec"]["priority"] == 2000001000
    assert apply_defaults("Pod", pod(priorityClassName="system-cluster-critical"))["spec"]["priority"] == 2000000000


def test_default_tolerations_are_not_added_twice():
    tolerations = apply_defaults("Pod", pod(tolerations=[dict(UNREACHABLE, tolerationSeconds=60)]))["spec"][
        "tolerations"
    ]
    assert tolerations == [dict(UNREACHABLE, tolerationSeconds=60), NOT_READY]


def test_a_pod_tolerating_everything_gets_no_default_tolerations():
    assert apply_defaults("Pod", pod(tolerations=[{"operator": "Exists"}]))["spec"]["tolerations"] == [
        {"operator": "Exists"}
    ]


def test_containers_get_their_defaults():
    container = apply_defaults("Pod", pod())["spec"]["containers"][0]
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert container["terminationMessagePolicy"] == "File"
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert container["resources"] == {}


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("library/nginx", "Always"),
        ("registry.local:5000/team/app", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("soscscs/myapp:v1", "IfNotPresent"),
        ("registry.local:5000/team/app:v2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("Nginx", "IfNotPresent"),
        ("", "IfNotPresent"),
        (None, "IfNotPresent"),
    ],
)
def test_image_pull_policy_follows_the_tag(image, policy):
    assert image_pull_policy(image) == policy


def test_an_explicit_pull_policy_is_kept():
    obj = pod()
    obj["spec"]["containers"][0]["imagePullPolicy"] = "Never"
    assert apply_defaults("Pod", obj)["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_pod_requests_default_to_limits():
    resources = apply_defaults(
        "Pod", with_resources({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "250m"}})
    )["spec"]["containers"][0]["resources"]
    assert resources["requests"] == {"cpu": "250m", "memory": "1Gi"}


def test_templates_do_not_copy_limits_into_requests():
    obj = deployment()
    obj["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    resources = apply_defaults("Deployment", obj)["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": "1"}}


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("0.5", "500m"),
        (0.5, "500m"),
        (1, "1"),
        ("1000m", "1"),
        ("0.5m", "1m"),
        ("100n", "1m"),
        ("1024Mi", "1Gi"),
        (" 2 ", "2"),
    ],
)
def test_quantities_are_rounded_to_milli_and_stored_canonically(given, stored):
    resources = apply_defaults("Pod", with_resources({"requests": {"cpu": given}}))["spec"]["containers"][0][
        "resources"
    ]
    assert resources["requests"]["cpu"] == stored


def test_unparsable_quantities_are_left_for_validation():
    resources = apply_defaults("Pod", with_resources({"limits": {"cpu": "lots"}}))["spec"]["containers"][0]["resources"]
    assert resources["limits"] == {"cpu": "lots"}


@pytest.mark.parametrize(
    ("resources", "qos"),
    [
        ([{}], "BestEffort"),
        ([{"requests": {"cpu": "0"}}], "BestEffort"),
        ([{"requests": {"cpu": "100m"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1000m", "memory": "1024Mi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}], "Burstable"),
        ([{"limits": {"cpu": "1"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}}, {}], "Burstable"),
        ([{"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"}}], "BestEffort"),
    ],
)
def test_qos_class_is_computed_like_upstream(resources, qos):
    obj = apply_defaults("Pod", with_resources(*resources))
    assert obj["status"]["qosClass"] == qos
    assert qos_class(obj) == qos


def test_a_new_pod_is_pending():
    assert apply_defaults("Pod", pod())["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_existing_pod_status_is_kept():
    obj = {**pod(), "status": {"phase": "Running", "qosClass": "Burstable"}}
    assert apply_defaults("Pod", obj)["status"] == {"phase": "Running", "qosClass": "Burstable"}


def test_host_network_pods_publish_their_container_ports_on_the_host():
    ports = apply_defaults("Pod", pod(hostNetwork=True))["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 80, "protocol": "TCP", "hostPort": 80}]


def test_probes_get_their_timing_and_http_defaults():
    obj = pod()
    obj["spec"]["containers"][0]["livenessProbe"] = {"httpGet": {"port": 80}}
    probe = apply_defaults("Pod", obj)["spec"]["containers"][0]["livenessProbe"]
    assert probe == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }


def test_volumes_default_to_empty_dir_and_file_modes():
    volumes = apply_defaults(
        "Pod",
        pod(
            volumes=[
                {"name": "scratch"},
                {"name": "cfg", "configMap": {"name": "settings"}},
                {"name": "s", "secret": {"secretName": "t"}},
            ]
        ),
    )["spec"]["volumes"]
    assert volumes == [
        {"name": "scratch", "emptyDir": {}},
        {"name": "cfg", "configMap": {"name": "settings", "defaultMode": 420}},
        {"name": "s", "secret": {"secretName": "t", "defaultMode": 420}},
    ]


def test_env_field_references_default_to_api_version_v1():
    obj = pod()
    obj["spec"]["containers"][0]["env"] = [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]
    env = apply_defaults("Pod", obj)["spec"]["containers"][0]["env"]
    assert env[0]["valueFrom"]["fieldRef"] == {"fieldPath": "spec.nodeName", "apiVersion": "v1"}


def test_container_statuses_carry_every_field_the_python_client_requires():
    obj = {
        **pod(),
        "status": {
            "phase": "Running",
            "containerStatuses": [{"name": "web", "ready": True}],
            "conditions": [{"type": "Ready"}],
        },
    }
    status = apply_defaults("Pod", obj)["status"]
    assert status["containerStatuses"] == [
        {"name": "web", "ready": True, "image": "", "imageID": "", "restartCount": 0, "state": {}, "lastState": {}}
    ]
    assert status["conditions"] == [{"type": "Ready", "status": ""}]


# --- workloads --------------------------------------------------------------------------


def test_deployment_gets_replicas_strategy_and_history_defaults():
    obj = deployment()
    del obj["spec"]["replicas"]
    spec = apply_defaults("Deployment", obj)["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600


def test_deployment_keeps_its_replicas_and_partial_strategy():
    obj = deployment()
    obj["spec"]["strategy"] = {"rollingUpdate": {"maxSurge": 1}}
    spec = apply_defaults("Deployment", obj)["spec"]
    assert spec["replicas"] == 3
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}


def test_recreate_deployments_get_no_rolling_update():
    obj = deployment()
    obj["spec"]["strategy"] = {"type": "Recreate"}
    assert apply_defaults("Deployment", obj)["spec"]["strategy"] == {"type": "Recreate"}


def test_pod_templates_get_pod_spec_defaults_but_not_pod_only_ones():
    template = apply_defaults("Deployment", deployment())["spec"]["template"]
    spec = template["spec"]
    assert spec["restartPolicy"] == "Always"
    assert spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert spec["containers"][0]["ports"][0]["protocol"] == "TCP"
    for pod_only in ("enableServiceLinks", "tolerations", "priority", "serviceAccountName"):
        assert pod_only not in spec
    assert "status" not in template


def test_replica_sets_default_to_one_replica():
    obj = {**deployment(), "kind": "ReplicaSet"}
    del obj["spec"]["replicas"]
    assert apply_defaults("ReplicaSet", obj)["spec"]["replicas"] == 1


def test_replication_controller_selector_and_labels_come_from_the_template():
    obj = {
        **deployment(),
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc", "namespace": "default"},
    }
    del obj["spec"]["selector"]
    result = apply_defaults("ReplicationController", obj)
    assert result["spec"]["selector"] == {"app": "myapp"}
    assert result["metadata"]["labels"] == {"app": "myapp"}


def test_replication_controller_keeps_its_own_selector():
    obj = {**deployment(), "kind": "ReplicationController"}
    obj["spec"]["selector"] = {"app": "myapp"}
    obj["spec"]["template"]["metadata"]["labels"]["tier"] = "web"
    assert apply_defaults("ReplicationController", obj)["spec"]["selector"] == {"app": "myapp"}


# --- services and the rest ------------------------------------------------------------------


def service(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "myapp", "namespace": "default"},
        "spec": {"selector": {"app": "myapp"}, "ports": [{"port": 80}], **spec},
    }


def test_service_gets_type_affinity_ports_and_families():
    spec = apply_defaults("Service", service())["spec"]
    assert spec["type"] == "ClusterIP"
    assert spec["sessionAffinity"] == "None"
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert spec["internalTrafficPolicy"] == "Cluster"
    assert spec["ipFamilies"] == ["IPv4"]
    assert spec["ipFamilyPolicy"] == "SingleStack"
    assert "clusterIP" not in spec
    assert "externalTrafficPolicy" not in spec


def test_named_target_ports_are_kept():
    spec = apply_defaults("Service", service(ports=[{"port": 80, "targetPort": "http"}]))["spec"]
    assert spec["ports"][0]["targetPort"] == "http"


def test_node_port_and_load_balancer_services_get_external_policy():
    assert apply_defaults("Service", service(type="NodePort"))["spec"]["externalTrafficPolicy"] == "Cluster"
    spec = apply_defaults("Service", service(type="LoadBalancer"))["spec"]
    assert spec["externalTrafficPolicy"] == "Cluster"
    assert spec["allocateLoadBalancerNodePorts"] is True


def test_external_name_services_get_no_ip_families():
    spec = apply_defaults("Service", service(type="ExternalName", externalName="db.example.com"))["spec"]
    assert "ipFamilies" not in spec
    assert "internalTrafficPolicy" not in spec


def test_namespace_gets_finalizer_phase_and_name_label():
    result = apply_defaults("Namespace", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    assert result["spec"] == {"finalizers": ["kubernetes"]}
    assert result["status"] == {"phase": "Active"}
    assert result["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}


def test_node_allocatable_defaults_to_capacity_and_node_info_is_complete():
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node01"},
        "status": {"capacity": {"cpu": 2, "memory": "4096Mi"}},
    }
    status = apply_defaults("Node", node)["status"]
    assert status["capacity"] == {"cpu": "2", "memory": "4Gi"}
    assert status["allocatable"] == {"cpu": "2", "memory": "4Gi"}
    assert set(status["nodeInfo"]) == {
        "architecture",
        "bootID",
        "containerRuntimeVersion",
        "kernelVersion",
        "kubeProxyVersion",
        "kubeletVersion",
        "machineID",
        "operatingSystem",
        "osImage",
        "systemUUID",
    }
    assert "conditions" not in status


def test_events_get_only_the_fields_go_always_writes():
    result = apply_defaults(
        "Event", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"}}
    )
    assert result["involvedObject"] == {}
    assert result["reportingComponent"] == ""
    assert "count" not in result
    assert "type" not in result


def test_endpoint_ports_default_to_tcp():
    obj = {
        "kind": "Endpoints",
        "metadata": {"name": "s"},
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}],
    }
    assert apply_defaults("Endpoints", obj)["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]


# --- the Python client accepts what comes out ------------------------------------------------


def test_python_client_reads_a_defaulted_pod_with_sparse_status():
    obj = {
        **pod(),
        "status": {"phase": "Running", "containerStatuses": [{"name": "web"}], "conditions": [{"type": "Ready"}]},
    }
    with pytest.raises(ValueError):  # the raw object is rejected by the client's models
        deserialize(obj, "V1Pod")
    model = deserialize(apply_defaults("Pod", obj), "V1Pod")
    assert model.status.container_statuses[0].restart_count == 0


def test_python_client_reads_a_defaulted_node_with_partial_node_info():
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"nodeInfo": {"kubeletVersion": "v1.32.4"}},
    }
    model = deserialize(apply_defaults("Node", obj), "V1Node")
    assert model.status.node_info.kubelet_version == "v1.32.4"


def test_python_client_reads_a_defaulted_event_and_deployment():
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e", "namespace": "default"},
        "reason": "Started",
    }
    assert deserialize(apply_defaults("Event", event), "CoreV1Event").reason == "Started"
    model = deserialize(apply_defaults("Deployment", deployment()), "V1Deployment")
    assert model.spec.strategy.rolling_update.max_surge == "25%"
