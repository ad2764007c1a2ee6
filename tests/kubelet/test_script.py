"""A container ends when its Pod's script says: the kubelet reports it terminated and the Pod's phase follows."""

from clusterviz.kubelet.behaviour import behaviour_of
from clusterviz.kubelet.script import EXIT_AFTER_ANNOTATION, EXIT_CODE_ANNOTATION

from .helpers import condition, events_of, kubectl, pinned_pod, pod


def scripted_pod(name: str, restart_policy: str, exit_after: str = "10s", exit_code: str = "0") -> dict:
    body = pinned_pod(name)
    body["metadata"]["annotations"] = {EXIT_AFTER_ANNOTATION: exit_after, EXIT_CODE_ANNOTATION: exit_code}
    body["spec"]["restartPolicy"] = restart_policy
    return body


def _exit(body: dict) -> tuple[float | None, int]:
    behaviour = behaviour_of(body, body["spec"]["containers"][0])
    return behaviour.exit_after, behaviour.exit_code


def test_the_script_is_read_from_the_annotations():
    assert _exit(scripted_pod("a", "Never", "1m30s", "3")) == (90.0, 3)
    assert _exit(scripted_pod("a", "Always", "soon", "x")) == (None, 0)  # a server, told nothing readable
    assert _exit(pinned_pod("a")) == (None, 0)
    # A Pod meant to end that does not say when runs a short command.
    assert _exit(scripted_pod("a", "Never", "soon")) == (5.0, 0)


async def test_a_container_that_exits_0_completes_the_pod(sim):
    await kubectl().create(scripted_pod("done", "Never"))
    await sim.engine.until_settled()

    finished = await pod("done")
    status = finished["status"]
    assert status["phase"] == "Succeeded"
    (container,) = status["containerStatuses"]
    terminated = container["state"]["terminated"]
    assert terminated["exitCode"] == 0 and terminated["reason"] == "Completed"
    assert terminated["containerID"] == container["containerID"]
    assert terminated["startedAt"] <= terminated["finishedAt"]
    assert container["ready"] is False and container["started"] is False
    for type_ in ("Ready", "ContainersReady"):
        assert condition(finished, type_)["status"] == "False"
        assert condition(finished, type_)["reason"] == "PodCompleted"
    assert condition(finished, "PodReadyToStartContainers")["status"] == "False"
    assert status["podIP"]  # a finished Pod keeps the IP it had
    # No "Killing": nothing was stopped, the process ended by itself.
    assert [e["reason"] for e in await events_of("done")] == ["Pulling", "Pulled", "Created", "Started"]
    # The exit is the runtime's news to the kubelet, ten simulated seconds after the start.
    exits = [m for m in sim.engine.trace if m.verb == "exit" and m.name == "done"]
    assert len(exits) == 1 and exits[0].sender == "runtime/node01" and exits[0].to == "kubelet/node01"


async def test_a_container_that_exits_non_zero_fails_the_pod_and_prints_error(sim):
    await kubectl().create(scripted_pod("broken", "Never", exit_code="2"))
    await sim.engine.until_settled()

    failed = await pod("broken")
    assert failed["status"]["phase"] == "Failed"
    terminated = failed["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 2 and terminated["reason"] == "Error"
    assert condition(failed, "Ready")["reason"] == "PodFailed"


async def test_a_container_the_policy_restarts_comes_back_after_a_growing_back_off(sim):
    await kubectl().create(scripted_pod("again", "OnFailure", exit_after="2s", exit_code="1"))
    await sim.engine.until_settled()

    looping = await pod("again")
    assert looping["status"]["phase"] == "Running"
    (container,) = looping["status"]["containerStatuses"]
    # Restarted at once the first time, then 10 s, 20 s, 40 s of back-off; the 80 s one is waited out in the
    # background, so the cluster settles while it waits, as a crash-looping Pod waits on a real node.
    assert container["restartCount"] == 4
    assert container["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert container["state"]["waiting"]["message"].startswith("back-off 1m20s restarting failed container=myapp")
    assert container["lastState"]["terminated"]["reason"] == "Error"
    assert container["lastState"]["terminated"]["exitCode"] == 1
    assert condition(looping, "Ready")["reason"] == "ContainersNotReady"
    events = await events_of("again")
    backoffs = [e for e in events if e["reason"] == "BackOff"]
    assert backoffs and backoffs[0]["type"] == "Warning"
    assert backoffs[0]["message"].startswith("Back-off restarting failed container myapp in pod again_default(")
    assert sum(e.get("count", 1) for e in events if e["reason"] == "Started") == 5


async def test_a_finished_pod_frees_its_node(sim):
    await kubectl().create(scripted_pod("short", "Never"))
    await sim.engine.until_settled()
    assert sim.components["kubelets"].runtimes["node01"].sandboxes == {}
    # Its resources are free again: nothing on the node counts against what it can admit.
    assert all(not w.admitted for w in sim.components["kubelets"].kubelets["node01"].workers.values())


async def test_a_deleted_pods_planned_exit_does_not_keep_the_simulation_going(sim):
    body = pinned_pod("sleeper", image="busybox")
    body["spec"]["containers"][0]["args"] = ["sleep", "3600"]
    await kubectl().create(body)
    await sim.engine.until_settled()
    started = sim.engine.now
    await kubectl().delete("pods", "sleeper", "default")
    await sim.engine.until_settled()
    # The stopped container's hour-long sleep is gone with it: the clock did not run on to its end.
    assert sim.engine.now - started < 600
