"""Priority and preemption through the machine's real kubectl, against Daphne in fast-forward: PriorityClasses,
the Priority admission step, and a full cluster making room for a Pod of higher priority."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_jobs import cells, eventually, header, ok
from tests.livesim import LiveServer

CLUSTER = "preemptlab"

CLASSES = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: production}
value: 5000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent}
value: 10000
"""

POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {{app: {name}}}}}
spec:
  {placement}
  containers:
  - name: app
    image: nginx:1.27
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def pod(name: str, cpu: str, node: str = "", priority_class: str = "") -> str:
    lines = [f"nodeName: {node}"] if node else []
    if priority_class:
        lines.append(f"priorityClassName: {priority_class}")
    return POD.format(name=name, cpu=cpu, placement="\n  ".join(lines) or "{}")


@pytest.fixture(scope="module")
def preempt_cluster(live: LiveServer) -> str:
    """Two nodes of 2 CPUs of this module's own, so that the fillers make them full."""
    created = live.manage("createcluster", CLUSTER, "--nodes", "2", "--cpu", "2", "--memory", "4Gi")
    assert created.returncode == 0, created.stderr
    return CLUSTER


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, preempt_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(preempt_cluster), tmp_path)


def apply(kubectl: Kubectl, tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return ok(kubectl("apply", "-f", str(path)))


def test_kubectl_get_priorityclasses_lists_the_system_classes(kubectl: Kubectl):
    out = ok(kubectl("get", "pc"))
    assert header(out) == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    rows = {cells(out, i)[0]: cells(out, i) for i in range(1, len(out.splitlines()))}
    assert rows["system-node-critical"][1:3] == ["2000001000", "false"]
    assert rows["system-cluster-critical"][1:3] == ["2000000000", "false"]
    assert rows["system-node-critical"][4] == "PreemptLowerPriority"
    refused = kubectl("delete", "priorityclass", "system-node-critical")
    assert refused.returncode != 0
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
        "this is a system priority class and cannot be deleted"
    )


def test_an_unknown_priority_class_is_refused_with_the_api_servers_message(kubectl: Kubectl, tmp_path: Path):
    path = tmp_path / "x.yaml"
    path.write_text(pod("x", "100m", priority_class="nope"))
    refused = kubectl("apply", "-f", str(path))
    assert refused.returncode != 0
    assert refused.stderr.strip() == (
        f'Error from server (Forbidden): error when creating "{path}": '
        'pods "x" is forbidden: no PriorityClass with name nope was found'
    )
    assert kubectl("get", "pod", "x").returncode != 0


def _watch(kubectl: Kubectl) -> subprocess.Popen[str]:
    """kubectl get pods --watch -o json, left running: every version of every Pod, as the API sends it."""
    env = {"HOME": str(kubectl.home), "KUBECONFIG": str(kubectl.home / "kubeconfig"), "PATH": "/usr/bin:/bin"}
    return subprocess.Popen(
        [kubectl.binary, f"--server={kubectl.server}", f"--cache-dir={kubectl.home / 'cache'}",
         "get", "pods", "--watch", "-o", "json", "--output-watch-events"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _versions(stream: str) -> list[dict]:
    decoder, found, at = json.JSONDecoder(), [], 0
    text = stream.strip()
    while at < len(text):
        event, end = decoder.raw_decode(text, at)
        found.append(event["object"])
        at = end
        while at < len(text) and text[at].isspace():
            at += 1
    return found


def test_a_full_cluster_makes_room_for_a_pod_of_higher_priority(kubectl: Kubectl, tmp_path: Path):
    apply(kubectl, tmp_path, "classes", CLASSES)
    fillers = [("report-a", "1", "node01", "batch"), ("report-b", "800m", "node01", "batch"),
               ("cache", "1", "node02", ""), ("frontend", "800m", "node02", "production")]
    apply(kubectl, tmp_path, "fillers", "---\n".join(pod(*f) for f in fillers))
    eventually(lambda: ok(kubectl("get", "pods", "-o", "jsonpath={.items[*].status.phase}")).split() == ["Running"] * 4,
               "the fillers to run")
    assert ok(kubectl("get", "pod", "cache", "-o", "jsonpath={.spec.priority}")) == "0"
    assert ok(kubectl("get", "pod", "frontend", "-o", "jsonpath={.spec.priority}")) == "5000"

    watch = _watch(kubectl)
    try:
        apply(kubectl, tmp_path, "checkout", pod("checkout", "1", priority_class="urgent"))
        eventually(lambda: ok(kubectl("get", "pod", "checkout", "-o", "jsonpath={.spec.nodeName}")) == "node02",
                   "checkout to be scheduled once cache is gone")
    finally:
        watch.terminate()
        stream, _ = watch.communicate(timeout=30)
    versions = _versions(stream)

    # The victim: cache, the least important Pod whose eviction is enough; frontend and node01's reports stay.
    assert kubectl("get", "pod", "cache").returncode != 0
    names = ok(kubectl("get", "pods", "-o", "jsonpath={.items[*].metadata.name}")).split()
    assert sorted(names) == ["checkout", "frontend", "report-a", "report-b"]
    cache = [v for v in versions if v["metadata"]["name"] == "cache"]
    target = [c for v in cache for c in v["status"].get("conditions", []) if c["type"] == "DisruptionTarget"]
    assert target and target[-1]["status"] == "True" and target[-1]["reason"] == "PreemptionByScheduler"
    assert target[-1]["message"] == "default-scheduler: preempting to accommodate a higher priority pod"
    assert any(v["metadata"].get("deletionTimestamp") for v in cache)

    # The preemptor: Pending and nominated to node02 while cache terminated, then bound there.
    checkout = [v for v in versions if v["metadata"]["name"] == "checkout"]
    assert any(v["status"].get("nominatedNodeName") == "node02" and not v["spec"].get("nodeName") for v in checkout)
    uid = checkout[0]["metadata"]["uid"]
    assert checkout[0]["spec"]["priority"] == 10000

    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=cache,reason=Preempted",
                        "-o", "jsonpath={.items[*].message}"))
    assert events == f"Preempted by pod {uid} on node node02"
    described = ok(kubectl("describe", "pod", "checkout"))
    assert re.search(r"Priority:\s+10000\n", described) and re.search(r"Priority Class Name:\s+urgent\n", described)
    assert re.search(r"Warning\s+FailedScheduling\s+.*0/2 nodes are available: 2 Insufficient cpu\.", described)
    assert re.search(r"Normal\s+Scheduled\s+.*Successfully assigned default/checkout to node02", described)
    wide = ok(kubectl("get", "pod", "checkout", "-o", "wide"))
    assert cells(wide)[header(wide).index("NODE")] == "node02"
    assert cells(wide)[header(wide).index("NOMINATED NODE")] == "<none>"


def test_kubectl_create_priorityclass_one_global_default_and_describe(kubectl: Kubectl, tmp_path: Path):
    made = ok(kubectl("create", "priorityclass", "everyday", "--value=50", "--global-default",
                      "--preemption-policy=Never", "--description=most Pods"))
    assert made.strip() == "priorityclass.scheduling.k8s.io/everyday created"
    second = kubectl("create", "priorityclass", "another", "--value=60", "--global-default")
    assert second.stderr.strip() == (
        'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "another" is forbidden: '
        "PriorityClass everyday is already marked as default. Only one default can exist"
    )
    described = ok(kubectl("describe", "priorityclass", "everyday"))
    for line in (r"Name:\s+everyday", r"Value:\s+50", r"GlobalDefault:\s+true", r"PreemptionPolicy:\s+Never",
                 r"Description:\s+most Pods"):
        assert re.search(line, described), line
    # A Pod naming no class gets the default's name, value and policy; one writing its own priority is refused.
    ok(kubectl("run", "plain", "--image=nginx:1.27"))
    spec = json.loads(ok(kubectl("get", "pod", "plain", "-o", "json")))["spec"]
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == ("everyday", 50, "Never")
    path = tmp_path / "written.yaml"
    path.write_text(POD.format(name="written", cpu="100m", placement="priority: 7"))
    refused = kubectl("apply", "-f", str(path))
    assert refused.stderr.strip() == (
        f'Error from server (Forbidden): error when creating "{path}": pods "written" is forbidden: the integer '
        "value of priority (7) must not be provided in pod spec; priority admission controller computed 50 from "
        "the given PriorityClass name"
    )
    ok(kubectl("delete", "pod", "plain", "--wait=false"))
    ok(kubectl("delete", "priorityclass", "everyday"))


def test_kubectl_explain_priorityclass(kubectl: Kubectl):
    out = ok(kubectl("explain", "pc"))
    assert out.splitlines()[:3] == ["GROUP:      scheduling.k8s.io", "KIND:       PriorityClass", "VERSION:    v1"]
    assert re.search(r"\n  value\t<integer> -required-\n", out)
    assert re.search(r"\n  preemptionPolicy\t<string>\n", out) and re.search(r"\n  globalDefault\t<boolean>\n", out)
