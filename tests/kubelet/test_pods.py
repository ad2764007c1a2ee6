"""A kubelet runs the Pods bound to its node: admission, pulls, containers, status, deletion."""

import ipaddress
import re

from clusterviz.kubelet import images
from clusterviz.sim import registry

from .helpers import condition, events_of, kubectl, pinned_pod, pod


async def test_a_pinned_pod_runs_with_an_ip_from_its_nodes_cidr(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()

    running = await pod("myapp-1")
    status = running["status"]
    assert status["phase"] == "Running"
    assert ipaddress.ip_address(status["podIP"]) in ipaddress.ip_network("10.244.1.0/24")
    assert status["podIPs"] == [{"ip": status["podIP"]}]
    assert status["hostIP"] == "192.168.49.11"
    (container,) = status["containerStatuses"]
    assert container["ready"] is True and container["started"] is True and container["restartCount"] == 0
    assert re.fullmatch(r"containerd://[0-9a-f]{64}", container["containerID"])
    assert container["imageID"] == images.image_id("soscscs/myapp:v1")
    assert container["imageID"].startswith("docker.io/soscscs/myapp@sha256:")
    assert "startedAt" in container["state"]["running"]
    for type_ in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"):
        assert condition(running, type_)["status"] == "True", type_


async def test_the_kubelet_reports_pulling_pulled_created_started(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()

    events = await events_of("myapp-1")
    assert [e["reason"] for e in events] == ["Pulling", "Pulled", "Created", "Started"]
    assert {(e["source"]["component"], e["source"]["host"]) for e in events} == {("kubelet", "node01")}
    assert {e["involvedObject"]["fieldPath"] for e in events} == {"spec.containers{myapp}"}
    pulling, pulled, created, started = (e["message"] for e in events)
    assert pulling == 'Pulling image "soscscs/myapp:v1"'
    size = images.size_bytes("soscscs/myapp:v1")
    assert re.fullmatch(
        rf'Successfully pulled image "soscscs/myapp:v1" in (\d+ms|[\d.]+s) \(\1 including waiting\)\. '
        rf"Image size: {size} bytes\.",
        pulled,
    ), pulled
    assert created == "Created container: myapp"
    assert started == "Started container myapp"


async def test_a_second_pod_finds_the_image_already_present(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()
    await kubectl().create(pinned_pod("myapp-2"))
    await sim.engine.until_settled()

    events = await events_of("myapp-2")
    assert [e["reason"] for e in events] == ["Pulled", "Created", "Started"]
    assert events[0]["message"] == 'Container image "soscscs/myapp:v1" already present on machine'
    first, second = await pod("myapp-1"), await pod("myapp-2")
    assert first["status"]["podIP"] != second["status"]["podIP"]


async def test_the_node_lists_pulled_images_for_image_locality(sim):
    await kubectl().create(pinned_pod("web", image="nginx:1.27"))
    await sim.engine.until_settled()

    node = await kubectl().get("nodes", "node01")
    (image,) = node["status"]["images"]
    assert "nginx:1.27" in image["names"]
    assert images.image_id("nginx:1.27") in image["names"]
    assert image["sizeBytes"] == images.size_bytes("nginx:1.27")
    assert (await kubectl().get("nodes", "node02"))["status"]["images"] == []


async def test_pulling_takes_image_size_over_bandwidth(sim):
    await kubectl().create(pinned_pod("db", image="mysql:8.0"))
    await sim.engine.until_settled()

    messages = {m.verb: m.time for m in sim.engine.trace if m.to == "runtime/node01"}
    pull_time = messages["create"] - messages["pull"]  # the pull hop, then the next call
    expected = images.size_bytes("mysql:8.0") / sim.ctx.settings.image_pull_bandwidth
    assert abs(pull_time - expected) < 0.2


async def test_a_pod_asking_for_more_cpu_than_the_node_has_fails(sim):
    await kubectl().create(pinned_pod("greedy", cpu="5"))
    await sim.engine.until_settled()

    status = (await pod("greedy"))["status"]
    assert status["phase"] == "Failed"
    assert status["reason"] == "OutOfcpu"
    assert (
        status["message"]
        == "Pod was rejected: Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"
    )
    (event,) = await events_of("greedy")
    assert (event["type"], event["reason"]) == ("Warning", "OutOfcpu")
    assert event["message"] == "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"


async def test_admission_counts_the_pods_already_admitted(sim):
    await kubectl().create(pinned_pod("big", cpu="3", memory="1Gi"))
    await sim.engine.until_settled()
    await kubectl().create(pinned_pod("too-much", memory="8Gi"))
    await sim.engine.until_settled()

    assert (await pod("big"))["status"]["phase"] == "Running"
    rejected = (await pod("too-much"))["status"]
    assert rejected["reason"] == "OutOfmemory"
    assert rejected["message"].endswith(f"memory, requested: {8 * 2**30}, used: {2**30}, capacity: {8 * 2**30}")


async def test_a_pod_whose_node_selector_does_not_match_is_rejected(sim):
    body = pinned_pod("picky")
    body["spec"]["nodeSelector"] = {"disktype": "ssd"}
    await kubectl().create(body)
    await sim.engine.until_settled()

    status = (await pod("picky"))["status"]
    assert (status["phase"], status["reason"]) == ("Failed", "NodeAffinity")
    assert (
        status["message"]
        == "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
    )


async def test_deleting_a_pod_kills_its_container_and_frees_its_ip(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()
    ip = (await pod("myapp-1"))["status"]["podIP"]

    await kubectl().delete("pods", "myapp-1", "default")
    await sim.engine.until_settled()

    assert await kubectl().get_or_none("pods", "myapp-1", "default") is None
    killing = [e for e in await events_of("myapp-1") if e["reason"] == "Killing"]
    assert [e["message"] for e in killing] == ["Stopping container myapp"]
    runtime = sim.components["kubelets"].runtimes["node01"]
    assert ip not in runtime.ipam.by_uid.values() and not runtime.sandboxes
    stops = [m for m in sim.engine.trace if m.to == "runtime/node01" and m.verb == "stop"]
    assert len(stops) == 2  # the container, then the sandbox


async def test_the_kubelets_status_writes_are_steps_12_and_13(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()

    mine = [m for m in sim.engine.trace if m.name == "myapp-1"]
    writes = [(m.sender, m.to, m.step) for m in mine]
    assert ("kubelet/node01", "apiserver", 12) in writes
    assert ("apiserver", "etcd", 13) in writes
    assert ("etcd", "apiserver", 13) in writes
    assert ("apiserver", "kubelet/node01", 12) in writes  # the watch delivery
    runtime_calls = [(m.verb, m.step) for m in mine if m.to == "runtime/node01"]
    assert runtime_calls == [("create", 12), ("pull", 12), ("create", 12), ("start", 12)]
    steps = [m.step for m in mine if m.step is not None]
    assert steps.index(12) > steps.index(3) and steps[-1] in (12, 13)


async def test_a_force_deleted_pods_container_is_stopped_too(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()

    await kubectl().delete("pods", "myapp-1", "default", {"gracePeriodSeconds": 0})
    await sim.engine.until_settled()

    assert [e["message"] for e in await events_of("myapp-1") if e["reason"] == "Killing"] == [
        "Stopping container myapp"
    ]
    assert not sim.components["kubelets"].runtimes["node01"].sandboxes


async def test_running_pods_survive_a_restart_of_the_simulation(sim):
    await kubectl().create(pinned_pod("myapp-1"))
    await sim.engine.until_settled()
    before = await pod("myapp-1")

    await registry.stop("demo")
    again = await registry.start("demo", mode="fast-forward")
    await again.engine.until_settled()
    await kubectl().create(pinned_pod("myapp-2"))
    await again.engine.until_settled()

    after = await pod("myapp-1")
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]  # nothing to re-report
    second = await pod("myapp-2")
    assert second["status"]["phase"] == "Running"
    assert second["status"]["podIP"] != before["status"]["podIP"]
    assert [e["reason"] for e in await events_of("myapp-2")][0] == "Pulled"  # the image is still on node01
