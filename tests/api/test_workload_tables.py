"""Table rows of the workload controllers (apps/v1 Deployments and ReplicaSets, core ReplicationControllers),
as a real kube-apiserver prints them."""

import copy

from tests.api.test_tables import ago, by_name, cells

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
