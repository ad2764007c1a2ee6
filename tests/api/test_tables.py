"""Server-side Table printing must match what a real kube-apiserver sends kubectl."""

import copy
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
# Pods
# --------------------------------------------------------------------------


def pod(*statuses, phase="Running", init=(), init_statuses=(), spec_extra=None, status_extra=None, meta_extra=None):
    containers = [{"name": s.get("name", f"c{i}"), "image": "img"} for i, s in enumerate(statuses)] or [
        {"name": "c0", "image": "img"}
    ]
    spec = {"containers": containers, "initContainers": list(init), **(spec_extra or {})}
    status = {"phase": phase, "containerStatuses": list(statuses), **(status_extra or {})}
    if init_statuses:
        status["initContainerStatuses"] = list(init_statuses)
    meta = {"name": "p", "creationTimestamp": CREATED, **(meta_extra or {})}
    return {"metadata": meta, "spec": spec, "status": status}


def running(name="c0", ready=True, restarts=0, last_finished=None):
    cs = {"name": name, "ready": ready, "restartCount": restarts, "state": {"running": {"startedAt": CREATED}}}
    if last_finished:
        cs["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": last_finished}}
    return cs


def waiting(reason, name="c0", restarts=0, last_finished=None):
    cs = {"name": name, "ready": False, "restartCount": restarts, "state": {"waiting": {"reason": reason}}}
    if last_finished:
        cs["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": last_finished}}
    return cs


def terminated(name="c0", exit_code=0, reason="", signal=0):
    term = {"exitCode": exit_code, "finishedAt": CREATED}
    if reason:
        term["reason"] = reason
    if signal:
        term["signal"] = signal
    return {"name": name, "ready": False, "restartCount": 0, "state": {"terminated": term}}


def test_pod_running_row_like_wire_notes():
    assert cells("pods", POD) == ["nginx", "1/1", "Running", "0", "60m", "10.244.0.7", "node01", "<none>", "<none>"]
    assert "conditions" not in one_row("pods", POD)


def test_pod_without_status_is_pending():
    row = by_name("pods", {"metadata": {"name": "p", "creationTimestamp": CREATED}, "spec": {"containers": [{}]}})
    assert row == {
        "Name": "p",
        "Ready": "0/1",
        "Status": "Pending",
        "Restarts": "0",
        "Age": "60m",
        "IP": "<none>",
        "Node": "<none>",
        "Nominated Node": "<none>",
        "Readiness Gates": "<none>",
    }


@pytest.mark.parametrize(
    "reason",
    ["ContainerCreating", "ErrImagePull", "ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError"],
)
def test_pod_waiting_reasons(reason):
    row = by_name("pods", pod(waiting(reason), phase="Pending"))
    assert row["Status"] == reason
    assert row["Ready"] == "0/1"


def test_pod_waiting_without_reason_keeps_phase():
    assert by_name("pods", pod({"name": "c0", "state": {"waiting": {}}}, phase="Pending"))["Status"] == "Pending"


def test_crash_loop_restarts_with_last_restart_age():
    row = by_name("pods", pod(waiting("CrashLoopBackOff", restarts=5, last_finished=ago(minutes=5))))
    assert row["Status"] == "CrashLoopBackOff"
    assert row["Restarts"] == "5 (5m ago)"


def test_restarts_without_finished_at_have_no_suffix():
    assert by_name("pods", pod(running(restarts=3)))["Restarts"] == "3"
    broken = running(restarts=2)
    broken["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": "not-a-time"}}
    assert by_name("pods", pod(broken))["Restarts"] == "2"


def test_restarts_sum_containers_and_use_latest_finish():
    row = by_name(
        "pods",
        pod(
            running("a", restarts=1, last_finished=ago(minutes=30)),
            running("b", restarts=2, last_finished=ago(seconds=95)),
        ),
    )
    assert row["Restarts"] == "3 (95s ago)"
    assert row["Ready"] == "2/2"


def test_completed_pod_and_row_condition():
    row = one_row("pods", pod(terminated(reason="Completed"), phase="Succeeded"))
    assert row["cells"][1:3] == ["0/1", "Completed"]
    assert row["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ]


def test_failed_pod_row_condition():
    row = one_row("pods", pod(terminated(exit_code=1, reason="Error"), phase="Failed"))
    assert row["cells"][2] == "Error"
    assert row["conditions"][0]["reason"] == "Failed"


def test_terminated_without_reason_prints_exit_code_or_signal():
    assert by_name("pods", pod(terminated(exit_code=3), phase="Failed"))["Status"] == "ExitCode:3"
    assert by_name("pods", pod(terminated(exit_code=137, signal=9), phase="Failed"))["Status"] == "Signal:9"


def test_first_container_reason_wins():
    row = by_name("pods", pod(waiting("ErrImagePull", "a"), waiting("CrashLoopBackOff", "b")))
    assert row["Status"] == "ErrImagePull"
    row = by_name("pods", pod(running("a"), waiting("CrashLoopBackOff", "b")))
    assert row["Status"] == "CrashLoopBackOff"
    assert row["Ready"] == "1/2"


def test_not_ready_running_container_is_not_counted():
    assert by_name("pods", pod(running(ready=False)))["Ready"] == "0/1"


@pytest.mark.parametrize(
    ("reason", "expected"),
    [("Evicted", "Evicted"), ("OutOfcpu", "OutOfcpu"), ("NodeAffinity", "NodeAffinity")],
)
def test_status_reason_overrides_phase(reason, expected):
    obj = pod(phase="Failed", status_extra={"reason": reason, "message": "..."})
    obj["status"]["containerStatuses"] = []
    assert by_name("pods", obj)["Status"] == expected


def test_terminating_pod():
    obj = pod(running(), meta_extra={"deletionTimestamp": ago(seconds=5)})
    assert by_name("pods", obj)["Status"] == "Terminating"


def test_terminal_pod_being_deleted_keeps_its_status():
    obj = pod(terminated(reason="Completed"), phase="Succeeded", meta_extra={"deletionTimestamp": CREATED})
    assert by_name("pods", obj)["Status"] == "Completed"


def test_node_lost_pod_is_unknown():
    obj = pod(running(), status_extra={"reason": "NodeLost"}, meta_extra={"deletionTimestamp": CREATED})
    assert by_name("pods", obj)["Status"] == "Unknown"


def test_scheduling_gated_pod():
    obj = {
        "metadata": {"name": "g"},
        "spec": {"containers": [{"name": "c"}], "schedulingGates": [{"name": "x"}]},
        "status": {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
        },
    }
    assert by_name("pods", obj)["Status"] == "SchedulingGated"


INIT = [{"name": "i0", "image": "busybox"}, {"name": "i1", "image": "busybox"}]


@pytest.mark.parametrize(
    ("init_statuses", "expected"),
    [
        ([{"name": "i0", "state": {"waiting": {"reason": "PodInitializing"}}}], "Init:0/2"),
        ([{"name": "i0", "state": {"running": {}}}], "Init:0/2"),
        ([{"name": "i0", "state": {"waiting": {"reason": "ErrImagePull"}}}], "Init:ErrImagePull"),
        ([{"name": "i0", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}], "Init:CrashLoopBackOff"),
        ([{"name": "i0", "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}], "Init:Error"),
        ([{"name": "i0", "state": {"terminated": {"exitCode": 3}}}], "Init:ExitCode:3"),
        ([{"name": "i0", "state": {"terminated": {"exitCode": 137, "signal": 9}}}], "Init:Signal:9"),
        (
            [
                {"name": "i0", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                {"name": "i1", "state": {"running": {}}},
            ],
            "Init:1/2",
        ),
    ],
)
def test_init_container_statuses(init_statuses, expected):
    obj = pod(waiting("PodInitializing"), phase="Pending", init=INIT, init_statuses=init_statuses)
    assert by_name("pods", obj)["Status"] == expected


def test_init_restarts_count_while_initializing():
    statuses = [
        {
            "name": "i0",
            "restartCount": 4,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
            "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(minutes=2)}},
        }
    ]
    row = by_name("pods", pod(waiting("PodInitializing"), phase="Pending", init=INIT, init_statuses=statuses))
    assert row["Status"] == "Init:CrashLoopBackOff"
    assert row["Restarts"] == "4 (2m ago)"


def test_finished_init_containers_do_not_count_restarts():
    statuses = [
        {"name": "i0", "restartCount": 2, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
        {"name": "i1", "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
    ]
    row = by_name("pods", pod(running(), init=INIT, init_statuses=statuses))
    assert row["Status"] == "Running"
    assert row["Restarts"] == "0"


def test_sidecar_init_container_counts_as_container():
    sidecar = [{"name": "log", "image": "fluent", "restartPolicy": "Always"}]
    statuses = [
        {
            "name": "log",
            "ready": True,
            "started": True,
            "restartCount": 1,
            "state": {"running": {}},
            "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(minutes=7)}},
        }
    ]
    obj = pod(
        running(),
        init=sidecar,
        init_statuses=statuses,
        status_extra={"conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}]},
    )
    row = by_name("pods", obj)
    assert row["Ready"] == "2/2"
    assert row["Status"] == "Running"
    assert row["Restarts"] == "1 (7m ago)"


def test_completed_main_container_with_running_sidecar_reads_running_or_not_ready():
    sidecar = [{"name": "log", "restartPolicy": "Always"}]
    init_statuses = [{"name": "log", "ready": True, "started": True, "state": {"running": {}}}]
    statuses = [
        terminated("main", reason="Completed"),
        {"name": "helper", "ready": True, "state": {"running": {}}},
    ]
    base = pod(*statuses, init=sidecar, init_statuses=init_statuses)
    base["status"]["conditions"] = [{"type": "Initialized", "status": "True"}]
    assert by_name("pods", base)["Status"] == "NotReady"
    base["status"]["conditions"].append({"type": "Ready", "status": "True"})
    assert by_name("pods", base)["Status"] == "Running"


def test_pod_ip_prefers_pod_ip_then_pod_ips():
    obj = copy.deepcopy(POD)
    obj["status"]["podIPs"] = [{"ip": "10.0.0.9"}]
    assert by_name("pods", obj)["IP"] == "10.244.0.7"
    del obj["status"]["podIP"]
    assert by_name("pods", obj)["IP"] == "10.0.0.9"
    obj["status"]["podIPs"] = []
    assert by_name("pods", obj)["IP"] == "<none>"


def test_nominated_node_and_readiness_gates():
    obj = copy.deepcopy(POD)
    obj["status"]["nominatedNodeName"] = "node02"
    obj["spec"]["readinessGates"] = [{"conditionType": "example.com/a"}, {"conditionType": "example.com/b"}]
    obj["status"]["conditions"] += [
        {"type": "example.com/a", "status": "True"},
        {"type": "example.com/b", "status": "False"},
    ]
    row = by_name("pods", obj)
    assert row["Nominated Node"] == "node02"
    assert row["Readiness Gates"] == "1/2"


def test_pod_age_edge_cases():
    assert by_name("pods", {"metadata": {"name": "p"}})["Age"] == "<unknown>"
    assert by_name("pods", {"metadata": {"name": "p", "creationTimestamp": "yesterday"}})["Age"] == "<unknown>"
    assert (
        by_name("pods", {"metadata": {"name": "p", "creationTimestamp": "0001-01-01T00:00:00Z"}})["Age"] == "<unknown>"
    )
    future = (NOW + timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert by_name("pods", {"metadata": {"name": "p", "creationTimestamp": future}})["Age"] == "<invalid>"
    assert by_name("pods", {"metadata": {"name": "p", "creationTimestamp": ago(seconds=95)}})["Age"] == "95s"


def test_pod_with_wrong_types_does_not_raise():
    weird = {
        "metadata": {"name": 5, "labels": "x", "deletionTimestamp": None},
        "spec": {"containers": "nope", "initContainers": [1, None], "readinessGates": [None]},
        "status": {
            "phase": 7,
            "conditions": "x",
            "containerStatuses": [None, {"state": "running", "restartCount": "3", "lastState": []}],
            "initContainerStatuses": [{"state": {"terminated": "x"}}],
            "podIPs": [None],
        },
    }
    row = by_name("pods", weird)
    assert row["Name"] == "" and row["Restarts"] == "0"
    assert row["Readiness Gates"] == "0/1"


# --------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------

NODE = {
    "metadata": {
        "name": "node01",
        "creationTimestamp": ago(days=3, hours=4),
        "labels": {
            "node-role.kubernetes.io/control-plane": "",
            "node-role.kubernetes.io/worker": "",
            "kubernetes.io/hostname": "node01",
        },
    },
    "spec": {},
    "status": {
        "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}],
        "addresses": [
            {"type": "Hostname", "address": "node01"},
            {"type": "InternalIP", "address": "192.168.1.10"},
        ],
        "nodeInfo": {
            "kubeletVersion": "v1.32.0",
            "osImage": "Ubuntu 24.04 LTS",
            "kernelVersion": "6.8.0",
            "containerRuntimeVersion": "containerd://1.7.22",
        },
    },
}


def test_node_row():
    assert cells("nodes", NODE) == [
        "node01",
        "Ready",
        "control-plane,worker",
        "3d4h",
        "v1.32.0",
        "192.168.1.10",
        "<none>",
        "Ubuntu 24.04 LTS",
        "6.8.0",
        "containerd://1.7.22",
    ]


def test_node_not_ready_and_cordoned():
    obj = copy.deepcopy(NODE)
    obj["status"]["conditions"][1]["status"] = "Unknown"
    obj["spec"]["unschedulable"] = True
    assert by_name("nodes", obj)["Status"] == "NotReady,SchedulingDisabled"


def test_node_without_ready_condition_is_unknown():
    obj = {"metadata": {"name": "n"}, "spec": {"unschedulable": True}}
    row = by_name("nodes", obj)
    assert row["Status"] == "Unknown,SchedulingDisabled"
    assert row["Roles"] == "<none>"
    assert row["Version"] == ""
    assert row["Internal-IP"] == "<none>" and row["External-IP"] == "<none>"
    assert row["OS-Image"] == row["Kernel-Version"] == row["Container-Runtime"] == "<unknown>"


def test_node_roles_from_legacy_label_and_external_ip():
    obj = copy.deepcopy(NODE)
    obj["metadata"]["labels"] = {"kubernetes.io/role": "master", "node-role.kubernetes.io/": "", "x": "y"}
    obj["status"]["addresses"].append({"type": "ExternalIP", "address": "203.0.113.5"})
    row = by_name("nodes", obj)
    assert row["Roles"] == "master"
    assert row["External-IP"] == "203.0.113.5"


# --------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------

TEMPLATE = {
    "metadata": {"labels": {"app": "myapp"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}]},
}

DEPLOYMENT = {
    "metadata": {"name": "myapp", "creationTimestamp": ago(minutes=45)},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "myapp"}}, "template": TEMPLATE},
    "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2},
}


def test_deployment_row():
    row = cells("deployments", DEPLOYMENT)
    assert row == ["myapp", "2/3", 3, 2, "45m", "web,side", "nginx:1.27,busybox", "app=myapp"]
    assert all(type(row[i]) is int for i in (2, 3))


def test_deployment_defaults_and_empty_status():
    row = by_name("deployments", {"metadata": {"name": "d"}, "spec": {"template": TEMPLATE}})
    assert row["Ready"] == "0/1"
    assert row["Up-to-date"] == 0 and row["Available"] == 0
    assert row["Selector"] == ""
    scaled_to_zero = by_name("deployments", {"metadata": {"name": "d"}, "spec": {"replicas": 0}})
    assert scaled_to_zero["Ready"] == "0/0"
    assert scaled_to_zero["Containers"] == "" and scaled_to_zero["Images"] == ""


def test_deployment_selector_with_expressions():
    obj = copy.deepcopy(DEPLOYMENT)
    obj["spec"]["selector"] = {
        "matchLabels": {"tier": "web", "app": "myapp"},
        "matchExpressions": [
            {"key": "env", "operator": "In", "values": ["prod", "dev"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "zone", "operator": "NotIn", "values": ["b"]},
            {"key": "owner", "operator": "Exists"},
        ],
    }
    assert (
        by_name("deployments", obj)["Selector"] == "app=myapp,!canary,env in (dev,prod),owner,tier=web,zone notin (b)"
    )


def test_deployment_invalid_selector():
    obj = copy.deepcopy(DEPLOYMENT)
    obj["spec"]["selector"] = {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}
    assert by_name("deployments", obj)["Selector"] == "<invalid>"


REPLICA_SET = {
    "metadata": {"name": "myapp-5d9c7", "creationTimestamp": ago(hours=30)},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "myapp", "pod-template-hash": "5d9c7"}},
        "template": TEMPLATE,
    },
    "status": {"replicas": 3, "readyReplicas": 1},
}


def test_replica_set_row():
    assert cells("replicasets", REPLICA_SET) == [
        "myapp-5d9c7",
        3,
        3,
        1,
        "30h",
        "web,side",
        "nginx:1.27,busybox",
        "app=myapp,pod-template-hash=5d9c7",
    ]


def test_replica_set_selector_none_and_error():
    assert by_name("replicasets", {"metadata": {"name": "r"}})["Selector"] == "<none>"
    bad = {"metadata": {"name": "r"}, "spec": {"selector": {"matchLabels": {"bad key!": "x"}}}}
    assert by_name("replicasets", bad)["Selector"] == "<error>"
    assert by_name("replicasets", bad)["Desired"] == 1


def test_replication_controller_row():
    rc = {
        "metadata": {"name": "legacy", "creationTimestamp": ago(days=200)},
        "spec": {"replicas": 2, "selector": {"b": "2", "a": "1"}, "template": TEMPLATE},
        "status": {"replicas": 2, "readyReplicas": 2},
    }
    assert cells("replicationcontrollers", rc) == [
        "legacy",
        2,
        2,
        2,
        "200d",
        "web,side",
        "nginx:1.27,busybox",
        "a=1,b=2",
    ]
    bare = by_name("replicationcontrollers", {"metadata": {"name": "x"}, "spec": {"template": None}})
    assert bare["Selector"] == "<none>" and bare["Containers"] == "" and bare["Desired"] == 1


# --------------------------------------------------------------------------
# Services and endpoints
# --------------------------------------------------------------------------


def service(type_=None, ports=None, **spec):
    s = {"ports": ports if ports is not None else [{"port": 80, "protocol": "TCP", "targetPort": 8080}], **spec}
    if type_:
        s["type"] = type_
    return {"metadata": {"name": "svc", "creationTimestamp": ago(days=2)}, "spec": s}


def test_cluster_ip_service():
    obj = service("ClusterIP", clusterIP="10.96.0.10", clusterIPs=["10.96.0.10"], selector={"app": "myapp"})
    assert cells("services", obj) == ["svc", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "2d", "app=myapp"]


def test_node_port_service():
    ports = [
        {"port": 80, "nodePort": 30080, "protocol": "TCP"},
        {"port": 53, "nodePort": 30053, "protocol": "UDP"},
    ]
    row = by_name("services", service("NodePort", ports, clusterIP="10.96.1.1", externalIPs=["1.2.3.4"]))
    assert row["Port(s)"] == "80:30080/TCP,53:30053/UDP"
    assert row["External-IP"] == "1.2.3.4"
    assert row["Selector"] == "<none>"


def test_load_balancer_service():
    assert (
        by_name("services", service("LoadBalancer", [{"port": 443, "nodePort": 31443}]))["External-IP"] == "<pending>"
    )
    obj = service("LoadBalancer", [{"port": 443}])
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}, {"hostname": "lb.example.com"}]}}
    assert by_name("services", obj)["External-IP"] == "203.0.113.9,lb.example.com"
    obj["spec"]["externalIPs"] = ["198.51.100.1"]
    assert by_name("services", obj)["External-IP"] == "203.0.113.9,lb.example.com,198.51.100.1"


def test_external_name_headless_and_defaults():
    ext = by_name("services", service("ExternalName", [], externalName="db.example.com"))
    assert ext["External-IP"] == "db.example.com"
    assert ext["Cluster-IP"] == "<none>" and ext["Port(s)"] == "<none>"
    headless = by_name("services", service(None, [{"port": 5432}], clusterIP="None"))
    assert headless["Type"] == "ClusterIP" and headless["Cluster-IP"] == "None"
    assert headless["Port(s)"] == "5432/TCP"
    assert by_name("services", service("Weird"))["External-IP"] == "<unknown>"


def endpoints(*subsets):
    return {"metadata": {"name": "ep", "creationTimestamp": CREATED}, "subsets": list(subsets)}


def test_endpoints_formatting():
    one = {"addresses": [{"ip": "10.244.1.5"}, {"ip": "10.244.2.3"}], "ports": [{"port": 80}]}
    assert cells("endpoints", endpoints(one)) == ["ep", "10.244.1.5:80,10.244.2.3:80", "60m"]
    four = {"addresses": [{"ip": f"10.0.0.{i}"} for i in range(1, 5)], "ports": [{"port": 80}]}
    assert by_name("endpoints", endpoints(four))["Endpoints"] == "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more..."
    two_ports = {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}, {"port": 443}]}
    assert by_name("endpoints", endpoints(two_ports))["Endpoints"] == "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more..."


def test_endpoints_edge_cases():
    assert by_name("endpoints", endpoints())["Endpoints"] == "<none>"
    assert by_name("endpoints", {"metadata": {"name": "ep"}})["Endpoints"] == "<none>"
    headless = {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]}
    assert by_name("endpoints", endpoints(headless))["Endpoints"] == "10.0.0.1,10.0.0.2"
    ipv6 = {"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 8080}]}
    assert by_name("endpoints", endpoints(ipv6))["Endpoints"] == "[fd00::1]:8080"
    # Subsets that only have not-ready addresses print nothing, as upstream.
    assert by_name("endpoints", endpoints({"notReadyAddresses": [{"ip": "10.0.0.1"}]}))["Endpoints"] == ""


# --------------------------------------------------------------------------
# Events, namespaces, configmaps
# --------------------------------------------------------------------------

EVENT = {
    "metadata": {"name": "myapp-xyz.17a1b2c3", "namespace": "default", "creationTimestamp": ago(minutes=5)},
    "involvedObject": {"kind": "Pod", "name": "myapp-xyz", "namespace": "default", "fieldPath": "spec.containers{web}"},
    "reason": "Pulled",
    "message": '  Successfully pulled image "nginx"\n',
    "source": {"component": "kubelet", "host": "node01"},
    "firstTimestamp": ago(minutes=5),
    "lastTimestamp": ago(seconds=30),
    "count": 2,
    "type": "Normal",
}


def test_event_row():
    assert cells("events", EVENT) == [
        "30s",
        "Normal",
        "Pulled",
        "pod/myapp-xyz",
        "spec.containers{web}",
        "kubelet, node01",
        'Successfully pulled image "nginx"',
        "5m",
        2,
        "myapp-xyz.17a1b2c3",
    ]


def test_event_fallbacks():
    ev = {
        "metadata": {"name": "e"},
        "involvedObject": {"kind": "Node"},
        "eventTime": ago(minutes=3).replace("Z", ".123456Z"),
        "reportingComponent": "default-scheduler",
        "reportingInstance": "sched-1",
    }
    row = by_name("events", ev)
    # MicroTime keeps sub-second precision: 2m59.88s ago.
    assert row["First Seen"] == "2m59s" and row["Last Seen"] == "2m59s"
    assert row["Count"] == 1
    assert row["Object"] == "node"
    assert row["Source"] == "default-scheduler, sched-1"
    only_component = dict(ev, source={"component": "kubelet"}, reportingInstance="")
    assert by_name("events", only_component)["Source"] == "kubelet"
    nothing = by_name("events", {})
    assert nothing["Last Seen"] == nothing["First Seen"] == "<unknown>"
    assert nothing["Object"] == "" and nothing["Count"] == 1


def test_event_series():
    ev = dict(EVENT, series={"count": 7, "lastObservedTime": ago(seconds=11).replace("Z", ".000001Z")})
    row = by_name("events", ev)
    assert row["Last Seen"] == "10s"
    assert row["Count"] == 7


def test_namespace_row():
    assert cells(
        "namespaces", {"metadata": {"name": "x", "creationTimestamp": CREATED}, "status": {"phase": "Active"}}
    ) == [
        "x",
        "Active",
        "60m",
    ]
    assert (
        by_name("namespaces", {"metadata": {"name": "y"}, "status": {"phase": "Terminating"}})["Status"]
        == "Terminating"
    )
    assert by_name("namespaces", {"metadata": {"name": "z"}})["Status"] == "Active"


def test_configmap_row():
    cm = {
        "metadata": {"name": "c", "creationTimestamp": CREATED},
        "data": {"a": "b", "c": "d"},
        "binaryData": {"e": "AA=="},
    }
    assert cells("configmaps", cm) == ["c", 3, "60m"]
    assert by_name("configmaps", {"metadata": {"name": "empty"}})["Data"] == 0


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
