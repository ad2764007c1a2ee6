"""Scheduling through the API: a Pending Pod's reasons, and labelling a node gets it scheduled."""

from clusterviz.api.client import Client


def ssd_pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeSelector": {"disktype": "ssd"}, "containers": [{"name": "c", "image": "nginx:1.27"}]}}


async def test_a_pod_no_node_fits_stays_pending_until_a_node_is_labelled(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(ssd_pod("wants-ssd"))
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "wants-ssd", "default")
    assert pod["status"]["phase"] == "Pending" and not pod["spec"].get("nodeName")
    decisions = (await kubectl.list("schedulingdecisions", "default", label_selector="clusterviz.io/pod=wants-ssd"))
    record = decisions["items"][0]
    assert record["selected"] is None
    assert record["message"].startswith("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
    assert [n["name"] for n in record["nodes"]] == ["node01", "node02", "node03"]
    for node in record["nodes"]:
        affinity = [f for f in node["filters"] if f["plugin"] == "NodeAffinity"][0]
        assert affinity["status"] == "UnschedulableAndUnresolvable"
        assert affinity["legacyName"]
    events = (await kubectl.list("events", "default", field_selector="involvedObject.name=wants-ssd"))["items"]
    assert [e["reason"] for e in events] == ["FailedScheduling"]

    await kubectl.patch("nodes", "node02", {"metadata": {"labels": {"disktype": "ssd"}}})
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "wants-ssd", "default")
    assert pod["spec"]["nodeName"] == "node02" and pod["status"]["phase"] == "Running"
    latest = max((await kubectl.list("schedulingdecisions", "default",
                                     label_selector="clusterviz.io/pod=wants-ssd"))["items"],
                 key=lambda d: d["attempt"])
    assert latest["selected"] == "node02"
    winner = [n for n in latest["nodes"] if n["name"] == "node02"][0]
    assert winner["feasible"] and all(f["status"] in ("Success", "Skip") for f in winner["filters"])


async def test_the_winner_has_the_highest_total(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "free", "namespace": "default"},
                          "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
    await sim.engine.until_settled()
    record = (await kubectl.list("schedulingdecisions", "default", label_selector="clusterviz.io/pod=free"))["items"][0]
    totals = {n["name"]: n["total"] for n in record["nodes"]}
    assert totals[record["selected"]] == max(totals.values())
    assert set(record["tied"]) >= {record["selected"]}
