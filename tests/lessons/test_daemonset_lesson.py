"""The DaemonSet lesson played to the end: it shows what its script promises."""

from __future__ import annotations

from typing import Any

from clusterviz.lessons import BY_SLUG

from .helpers import decisions, kubectl, pods, press, start

SLUG = "daemonset"


def nodes_of(found: list[dict[str, Any]]) -> list[str]:
    return sorted(p["spec"].get("nodeName", "") for p in found if not p["metadata"].get("deletionTimestamp"))


async def desired() -> int:
    return (await kubectl().get("daemonsets", "agent", "default"))["status"]["desiredNumberScheduled"]


async def test_the_daemonset_lesson_follows_taints_and_rolls_node_by_node(sim):
    apply, taint, untaint, set_image = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    await press(sim, SLUG, apply)
    found = await pods("app=agent")
    assert nodes_of(found) == ["node01", "node02", "node03"]
    for pod in found:
        [record] = await decisions(pod["metadata"]["name"])
        assert record["selected"] == pod["spec"]["nodeName"]
        # Only its own node passes NodeAffinity: the matchFields term names it.
        passing = {
            n["name"]
            for n in record["nodes"]
            for f in n["filters"]
            if f["plugin"] == "NodeAffinity" and f["status"] == "Success"
        }
        assert passing == {pod["spec"]["nodeName"]}
    await press(sim, SLUG, taint)
    assert nodes_of(await pods("app=agent")) == ["node01", "node02"] and await desired() == 2
    await press(sim, SLUG, untaint)
    assert nodes_of(await pods("app=agent")) == ["node01", "node02", "node03"] and await desired() == 3
    await press(sim, SLUG, set_image)
    found = [p for p in await pods("app=agent") if not p["metadata"].get("deletionTimestamp")]
    assert {p["spec"]["containers"][0]["image"] for p in found} == {"soscscs/myapp:v2"}
    assert nodes_of(found) == ["node01", "node02", "node03"]
    revisions = (await kubectl().list("controllerrevisions", "default"))["items"]
    assert sorted(r["revision"] for r in revisions) == [1, 2]
