"""The crash lesson played to the end: the Pod restarts with a growing back-off and its logs say why."""

from __future__ import annotations

from clusterviz.lessons import BY_SLUG

from .helpers import kubectl, pods, press, start

SLUG = "crash-loop"


async def test_the_crash_lesson_shows_the_back_off_and_the_reason_in_the_logs(sim):
    apply, delete = BY_SLUG[SLUG].actions
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
