"""Table rows of the core group's kinds (pods, nodes, services, endpoints, events, namespaces, configmaps),
as a real kube-apiserver prints them."""

import copy
from datetime import timedelta

import pytest

from tests.api.test_tables import CREATED, NOW, POD, ago, by_name, cells, one_row

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
