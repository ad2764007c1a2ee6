"""The crash lesson played to the end: the Pod restarts with a growing back-off and its logs say why; a failing
readiness probe takes a Pod out of its Service without a restart, and a passing one brings it back."""

from __future__ import annotations

from clusterviz.lessons import BY_SLUG

from .helpers import kubectl, pods, press, start

SLUG = "crash-loop"


async def test_the_crash_lesson_shows_the_back_off_and_the_reason_in_the_logs(sim):
    apply, delete, *_readiness = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    await press(sim, SLUG, apply)
    [pod] = await pods("app=crasher")
    [status] = pod["status"]["containerStatuses"]
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["restartCount"] >= 3
    assert status["lastState"]["terminated"]["reason"] == "Error"
    assert status["lastState"]["terminated"]["exitCode"] == 1
    log = await kubectl().request("GET", "/api/v1/namespaces/default/pods/crasher/log")
    assert log.body.decode() == "starting the shop\nerror: config file /etc/shop.conf not found\n"
    events = (await kubectl().list("events", "default", field_selector="involvedObject.name=crasher,reason=BackOff"))
    assert events["items"] and events["items"][0]["message"].startswith("Back-off restarting failed container app")
    await press(sim, SLUG, delete)
    assert await pods("app=crasher") == []


async def _shop_addresses() -> tuple[set[str], set[str]]:
    """The Service shop's ready and not-ready addresses, by Pod name."""
    endpoints = await kubectl().get("endpoints", "shop", "default")
    subsets = endpoints.get("subsets") or []
    ready = {a["targetRef"]["name"] for s in subsets for a in s.get("addresses") or []}
    waiting = {a["targetRef"]["name"] for s in subsets for a in s.get("notReadyAddresses") or []}
    return ready, waiting


async def test_a_failing_readiness_probe_takes_a_pod_out_of_its_service_without_a_restart(sim):
    _apply, _delete, shop, fail, recover = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    await press(sim, SLUG, shop)
    assert await _shop_addresses() == ({"shop-1", "shop-2"}, set())
    await press(sim, SLUG, fail)
    [pod] = [p for p in await pods("app=shop") if p["metadata"]["name"] == "shop-2"]
    [status] = pod["status"]["containerStatuses"]
    assert (status["ready"], status["restartCount"]) == (False, 0)
    assert "running" in status["state"]
    assert await _shop_addresses() == ({"shop-1"}, {"shop-2"})
    unhealthy = await kubectl().list("events", "default", field_selector="involvedObject.name=shop-2,reason=Unhealthy")
    assert unhealthy["items"][0]["message"].startswith("Readiness probe failed: ")
    await press(sim, SLUG, recover)
    assert await _shop_addresses() == ({"shop-1", "shop-2"}, set())
