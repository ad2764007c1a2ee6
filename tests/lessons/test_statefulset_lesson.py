"""The StatefulSet lesson played to the end: ordinals made in order, removed in reverse, identities kept."""

from __future__ import annotations

from typing import Any

from clusterviz.lessons import BY_SLUG

from .helpers import kubectl, pods, press, start

SLUG = "statefulset"


def alive(found: list[dict[str, Any]]) -> list[str]:
    return sorted(p["metadata"]["name"] for p in found if not p["metadata"].get("deletionTimestamp"))


def ready_at(pod: dict[str, Any]) -> str:
    return next(c["lastTransitionTime"] for c in pod["status"]["conditions"] if c["type"] == "Ready")


async def test_the_statefulset_lesson_creates_in_order_deletes_in_reverse_and_keeps_names(sim):
    apply, up, down, delete = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    await press(sim, SLUG, apply)
    found = {p["metadata"]["name"]: p for p in await pods("app=nginx")}
    assert sorted(found) == ["web-0", "web-1", "web-2"]
    # Each ordinal is created only once the one before it is Ready.
    for before, after in (("web-0", "web-1"), ("web-1", "web-2")):
        assert found[after]["metadata"]["creationTimestamp"] >= ready_at(found[before])
    assert {(p["spec"]["hostname"], p["spec"]["subdomain"]) for p in found.values()} == {
        ("web-0", "nginx"), ("web-1", "nginx"), ("web-2", "nginx")}
    endpoints = await kubectl().get("endpoints", "nginx", "default")
    assert sorted(a["hostname"] for s in endpoints["subsets"] for a in s["addresses"]) == ["web-0", "web-1", "web-2"]

    await press(sim, SLUG, up)
    found = {p["metadata"]["name"]: p for p in await pods("app=nginx")}
    assert sorted(found) == ["web-0", "web-1", "web-2", "web-3", "web-4"]
    assert found["web-4"]["metadata"]["creationTimestamp"] >= ready_at(found["web-3"])

    seq = sim.engine.last_seq
    await press(sim, SLUG, down)
    assert alive(await pods("app=nginx")) == ["web-0", "web-1"]
    # The controller's deletions, in the order it asked for them: the highest ordinal first.
    deleted = [m.name for m in sim.engine.trace if m.seq > seq and m.verb == "delete" and m.kind == "Pod"
               and m.sender == "controller-manager" and m.to == "apiserver"]
    assert deleted == ["web-4", "web-3", "web-2"]

    uid = next(p["metadata"]["uid"] for p in await pods("app=nginx") if p["metadata"]["name"] == "web-0")
    await press(sim, SLUG, delete)
    found = {p["metadata"]["name"]: p for p in await pods("app=nginx")}
    assert sorted(found) == ["web-0", "web-1"] and found["web-0"]["metadata"]["uid"] != uid
    assert found["web-0"]["spec"]["hostname"] == "web-0" and found["web-0"]["status"]["phase"] == "Running"
