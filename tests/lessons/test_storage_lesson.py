"""The storage lesson played to the end: a claim provisioned where its Pod lands, a Pod kept on its volume's node
and in its volume's zone, and a ReadWriteOncePod claim serving one Pod at a time."""

from __future__ import annotations

from typing import Any

from clusterviz.lessons import BY_SLUG
from clusterviz.scheduler.plugins.volume_binding import REASON_NODE_CONFLICT
from clusterviz.scheduler.plugins.volume_restrictions import REASON_READ_WRITE_ONCE_POD_CONFLICT

from .helpers import decisions, failed, kubectl, node_row, pods, press, start

SLUG = "storage"
NODES = ("node01", "node02", "node03", "node04")
ZONES = {"node01": "zone-a", "node02": "zone-a", "node03": "zone-b", "node04": "zone-b"}
SELECTED_NODE = "volume.kubernetes.io/selected-node"


async def claim(name: str) -> dict[str, Any]:
    return await kubectl().get("persistentvolumeclaims", name, "default")


async def reasons(name: str) -> list[tuple[str, str]]:
    found = await kubectl().list("events", "default", field_selector=f"involvedObject.name={name}")
    return [(e["reason"], e["message"]) for e in found["items"]]


def affinity(volume: dict[str, Any]) -> tuple[str, list[str]]:
    [term] = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    [expression] = term["matchExpressions"]
    assert expression["operator"] == "In"
    return expression["key"], expression["values"]


async def volume_of(name: str) -> dict[str, Any]:
    bound = await claim(name)
    assert bound["status"]["phase"] == "Bound"
    volume = await kubectl().get("persistentvolumes", bound["spec"]["volumeName"])
    assert volume["metadata"]["name"] == f"pvc-{bound['metadata']['uid']}"
    assert volume["status"]["phase"] == "Bound" and volume["spec"]["claimRef"]["name"] == name
    return volume


def running(found: list[dict[str, Any]]) -> dict[str, str]:
    """name -> node of the Running Pods."""
    return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in found if p["status"].get("phase") == "Running"}


async def test_the_storage_lesson_binds_claims_where_their_pods_may_run(sim):
    data, db, upgrade, photos, gallery, ledger, delete = BY_SLUG[SLUG].actions
    await start(sim, SLUG)

    # WaitForFirstConsumer: the claim of the default class waits for a Pod.
    await press(sim, SLUG, data)
    pending = await claim("data")
    assert pending["spec"]["storageClassName"] == "standard" and pending["status"]["phase"] == "Pending"
    assert ("WaitForFirstConsumer", "waiting for first consumer to be created before binding") in await reasons("data")
    assert (await kubectl().list("persistentvolumes"))["items"] == []

    # The scheduler picks a node; the claim is provisioned there, and the Pod runs there at its first attempt.
    await press(sim, SLUG, db)
    [first] = await pods("app=db")
    node = first["spec"]["nodeName"]
    assert first["status"]["phase"] == "Running"
    assert (await claim("data"))["metadata"]["annotations"][SELECTED_NODE] == node
    assert affinity(await volume_of("data")) == ("kubernetes.io/hostname", [node])
    said = [reason for reason, _message in await reasons("data")]
    assert said.index("ExternalProvisioning") < said.index("ProvisioningSucceeded")
    assert [r for r, _m in await reasons(first["metadata"]["name"]) if r == "FailedScheduling"] == []
    [record] = await decisions(first["metadata"]["name"])
    assert all("VolumeBinding" not in failed(record, n) for n in NODES)

    # The new Pod of the upgrade can only go back to the volume's node.
    await press(sim, SLUG, upgrade)
    [second] = await pods("app=db")
    assert second["metadata"]["name"] != first["metadata"]["name"]
    assert second["spec"]["containers"][0]["image"] == "postgres:17"
    assert (second["spec"]["nodeName"], second["status"]["phase"]) == (node, "Running")
    [record] = await decisions(second["metadata"]["name"])
    assert {n: failed(record, n) for n in NODES if n != node} == {
        n: {"VolumeBinding": REASON_NODE_CONFLICT} for n in NODES if n != node
    }

    # Immediate: provisioned at once in one zone, and the Pod goes to that zone.
    await press(sim, SLUG, photos)
    key, [zone] = affinity(await volume_of("photos"))
    assert key == "topology.kubernetes.io/zone" and zone in ("zone-a", "zone-b")
    await press(sim, SLUG, gallery)
    placed = running(await pods())["gallery"]
    assert ZONES[placed] == zone
    [record] = await decisions("gallery")
    for other in NODES:
        expected = {} if ZONES[other] == zone else {"VolumeBinding": REASON_NODE_CONFLICT}
        assert failed(record, other) == expected
        # VolumeZone has nothing to check: the volume's zone is in its node affinity, not in its labels.
        assert {f["status"] for f in node_row(record, other)["filters"] if f["plugin"] == "VolumeZone"} == {"Skip"}

    # ReadWriteOncePod: one Pod at a time.
    await press(sim, SLUG, ledger)
    by_name = {p["metadata"]["name"]: p for p in await pods()}
    holder = by_name["ledger-a"]["spec"]["nodeName"]
    assert by_name["ledger-a"]["status"]["phase"] == "Running"
    waiting = by_name["ledger-b"]
    assert waiting["status"]["phase"] == "Pending" and not waiting["spec"].get("nodeName")
    message = ("0/4 nodes are available: 4 node has pod using PersistentVolumeClaim with the same name and "
               "ReadWriteOncePod access mode. no new claims to deallocate, preemption: 0/4 nodes are available: "
               "4 No preemption victims found for incoming pod.")
    assert ("FailedScheduling", message) in await reasons("ledger-b")
    [condition] = [c for c in waiting["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert (condition["reason"], condition["message"]) == ("Unschedulable", message)
    first_try = (await decisions("ledger-b"))[0]
    assert all(failed(first_try, n)["VolumeRestrictions"] == REASON_READ_WRITE_ONCE_POD_CONFLICT for n in NODES)

    await press(sim, SLUG, delete)
    assert running(await pods()) == {second["metadata"]["name"]: node, "gallery": placed, "ledger-b": holder}
    assert affinity(await volume_of("ledger")) == ("kubernetes.io/hostname", [holder])
