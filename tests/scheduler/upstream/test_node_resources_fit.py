"""NodeResourcesFit cases from upstream ``pkg/scheduler/framework/plugins/noderesources/``:
``fit_test.go`` (TestEnoughRequests, TestNotEnoughRequests, TestStorageRequests,
TestRestartableInitContainers, TestFitScore), ``least_allocated_test.go``, ``most_allocated_test.go``
and ``requested_to_capacity_ratio_test.go`` (v1.35 era, with the UnschedulableAndUnresolvable split)."""

from __future__ import annotations

import itertools

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins import build
from clusterviz.scheduler.plugins.node_resources_fit import NAME, broken_linear
from clusterviz.scheduler.profile import validate_configuration
from tests.scheduler.helpers import (
    OK,
    capacity_node,
    container,
    filter_status,
    make_pod,
    req_pod,
    scores,
    scores_without_pre_score,
    snap,
    verdict,
)

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGEPAGES = "hugepages-2Mi"
SCORE_EXT = "abc.com/xyz"

SCALARS = {"ext_a": EXT_A, "ext_b": EXT_B, "k8s_io_a": K8S_IO_A, "k8s_io_b": K8S_IO_B, "hugepages": HUGEPAGES}

_names = itertools.count()


def usage(cpu: int = 0, memory: int = 0, storage: int = 0, **scalar: int) -> dict[str, str]:
    """One container's requests as upstream's ``newResourcePod`` writes them: every base resource explicit."""
    requests = {"cpu": f"{cpu}m", "memory": str(memory), "ephemeral-storage": str(storage)}
    requests.update({SCALARS[key]: str(value) for key, value in scalar.items()})
    return requests


def pod(*containers: dict, init: tuple = (), **spec) -> dict:
    return req_pod("p", *containers, init=init, **spec)


def placed(node: str, *containers: dict, sidecars: tuple = ()) -> dict:
    return req_pod(f"existing-{next(_names)}", *containers, sidecars=sidecars, node=node)


# --- Filter ---------------------------------------------------------------------------------------

# makeAllocatableResources(10, 20, 32, 5, 20, 5): the node every TestEnoughRequests case runs on.
FILTER_NODE = {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20", HUGEPAGES: "5"}


def insufficient(*resources: str, unresolvable: bool = False) -> tuple:
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return code, tuple(f"Insufficient {r}" for r in resources)


def fit_filter(pod_obj: dict, existing: dict | None, allocatable=FILTER_NODE, args=None) -> tuple:
    node = capacity_node("n", allocatable)
    snapshot = snap([node], [existing] if existing is not None else [])
    return verdict(filter_status(build(NAME, args or {}), pod_obj, snapshot, "n"))


@pytest.mark.parametrize(
    ("pod_obj", "existing", "args", "want"),
    [
        pytest.param(pod(), usage(10, 20), None, OK, id="no resources requested always fits"),
        pytest.param(
            pod(usage(1, 1)), usage(10, 20), None, insufficient("cpu", "memory"), id="too many resources fails"
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(3, 1),)),
            usage(8, 19),
            None,
            insufficient("cpu"),
            id="too many resources fails due to init container cpu",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(3, 1), usage(2, 1))),
            usage(8, 19),
            None,
            insufficient("cpu"),
            id="too many resources fails due to highest init container cpu",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(1, 3),)),
            usage(9, 19),
            None,
            insufficient("memory"),
            id="too many resources fails due to init container memory",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(1, 3), usage(1, 2))),
            usage(9, 19),
            None,
            insufficient("memory"),
            id="too many resources fails due to highest init container memory",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(1, 1),)),
            usage(9, 19),
            None,
            OK,
            id="init container fits because it's the max, not sum, of containers and init containers",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(1, 1), usage(1, 1))),
            usage(9, 19),
            None,
            OK,
            id="multiple init containers fit because it's the max, not sum, of containers and init containers",
        ),
        pytest.param(pod(usage(1, 1)), usage(5, 5), None, OK, id="both resources fit"),
        pytest.param(pod(usage(2, 1)), usage(9, 5), None, insufficient("cpu"), id="one resource memory fits"),
        pytest.param(pod(usage(1, 2)), usage(5, 19), None, insufficient("memory"), id="one resource cpu fits"),
        pytest.param(pod(usage(5, 1)), usage(5, 19), None, OK, id="equal edge case"),
        pytest.param(
            pod(usage(4, 1), init=(usage(5, 1),)), usage(5, 19), None, OK, id="equal edge case for init container"
        ),
        pytest.param(pod(usage(ext_a=1)), usage(), None, OK, id="extended resource fits"),
        pytest.param(
            pod(usage(), init=(usage(ext_a=1),)), usage(), None, OK, id="extended resource fits for init container"
        ),
        pytest.param(
            pod(usage(1, 1, ext_a=10)),
            usage(ext_a=0),
            None,
            insufficient(EXT_A, unresolvable=True),
            id="extended resource capacity enforced",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, ext_a=10),)),
            usage(ext_a=0),
            None,
            insufficient(EXT_A, unresolvable=True),
            id="extended resource capacity enforced for init container",
        ),
        pytest.param(
            pod(usage(1, 1, ext_a=1)),
            usage(ext_a=5),
            None,
            insufficient(EXT_A),
            id="extended resource allocatable enforced",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, ext_a=1),)),
            usage(ext_a=5),
            None,
            insufficient(EXT_A),
            id="extended resource allocatable enforced for init container",
        ),
        pytest.param(
            pod(usage(1, 1, ext_a=3), usage(1, 1, ext_a=3)),
            usage(ext_a=2),
            None,
            insufficient(EXT_A, unresolvable=True),
            id="extended resource allocatable enforced for multiple containers",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, ext_a=3), usage(1, 1, ext_a=3))),
            usage(ext_a=2),
            None,
            OK,
            id="extended resource allocatable admits multiple init containers",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, ext_a=6), usage(1, 1, ext_a=3))),
            usage(ext_a=2),
            None,
            insufficient(EXT_A, unresolvable=True),
            id="extended resource allocatable enforced for multiple init containers",
        ),
        pytest.param(
            pod(usage(1, 1, ext_b=1)),
            usage(),
            None,
            insufficient(EXT_B, unresolvable=True),
            id="extended resource allocatable enforced for unknown resource",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, ext_b=1),)),
            usage(),
            None,
            insufficient(EXT_B, unresolvable=True),
            id="extended resource allocatable enforced for unknown resource for init container",
        ),
        pytest.param(
            pod(usage(1, 1, k8s_io_a=10)),
            usage(),
            None,
            insufficient(K8S_IO_A, unresolvable=True),
            id="kubernetes.io resource capacity enforced",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, k8s_io_b=10),)),
            usage(),
            None,
            insufficient(K8S_IO_B, unresolvable=True),
            id="kubernetes.io resource capacity enforced for init container",
        ),
        pytest.param(
            pod(usage(1, 1, hugepages=10)),
            usage(hugepages=0),
            None,
            insufficient(HUGEPAGES, unresolvable=True),
            id="hugepages resource capacity enforced",
        ),
        pytest.param(
            pod(usage(), init=(usage(1, 1, hugepages=10),)),
            usage(hugepages=0),
            None,
            insufficient(HUGEPAGES, unresolvable=True),
            id="hugepages resource capacity enforced for init container",
        ),
        pytest.param(
            pod(usage(1, 1, hugepages=3), usage(1, 1, hugepages=3)),
            usage(hugepages=2),
            None,
            insufficient(HUGEPAGES, unresolvable=True),
            id="hugepages resource allocatable enforced for multiple containers",
        ),
        pytest.param(
            pod(usage(1, 1, ext_b=1)),
            usage(),
            {"ignoredResources": [EXT_B]},
            OK,
            id="skip checking ignored extended resource",
        ),
        pytest.param(
            pod(usage(1, 1), overhead={"cpu": "3m", "memory": "13"}),
            usage(5, 5),
            None,
            OK,
            id="resources + pod overhead fits",
        ),
        pytest.param(
            pod(usage(1, 1), overhead={"cpu": "1m", "memory": "15"}),
            usage(5, 5),
            None,
            insufficient("memory"),
            id="requests + overhead does not fit for memory",
        ),
        pytest.param(
            pod(usage(1, 1, ext_b=1, k8s_io_a=1)),
            usage(),
            {"ignoredResourceGroups": ["example.com"]},
            insufficient(K8S_IO_A, unresolvable=True),
            id="skip checking ignored extended resource via resource groups",
        ),
        pytest.param(
            pod(usage(1, 1, ext_a=0)),
            usage(ext_a=6),
            None,
            OK,
            id="skip checking extended resource request with quantity zero via resource groups",
        ),
        pytest.param(
            pod(usage(ext_a=1)),
            usage(20, 30, ext_a=1),
            None,
            OK,
            id="skip checking resource request with quantity zero",
        ),
        # Pod-level requests (PodLevelResources, enabled by default in v1.35) replace the containers' sum.
        pytest.param(
            pod(usage(1, 1), resources={"requests": {"cpu": "1m", "memory": "2"}}),
            usage(5, 5),
            None,
            OK,
            id="both pod-level and container-level resources fit",
        ),
        pytest.param(
            pod(usage(1, 1), resources={"requests": {"cpu": "7m", "memory": "2"}}),
            usage(5, 5),
            None,
            insufficient("cpu"),
            id="pod-level cpu resource not fit",
        ),
        pytest.param(
            pod(usage(1, 1), resources={"requests": {"cpu": "3m", "memory": "2"}}),
            usage(5, 19),
            None,
            insufficient("memory"),
            id="pod-level memory resource not fit",
        ),
        pytest.param(
            pod(resources={"requests": {"cpu": "3m", "memory": "2", HUGEPAGES: "5"}}),
            None,
            None,
            OK,
            id="pod-level hugepages resource fit",
        ),
        pytest.param(
            pod(usage(1, 1, hugepages=3), resources={"requests": {"cpu": "3m", "memory": "2", HUGEPAGES: "5"}}),
            None,
            None,
            OK,
            id="both pod-level and container-level hugepages resource fit",
        ),
        pytest.param(
            pod(resources={"requests": {"cpu": "3m", "memory": "2", HUGEPAGES: "10"}}),
            None,
            None,
            insufficient(HUGEPAGES, unresolvable=True),
            id="pod-level hugepages resource not fit",
        ),
        pytest.param(
            pod(usage(1, 1), init=(usage(1, 1),), resources={"requests": {"cpu": "3m", "memory": "2"}}),
            usage(5, 19),
            None,
            insufficient("memory"),
            id="one pod-level cpu resource fits and all init and non-init containers resources fit",
        ),
    ],
)
def test_enough_requests(pod_obj, existing, args, want):
    on_node = placed("n", existing) if existing is not None else None
    assert fit_filter(pod_obj, on_node, args=args) == want


# makeAllocatableResources(10, 20, 1, 0, 0, 0): room for exactly one Pod, which is already there.
ONE_POD_NODE = {"cpu": "10m", "memory": "20", "pods": "1", EXT_A: "0", "ephemeral-storage": "0", HUGEPAGES: "0"}
TOO_MANY_PODS = (Code.UNSCHEDULABLE, ("Too many pods",))


@pytest.mark.parametrize(
    ("pod_obj", "existing"),
    [
        pytest.param(
            pod(),
            usage(10, 20),
            id="even without specified resources, predicate fails when there's no space for additional pod",
        ),
        pytest.param(
            pod(usage(1, 1)),
            usage(5, 5),
            id="even if both resources fit, predicate fails when there's no space for additional pod",
        ),
        pytest.param(
            pod(usage(5, 1)),
            usage(5, 19),
            id="even for equal edge case, predicate fails when there's no space for additional pod",
        ),
        pytest.param(
            pod(usage(5, 1), init=(usage(5, 1),)),
            usage(5, 19),
            id="even for equal edge case, predicate fails when there's no space for additional pod due to init container",
        ),
    ],
)
def test_not_enough_requests(pod_obj, existing):
    assert fit_filter(pod_obj, placed("n", existing), allocatable=ONE_POD_NODE) == TOO_MANY_PODS


@pytest.mark.parametrize(
    ("pod_obj", "existing", "want"),
    [
        pytest.param(pod(usage(1, 1)), usage(2, 10), OK, id="empty storage requested, and pod fits"),
        pytest.param(
            pod(usage(storage=25)),
            usage(2, 2),
            insufficient("ephemeral-storage", unresolvable=True),
            id="storage ephemeral local storage request exceeds allocatable",
        ),
        # upstream wraps this container list as init containers of a Pod without any: it requests nothing.
        pytest.param(
            pod(init=(usage(storage=5),)), usage(2, 2, storage=10), OK, id="ephemeral local storage is sufficient"
        ),
        pytest.param(pod(usage(storage=10)), usage(2, 2), OK, id="pod fits"),
    ],
)
def test_storage_requests(pod_obj, existing, want):
    assert fit_filter(pod_obj, placed("n", existing), allocatable=FILTER_NODE) == want


# makeAllocatableResources(2, 0, 1, 0, 0, 0) and no Pods: 2 millicores for a Pod and its sidecar.
SIDECAR_NODE = {"cpu": "2m", "memory": "0", "pods": "1", EXT_A: "0", "ephemeral-storage": "0", HUGEPAGES: "0"}


@pytest.mark.parametrize(
    ("requests", "sidecar", "want"),
    [
        pytest.param(
            None, False, OK, id="allow pod without restartable init containers if sidecar containers is enabled"
        ),
        pytest.param(None, True, OK, id="allow pod with restartable init containers if sidecar containers is enabled"),
        pytest.param(
            ({"cpu": "1m"}, {"cpu": "1m"}),
            True,
            OK,
            id="allow pod if the total requested resources do not exceed the node's allocatable resources",
        ),
        pytest.param(
            ({"cpu": "1m"}, {"cpu": "2m"}),
            True,
            insufficient("cpu", unresolvable=True),
            id="not allow pod if the total requested resources do exceed the node's allocatable resources",
        ),
    ],
)
def test_restartable_init_containers(requests, sidecar, want):
    app, side = requests or (None, None)
    init = [container("restartable-init", requests=side, restart_policy="Always")] if sidecar else []
    pod_obj = make_pod("p", containers=[container("regular", requests=app)], init_containers=init)
    assert fit_filter(pod_obj, None, allocatable=SIDECAR_NODE) == want


# --- Score ----------------------------------------------------------------------------------------


def req(cpu: str, memory: str, **scalar: str) -> dict[str, str]:
    """``Req(map{"cpu": ..., "memory": ...})``: quantities as upstream writes them (cpu in cores)."""
    return {"cpu": cpu, "memory": memory, **{SCORE_SCALARS[k]: v for k, v in scalar.items()}}


SCORE_SCALARS = {"ext": SCORE_EXT, "foo": "intel.com/foo", "bar": "intel.com/bar"}


def cap(name: str, cpu: str, memory: str, **scalar: str) -> dict:
    return capacity_node(name, req(cpu, memory, **scalar))


def strategy(kind: str, resources=(("cpu", 1), ("memory", 1)), shape=None) -> dict:
    spec: dict = {"type": kind, "resources": [{"name": n, "weight": w} for n, w in resources]}
    if shape is not None:
        spec["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": s} for u, s in shape]}
    return {"scoringStrategy": spec}


def fit_scores(args: dict, pod_obj: dict, nodes: list, existing=(), pre_score: bool = True) -> list[int]:
    plugin = build(NAME, args)
    snapshot = snap(nodes, existing)
    got = (
        scores(plugin, pod_obj, snapshot)["normalized"]
        if pre_score
        else scores_without_pre_score(plugin, pod_obj, snapshot)
    )
    return [got[node["metadata"]["name"]] for node in nodes]


WITH_EXT = (("cpu", 1), ("memory", 1), (SCORE_EXT, 1))
EXT_HEAVY = ((SCORE_EXT, 2), ("cpu", 1), ("memory", 1))
MEMORY_HEAVY = (("memory", 2), ("cpu", 1))
TWO_CONTAINERS = pod(req("1000", "2000"), req("2000", "3000"))
SMALL_AND_WIDE = [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")]
SAME_4000 = [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")]
BIG = [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")]
EXT_NODES = [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", ext="4")]
EXT_4_10 = [cap("node1", "6000", "10000", ext="4"), cap("node2", "6000", "10000", ext="10")]


def two_bare_each():
    return [placed("node1"), placed("node1"), placed("node2"), placed("node2")]


def cpu_heavy_pairs():
    zero = req("3000", "0")
    return [placed("node1", zero), placed("node1", zero), placed("node2", zero), placed("node2", req("3000", "5000"))]


def one_each():
    return [placed("node1", req("3000", "0")), placed("node2", req("3000", "5000"))]


@pytest.mark.parametrize(
    ("pod_obj", "nodes", "existing", "resources", "want"),
    [
        pytest.param(pod(), SAME_4000, [], None, [100, 100], id="nothing scheduled, nothing requested"),
        pytest.param(
            TWO_CONTAINERS,
            SMALL_AND_WIDE,
            [],
            None,
            [37, 50],
            id="nothing scheduled, resources requested, differently sized nodes",
        ),
        pytest.param(pod(), SAME_4000, two_bare_each(), None, [100, 100], id="no resources requested, pods scheduled"),
        pytest.param(
            pod(), BIG, cpu_heavy_pairs(), None, [70, 57], id="no resources requested, pods scheduled with resources"
        ),
        pytest.param(
            TWO_CONTAINERS, BIG, one_each(), None, [57, 45], id="resources requested, pods scheduled with resources"
        ),
        pytest.param(
            TWO_CONTAINERS,
            [cap("node1", "10000", "20000"), cap("node2", "10000", "50000")],
            one_each(),
            None,
            [57, 60],
            id="resources requested, pods scheduled with resources, differently sized nodes",
        ),
        pytest.param(
            pod(req("3000", "0")), SAME_4000, one_each(), None, [50, 25], id="requested resources exceed node capacity"
        ),
        pytest.param(
            pod(),
            [capacity_node("node1", {}), capacity_node("node2", {})],
            one_each(),
            None,
            [0, 0],
            id="zero node resources, pods scheduled with resources",
        ),
        pytest.param(
            TWO_CONTAINERS,
            SMALL_AND_WIDE,
            [],
            MEMORY_HEAVY,
            [41, 50],
            id="nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
        ),
        pytest.param(
            TWO_CONTAINERS, EXT_NODES, [], WITH_EXT, [50, 50], id="bypass extended resource if the pod does not request"
        ),
        pytest.param(
            pod(req("3000", "5000", ext="2")),
            EXT_4_10,
            [],
            WITH_EXT,
            [50, 60],
            id="honor extended resource if the pod requests",
        ),
        pytest.param(
            pod(req("3000", "4000")), EXT_NODES, [], EXT_HEAVY, [55, 55], id="if the node doesn't have a resource"
        ),
    ],
)
def test_least_allocated_scoring_strategy(pod_obj, nodes, existing, resources, want):
    args = strategy("LeastAllocated", *(() if resources is None else (resources,)))
    assert fit_scores(args, pod_obj, nodes, existing) == want


@pytest.mark.parametrize(
    ("pod_obj", "nodes", "existing", "resources", "want"),
    [
        pytest.param(pod(), SAME_4000, [], None, [0, 0], id="nothing scheduled, nothing requested"),
        pytest.param(
            TWO_CONTAINERS,
            SMALL_AND_WIDE,
            [],
            None,
            [62, 50],
            id="nothing scheduled, resources requested, differently sized nodes",
        ),
        pytest.param(
            pod(), BIG, cpu_heavy_pairs(), None, [30, 42], id="no resources requested, pods scheduled with resources"
        ),
        pytest.param(
            TWO_CONTAINERS, BIG, one_each(), None, [42, 55], id="resources requested, pods scheduled with resources"
        ),
        pytest.param(
            pod(req("2000", "4000"), req("3000", "5000")),
            [cap("node1", "5000", "10000"), cap("node2", "10000", "9000")],
            [],
            None,
            [95, 75],
            id="resources requested equal node capacity",
        ),
        # upstream reuses the name of the second case for this weighted variant.
        pytest.param(
            TWO_CONTAINERS,
            SMALL_AND_WIDE,
            [],
            MEMORY_HEAVY,
            [58, 50],
            id="nothing scheduled, resources requested, differently sized nodes (memory weight 2)",
        ),
        # Containers without requests count as 100m / 200Mi each when scoring.
        pytest.param(
            req_pod("p", {}),
            [cap("node1", "250m", "1000Mi"), cap("node2", "250m", "1000Mi")],
            [placed("node1", {}), placed("node1", {})],
            None,
            [80, 30],
            id="no resources requested, pods scheduled, nonzero request for resource",
        ),
        pytest.param(
            TWO_CONTAINERS, EXT_NODES, [], WITH_EXT, [50, 50], id="bypass extended resource if the pod does not request"
        ),
        pytest.param(
            pod(req("3000", "5000", ext="2")),
            EXT_4_10,
            [],
            WITH_EXT,
            [50, 40],
            id="honor extended resource if the pod request",
        ),
        pytest.param(
            pod(req("3000", "4000")), EXT_NODES, [], EXT_HEAVY, [45, 45], id="if the node doesn't have a resource"
        ),
    ],
)
def test_most_allocated_scoring_strategy(pod_obj, nodes, existing, resources, want):
    args = strategy("MostAllocated", *(() if resources is None else (resources,)))
    assert fit_scores(args, pod_obj, nodes, existing) == want


# Weight 0 is left out: the v1 configuration defaults it to 1 before validation (upstream's table
# builds the internal config directly, where 0 is rejected).
@pytest.mark.parametrize(
    ("kind", "resources", "field"),
    [
        pytest.param(
            "LeastAllocated",
            (("memory", -1), ("cpu", 1)),
            "resources[0].weight",
            id="least allocated: resource with negative weight",
        ),
        pytest.param(
            "LeastAllocated",
            (("memory", 1), ("cpu", 101)),
            "resources[1].weight",
            id="least allocated: resource weight larger than MaxNodeScore",
        ),
        pytest.param(
            "MostAllocated",
            (("memory", -1), ("cpu", 1)),
            "resources[0].weight",
            id="most allocated: resource with negative weight",
        ),
        pytest.param(
            "MostAllocated",
            (("memory", 101),),
            "resources[0].weight",
            id="most allocated: resource weight larger than MaxNodeScore",
        ),
    ],
)
def test_invalid_resource_weight(kind, resources, field):
    config = {"profiles": [{"pluginConfig": [{"name": NAME, "args": strategy(kind, resources)}]}]}
    errors = validate_configuration(config)
    assert any(f"scoringStrategy.{field}" in e for e in errors), errors


SHAPE_LEAST = ((0, 10), (100, 0))


@pytest.mark.parametrize(
    ("pod_obj", "nodes", "existing", "want"),
    [
        pytest.param(
            pod(),
            SAME_4000,
            [placed("node1"), placed("node1")],
            [100, 100],
            id="nothing scheduled, nothing requested (default - least requested nodes have priority)",
        ),
        pytest.param(
            TWO_CONTAINERS,
            SMALL_AND_WIDE,
            [placed("node1"), placed("node1")],
            [38, 50],
            id="nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
        ),
        pytest.param(
            pod(),
            SMALL_AND_WIDE,
            [placed("node1", req("3000", "5000")), placed("node2", req("3000", "5000"))],
            [38, 50],
            id="no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
        ),
    ],
)
def test_requested_to_capacity_ratio_scoring_strategy(pod_obj, nodes, existing, want):
    args = strategy("RequestedToCapacityRatio", shape=SHAPE_LEAST)
    assert fit_scores(args, pod_obj, nodes, existing) == want


@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        pytest.param(
            ((10, 1), (90, 9)),
            {-10: 1, 0: 1, 9: 1, 10: 1, 15: 1, 19: 1, 20: 2, 89: 8, 90: 9, 99: 9, 100: 9, 110: 9},
            id="case_0",
        ),
        pytest.param(
            ((0, 2), (40, 10), (100, 0)), {-10: 2, 0: 2, 20: 6, 30: 8, 40: 10, 70: 5, 100: 0, 110: 0}, id="case_1"
        ),
        pytest.param(
            ((0, 2), (40, 2), (100, 2)), {-10: 2, 0: 2, 20: 2, 30: 2, 40: 2, 70: 2, 100: 2, 110: 2}, id="case_2"
        ),
    ],
)
def test_broken_linear_function(points, assertions):
    assert {p: broken_linear(points, p) for p in assertions} == assertions


# makeNode(name, 4000, 10000*1024*1024, extended): 4 cores, 10000 MiB and the extended resources.
def bin_node(name: str, **scalar: str) -> dict:
    return cap(name, "4", "10000Mi", **scalar)


BIN_SHAPE = ((0, 0), (100, 1))
FOO_2, FOO_4 = req_pod("p", {"intel.com/foo": "2"}), req_pod("p", {"intel.com/foo": "4"})


@pytest.mark.parametrize(
    ("pod_obj", "existing", "want"),
    [
        pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
        pytest.param(FOO_2, [], [2, 5], id="resources requested, pods scheduled with less resources"),
        pytest.param(
            FOO_2,
            [placed("node2", {"intel.com/foo": "2"})],
            [2, 10],
            id="resources requested, pods scheduled with resources, on node with existing pod running ",
        ),
        pytest.param(FOO_4, [], [5, 10], id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_single_extended(pod_obj, existing, want):
    nodes = [bin_node("node1", foo="8"), bin_node("node2", foo="4")]
    args = strategy("RequestedToCapacityRatio", (("intel.com/foo", 1),), BIN_SHAPE)
    assert fit_scores(args, pod_obj, nodes, existing) == want


FOO2_BAR2 = {"intel.com/foo": "2", "intel.com/bar": "2"}
FOO4_BAR2 = {"intel.com/foo": "4", "intel.com/bar": "2"}


@pytest.mark.parametrize(
    ("pod_obj", "existing", "want"),
    [
        pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
        pytest.param(req_pod("p", FOO2_BAR2), [], [4, 3], id="resources requested, pods scheduled with less resources"),
        pytest.param(
            req_pod("p", FOO2_BAR2),
            [placed("node2", FOO4_BAR2)],
            [4, 7],
            id="resources requested, pods scheduled with resources, on node with existing pod running ",
        ),
        pytest.param(req_pod("p", FOO4_BAR2), [], [5, 5], id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_multiple_extended(pod_obj, existing, want):
    nodes = [bin_node("node1", foo="8", bar="4"), bin_node("node2", foo="4", bar="8")]
    args = strategy("RequestedToCapacityRatio", (("intel.com/foo", 3), ("intel.com/bar", 5)), BIN_SHAPE)
    assert fit_scores(args, pod_obj, nodes, existing) == want


def fit_score_pods():
    return [placed("node1", req("2000", "4000")), placed("node2", req("1000", "2000"))]


def sidecar_pods():
    one = req("1000", "2000")
    return [placed("node1", one, sidecars=(one,)), placed("node2", one)]


@pytest.mark.parametrize(
    ("args", "pod_obj", "nodes", "existing", "pre_score", "want"),
    [
        pytest.param(
            strategy("RequestedToCapacityRatio", shape=SHAPE_LEAST),
            pod(req("3000", "5000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            True,
            [10, 32],
            id="test case for ScoringStrategy RequestedToCapacityRatio case1",
        ),
        pytest.param(
            strategy("RequestedToCapacityRatio", shape=((0, 0), (100, 10))),
            pod(req("3000", "5000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            True,
            [95, 68],
            id="test case for ScoringStrategy RequestedToCapacityRatio case2",
        ),
        pytest.param(
            strategy("MostAllocated"),
            pod(req("1000", "2000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            True,
            [67, 36],
            id="test case for ScoringStrategy MostAllocated",
        ),
        pytest.param(
            strategy("LeastAllocated"),
            pod(req("1000", "2000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            True,
            [32, 63],
            id="test case for ScoringStrategy LeastAllocated",
        ),
        pytest.param(
            strategy("RequestedToCapacityRatio", shape=SHAPE_LEAST),
            pod(req("3000", "5000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            False,
            [10, 32],
            id="test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
        ),
        pytest.param(
            strategy("MostAllocated"),
            pod(req("1000", "2000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            False,
            [67, 36],
            id="test case for ScoringStrategy MostAllocated if PreScore is not called",
        ),
        pytest.param(
            strategy("LeastAllocated"),
            pod(req("1000", "2000")),
            SMALL_AND_WIDE,
            fit_score_pods(),
            False,
            [32, 63],
            id="test case for ScoringStrategy LeastAllocated if PreScore is not called",
        ),
        pytest.param(
            strategy("MostAllocated"),
            pod(req("1000", "2000")),
            SAME_4000,
            sidecar_pods(),
            True,
            [67, 45],
            id="test case for ScoringStrategy MostAllocated with sidecar container",
        ),
        pytest.param(
            strategy("LeastAllocated"),
            pod(req("1000", "2000")),
            SAME_4000,
            sidecar_pods(),
            True,
            [32, 55],
            id="test case for ScoringStrategy LeastAllocated with sidecar container",
        ),
    ],
)
def test_fit_score(args, pod_obj, nodes, existing, pre_score, want):
    assert fit_scores(args, pod_obj, nodes, existing, pre_score) == want
