"""Server-side Table printing must match what a real kube-apiserver sends kubectl."""

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterviz.api.tables import (
    PARTIAL_METADATA_FIELDS,
    RESOURCES_WITH_TABLES,
    build_table,
    column_definitions,
    format_label_selector,
    format_labels,
    label_selector_string,
    parse_timestamp_ns,
)

NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)
CREATED = "2025-01-01T00:00:00Z"  # one hour before NOW: AGE "60m"


def ago(**kwargs) -> str:
    return (NOW - timedelta(**kwargs)).strftime("%Y-%m-%dT%H:%M:%SZ")


def one_row(resource, obj, **kwargs):
    table = build_table(resource, [obj], NOW, **kwargs)
    assert len(table["rows"]) == 1
    return table["rows"][0]


def cells(resource, obj):
    return one_row(resource, obj)["cells"]


def by_name(resource, obj):
    names = [c["name"] for c in column_definitions(resource)]
    return dict(zip(names, cells(resource, obj), strict=True))


# --------------------------------------------------------------------------
# Envelope, columns and row objects
# --------------------------------------------------------------------------


def test_table_envelope():
    table = build_table("pods", [], NOW, resource_version="1234")
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "1234"}
    assert table["rows"] == []
    assert build_table("pods", [], NOW)["metadata"] == {}


def test_resources_with_tables():
    assert RESOURCES_WITH_TABLES == {
        "pods",
        "nodes",
        "namespaces",
        "services",
        "endpoints",
        "endpointslices",
        "events",
        "configmaps",
        "secrets",
        "serviceaccounts",
        "replicationcontrollers",
        "deployments",
        "replicasets",
        "daemonsets",
        "statefulsets",
        "controllerrevisions",
        "poddisruptionbudgets",
        "horizontalpodautoscalers",
        "priorityclasses",
        "ingresses",
        "ingressclasses",
        "apiservices",
        "resourcequotas",
        "persistentvolumes",
        "persistentvolumeclaims",
        "storageclasses",
        "csinodes",
        "jobs",
        "cronjobs",
        "roles",
        "clusterroles",
        "rolebindings",
        "clusterrolebindings",
    }


_ROLE_BINDING_COLUMNS = [
    ("Name", "string", 0), ("Role", "string", 0), ("Age", "string", 0),
    ("Users", "string", 1), ("Groups", "string", 1), ("ServiceAccounts", "string", 1),
]
COLUMN_SETS = {
    "roles": [("Name", "string", 0), ("Created At", "date", 0)],
    "clusterroles": [("Name", "string", 0), ("Created At", "date", 0)],
    "rolebindings": _ROLE_BINDING_COLUMNS,
    "clusterrolebindings": _ROLE_BINDING_COLUMNS,
    "persistentvolumes": [
        ("Name", "string", 0), ("Capacity", "string", 0), ("Access Modes", "string", 0),
        ("Reclaim Policy", "string", 0), ("Status", "string", 0), ("Claim", "string", 0),
        ("StorageClass", "string", 0), ("VolumeAttributesClass", "string", 0), ("Reason", "string", 0),
        ("Age", "string", 0), ("VolumeMode", "string", 1),
    ],
    "persistentvolumeclaims": [
        ("Name", "string", 0), ("Status", "string", 0), ("Volume", "string", 0), ("Capacity", "string", 0),
        ("Access Modes", "string", 0), ("StorageClass", "string", 0), ("VolumeAttributesClass", "string", 0),
        ("Age", "string", 0), ("VolumeMode", "string", 1),
    ],
    "storageclasses": [
        ("Name", "string", 0), ("Provisioner", "string", 0), ("ReclaimPolicy", "string", 0),
        ("VolumeBindingMode", "string", 0), ("AllowVolumeExpansion", "string", 0), ("Age", "string", 0),
    ],
    "csinodes": [("Name", "string", 0), ("Drivers", "integer", 0), ("Age", "string", 0)],
    "ingresses": [
        ("Name", "string", 0), ("Class", "string", 0), ("Hosts", "string", 0), ("Address", "string", 0),
        ("Ports", "string", 0), ("Age", "string", 0),
    ],
    "apiservices": [("Name", "string", 0), ("Service", "string", 0), ("Available", "string", 0), ("Age", "string", 0)],
    "ingressclasses": [("Name", "string", 0), ("Controller", "string", 0), ("Parameters", "string", 0),
                       ("Age", "string", 0)],
    "resourcequotas": [("Name", "string", 0), ("Age", "string", 0), ("Request", "string", 0), ("Limit", "string", 0)],
    "priorityclasses": [
        ("Name", "string", 0),
        ("Value", "integer", 0),
        ("Global-Default", "boolean", 0),
        ("Age", "string", 0),
        ("PreemptionPolicy", "string", 0),
    ],
    "horizontalpodautoscalers": [
        ("Name", "string", 0), ("Reference", "string", 0), ("Targets", "string", 0), ("MinPods", "string", 0),
        ("MaxPods", "string", 0), ("Replicas", "string", 0), ("Age", "string", 0),
    ],
    "poddisruptionbudgets": [
        ("Name", "string", 0),
        ("Min Available", "string", 0),
        ("Max Unavailable", "string", 0),
        ("Allowed Disruptions", "integer", 0),
        ("Age", "string", 0),
    ],
    "pods": [
        ("Name", "string", 0),
        ("Ready", "string", 0),
        ("Status", "string", 0),
        ("Restarts", "string", 0),
        ("Age", "string", 0),
        ("IP", "string", 1),
        ("Node", "string", 1),
        ("Nominated Node", "string", 1),
        ("Readiness Gates", "string", 1),
    ],
    "nodes": [
        ("Name", "string", 0),
        ("Status", "string", 0),
        ("Roles", "string", 0),
        ("Age", "string", 0),
        ("Version", "string", 0),
        ("Internal-IP", "string", 1),
        ("External-IP", "string", 1),
        ("OS-Image", "string", 1),
        ("Kernel-Version", "string", 1),
        ("Container-Runtime", "string", 1),
    ],
    "namespaces": [("Name", "string", 0), ("Status", "string", 0), ("Age", "string", 0)],
    "services": [
        ("Name", "string", 0),
        ("Type", "string", 0),
        ("Cluster-IP", "string", 0),
        ("External-IP", "string", 0),
        ("Port(s)", "string", 0),
        ("Age", "string", 0),
        ("Selector", "string", 1),
    ],
    "endpoints": [("Name", "string", 0), ("Endpoints", "string", 0), ("Age", "string", 0)],
    "endpointslices": [
        ("Name", "string", 0), ("AddressType", "string", 0), ("Ports", "string", 0), ("Endpoints", "string", 0),
        ("Age", "string", 0),
    ],
    "events": [
        ("Last Seen", "string", 0),
        ("Type", "string", 0),
        ("Reason", "string", 0),
        ("Object", "string", 0),
        ("Subobject", "string", 1),
        ("Source", "string", 1),
        ("Message", "string", 0),
        ("First Seen", "string", 1),
        ("Count", "string", 1),
        ("Name", "string", 1),
    ],
    "configmaps": [("Name", "string", 0), ("Data", "string", 0), ("Age", "string", 0)],
    "secrets": [("Name", "string", 0), ("Type", "string", 0), ("Data", "string", 0), ("Age", "string", 0)],
    "serviceaccounts": [("Name", "string", 0), ("Secrets", "string", 0), ("Age", "string", 0)],
    "replicationcontrollers": [
        ("Name", "string", 0),
        ("Desired", "integer", 0),
        ("Current", "integer", 0),
        ("Ready", "integer", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
    "daemonsets": [
        ("Name", "string", 0),
        ("Desired", "integer", 0),
        ("Current", "integer", 0),
        ("Ready", "integer", 0),
        ("Up-to-date", "integer", 0),
        ("Available", "integer", 0),
        ("Node Selector", "string", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
    "statefulsets": [
        ("Name", "string", 0),
        ("Ready", "string", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
    ],
    "controllerrevisions": [
        ("Name", "string", 0),
        ("Controller", "string", 0),
        ("Revision", "string", 0),
        ("Age", "string", 0),
    ],
    "jobs": [
        ("Name", "string", 0),
        ("Status", "string", 0),
        ("Completions", "string", 0),
        ("Duration", "string", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
    "cronjobs": [
        ("Name", "string", 0),
        ("Schedule", "string", 0),
        ("Timezone", "string", 0),
        ("Suspend", "boolean", 0),
        ("Active", "integer", 0),
        ("Last Schedule", "string", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
    "replicasets": [
        ("Name", "string", 0),
        ("Desired", "integer", 0),
        ("Current", "integer", 0),
        ("Ready", "integer", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
    "deployments": [
        ("Name", "string", 0),
        ("Ready", "string", 0),
        ("Up-to-date", "string", 0),
        ("Available", "string", 0),
        ("Age", "string", 0),
        ("Containers", "string", 1),
        ("Images", "string", 1),
        ("Selector", "string", 1),
    ],
}


@pytest.mark.parametrize("resource", sorted(COLUMN_SETS))
def test_column_definitions_match_upstream(resource):
    columns = build_table(resource, [], NOW)["columnDefinitions"]
    assert [(c["name"], c["type"], c["priority"]) for c in columns] == COLUMN_SETS[resource]
    for column in columns:
        assert set(column) == {"name", "type", "format", "description", "priority"}
        assert column["description"]
        # Only the object's name column carries format "name" (kubectl's kind/ prefix).
        assert column["format"] == ("name" if column["name"] == "Name" else "")


def test_every_printed_resource_has_columns_and_matching_cells():
    assert set(COLUMN_SETS) == RESOURCES_WITH_TABLES
    for resource in RESOURCES_WITH_TABLES:
        table = build_table(resource, [{"metadata": {"name": "x", "creationTimestamp": CREATED}}], NOW)
        assert len(table["rows"][0]["cells"]) == len(table["columnDefinitions"])


def test_column_definitions_are_fresh_copies():
    columns = column_definitions("pods")
    columns[0]["name"] = "mutated"
    assert column_definitions("pods")[0]["name"] == "Name"


def test_aliases_and_group_qualified_names():
    for alias in ("pod", "po", "Pods", "PODS"):
        assert [c["name"] for c in column_definitions(alias)] == [c[0] for c in COLUMN_SETS["pods"]]
    assert column_definitions("deployments.apps")[1]["name"] == "Ready"
    assert column_definitions("deploy")[1]["name"] == "Ready"
    assert column_definitions("svc")[1]["name"] == "Type"
    # The events.k8s.io group has its own schema: fall back to the default table.
    assert [c["name"] for c in column_definitions("events.events.k8s.io")] == ["Name", "Created At"]


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "nginx",
        "generateName": "nginx-",
        "namespace": "default",
        "uid": "u-1",
        "resourceVersion": "1200",
        "generation": 1,
        "creationTimestamp": CREATED,
        "labels": {"app": "nginx"},
        "annotations": {"a": "b"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-0"}],
        "finalizers": ["x"],
        "managedFields": [{"manager": "kubectl"}],
    },
    "spec": {"containers": [{"name": "nginx", "image": "nginx"}], "nodeName": "node01"},
    "status": {
        "phase": "Running",
        "podIP": "10.244.0.7",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {"name": "nginx", "ready": True, "restartCount": 0, "state": {"running": {"startedAt": CREATED}}}
        ],
    },
}


def test_partial_object_metadata_row_object():
    row = one_row("pods", POD)
    assert row["object"] == {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {key: POD["metadata"][key] for key in PARTIAL_METADATA_FIELDS if key in POD["metadata"]},
    }
    meta = row["object"]["metadata"]
    assert meta["namespace"] == "default" and meta["labels"] == {"app": "nginx"}
    assert "managedFields" not in meta
    # A copy, not a reference into the stored object.
    meta["labels"]["app"] = "changed"
    assert POD["metadata"]["labels"]["app"] == "nginx"


def test_partial_object_metadata_skips_missing_and_null_fields():
    row = one_row("pods", {"metadata": {"name": "p", "deletionTimestamp": None}})
    assert row["object"]["metadata"] == {"name": "p"}


def test_include_object_full_and_none():
    full = one_row("pods", POD, include_object="Object")["object"]
    assert full == POD and full is not POD
    bare = {"metadata": {"name": "x"}}
    filled = one_row("deployments", bare, include_object="Object")["object"]
    assert filled["apiVersion"] == "apps/v1" and filled["kind"] == "Deployment"
    assert "kind" not in bare
    assert "object" not in one_row("pods", POD, include_object="None")
    # Unknown values behave like the default (Metadata).
    assert one_row("pods", POD, include_object="bogus")["object"]["kind"] == "PartialObjectMetadata"


def test_table_is_json_serialisable_with_right_types():
    table = build_table("pods", [POD], NOW, resource_version="7")
    assert json.loads(json.dumps(table)) == table


def test_row_order_is_preserved():
    pods = [{"metadata": {"name": n}} for n in ("b", "a", "c")]
    assert [r["cells"][0] for r in build_table("pods", pods, NOW)["rows"]] == ["b", "a", "c"]


def test_objects_may_be_any_iterable_and_odd_items_do_not_break():
    table = build_table("pods", (p for p in [POD]), NOW)
    assert table["rows"][0]["cells"][0] == "nginx"
    table = build_table("pods", ["garbage", None, 5], NOW)
    assert [r["cells"][:3] for r in table["rows"]] == [["", "0/0", "Pending"]] * 3
    assert build_table("pods", None, NOW)["rows"] == []  # type: ignore[arg-type]


def test_naive_and_offset_now_are_handled():
    naive = NOW.replace(tzinfo=None)
    assert cells("pods", POD)[4] == "60m"
    assert build_table("pods", [POD], naive)["rows"][0]["cells"][4] == "60m"
    other_zone = NOW.astimezone(timezone(timedelta(hours=5)))
    assert build_table("pods", [POD], other_zone)["rows"][0]["cells"][4] == "60m"


# --------------------------------------------------------------------------
# Default table for resources without a printer
# --------------------------------------------------------------------------


def test_default_table_for_unknown_resource():
    table = build_table("gadgets", [{"metadata": {"name": "j", "creationTimestamp": "2025-01-01T02:00:00+02:00"}}], NOW)
    assert [(c["name"], c["type"], c["format"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name"),
        ("Created At", "date", ""),
    ]
    assert table["rows"][0]["cells"] == ["j", "2025-01-01T00:00:00Z"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert build_table("widgets", [{}], NOW)["rows"][0]["cells"] == ["", "0001-01-01T00:00:00Z"]
    assert build_table("widgets", [{"a": 1}], NOW, include_object="Object")["rows"][0]["object"] == {"a": 1}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def test_format_labels():
    assert format_labels({"b": "2", "a": "1"}) == "a=1,b=2"
    assert format_labels({}) == "<none>"
    assert format_labels(None) == "<none>"


def test_label_selector_string():
    assert label_selector_string(None) == ""
    assert label_selector_string({}) == ""
    assert label_selector_string({"matchLabels": {"app": "x"}}) == "app=x"
    assert label_selector_string({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}) is None
    assert label_selector_string({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}) is None
    assert label_selector_string({"matchLabels": {"example.com/app": "x-1.2_3"}}) == "example.com/app=x-1.2_3"
    assert label_selector_string({"matchLabels": {"a": "-bad"}}) is None
    assert label_selector_string({"matchLabels": {"a": 1}}) is None
    assert format_label_selector({}) == "<none>"
    assert format_label_selector({"matchLabels": {"a/b/c": "x"}}) == "<error>"


def test_parse_timestamp_ns():
    assert parse_timestamp_ns("1970-01-01T00:00:01Z") == 1_000_000_000
    assert parse_timestamp_ns("1970-01-01T00:00:01.5Z") == 1_500_000_000
    assert parse_timestamp_ns("1970-01-01T01:00:00+01:00") == 0
    assert parse_timestamp_ns("1970-01-01T00:00:00.123456789123Z") == 123_456_789
    for bad in (
        None,
        5,
        "",
        "2025-13-01T00:00:00Z",
        "2025-01-01 00:00:00Z",
        "2025-01-01T00:00:00",
        "0001-01-01T00:00:00Z",
    ):
        assert parse_timestamp_ns(bad) is None


# --------------------------------------------------------------------------
# Robustness: arbitrary JSON never makes a printer raise.
# --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)

# Realistic keys make the fuzzer reach deep into the printers.
KEYS = st.sampled_from(
    [
        "metadata", "spec", "status", "name", "creationTimestamp", "deletionTimestamp", "labels", "containers",
        "initContainers", "containerStatuses", "initContainerStatuses", "state", "waiting", "terminated", "running",
        "reason", "exitCode", "signal", "restartCount", "lastState", "finishedAt", "ready", "started", "phase",
        "conditions", "type", "podIP", "podIPs", "ip", "readinessGates", "conditionType", "replicas", "selector",
        "matchLabels", "matchExpressions", "key", "operator", "values", "template", "ports", "port", "nodePort",
        "protocol", "clusterIP", "clusterIPs", "externalIPs", "loadBalancer", "ingress", "subsets", "addresses",
        "involvedObject", "kind", "series", "count", "source", "component", "host", "data", "binaryData",
        "nodeInfo", "unschedulable", "restartPolicy", "firstTimestamp", "lastTimestamp", "eventTime", "message",
    ]
)  # fmt: skip
structured = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "True", "Always", CREATED, "x"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(RESOURCES_WITH_TABLES) + ["things"]), st.lists(json_values | structured, max_size=3))
def test_printers_never_raise(resource, objects):
    for mode in ("Metadata", "Object", "None"):
        table = build_table(resource, objects, NOW, include_object=mode, resource_version="1")
        width = len(table["columnDefinitions"])
        for row in table["rows"]:
            assert len(row["cells"]) == width
            for cell, column in zip(row["cells"], table["columnDefinitions"], strict=True):
                if column["type"] == "integer":
                    assert type(cell) is int
                else:
                    assert type(cell) in (str, int, bool)
        json.dumps(table)
