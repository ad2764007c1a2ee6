"""Validation of the core group's other kinds (Services, Nodes, Namespaces, ConfigMaps, Endpoints, Events,
ReplicationControllers), with kubectl's exact text."""

import pytest

from tests.api.test_validation import (
    CONFIG_KEY_MSG,
    DNS1035_MSG,
    LABEL_MSG,
    LABEL_VALUE_MSG,
    NAME_PART_MSG,
    QUANTITY_MSG,
    SUBDOMAIN_MSG,
    changed,
    config_map,
    endpoints,
    event,
    messages,
    namespace,
    node,
    removed,
    replication_controller,
    service,
)

CASES = [
    # metadata
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


def test_replication_controller_selector_defaults_to_the_template_labels():
    obj = removed(replication_controller(), "spec.selector")
    assert messages("ReplicationController", obj) == []


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
