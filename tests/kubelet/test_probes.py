"""The probe decisions: how a probe is judged from the container's script, and upstream's timing and thresholds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clusterviz.kubelet.probes import (
    LIVENESS,
    PROBE_FAIL_ANNOTATION,
    READINESS,
    STARTUP,
    UNHEALTHY_AFTER_ANNOTATION,
    ContainerProbes,
    Judge,
    Result,
    Timing,
)

from .helpers import condition, events_of, kubectl, pinned_pod, pod, set_kubelet

IP = "10.244.1.5"
DOCS_SCRIPT = "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"


def _pod(annotations: dict[str, str] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": "p", "annotations": annotations or {}}, "spec": {"restartPolicy": "Always"}}


def _busybox(script: str, **probes: Any) -> dict[str, Any]:
    return {"name": "c", "image": "busybox", "args": ["/bin/sh", "-c", script], **probes}


def _exec(*command: str, **timing: int) -> dict[str, Any]:
    return {"exec": {"command": list(command)}, **timing}


def _run(spec: dict[str, Any], pod: dict[str, Any] | None = None, until: float = 120.0) -> list[tuple[float, Any]]:
    """Every round of probes up to ``until`` seconds: (when, what it found)."""
    probes, judge, out = ContainerProbes(spec), Judge(pod or _pod(), spec, IP), []
    while (due := probes.next_due()) is not None and due <= until:
        step = probes.step(judge)
        out.append((due, step))
    return out


def test_the_defaults_are_upstreams():
    assert Timing.of({}) == Timing(initial_delay=0.0, period=10.0, timeout=1.0, success=1, failure=3)
    assert Timing.of({"initialDelaySeconds": 5, "periodSeconds": 2, "failureThreshold": 1}).period == 2.0


def test_the_docs_exec_example_fails_after_thirty_seconds_and_restarts_after_three_failures():
    spec = _busybox(DOCS_SCRIPT, livenessProbe=_exec("cat", "/tmp/healthy", initialDelaySeconds=5, periodSeconds=5))
    judge = Judge(_pod(), spec, IP)
    assert judge(LIVENESS, spec["livenessProbe"], 29.0) == Result(True)
    assert judge(LIVENESS, spec["livenessProbe"], 30.0) == Result(
        False, "cat: can't open '/tmp/healthy': No such file or directory"
    )
    rounds = _run(spec)
    assert [at for at, _ in rounds] == [5, 10, 15, 20, 25, 30, 35, 40]
    failed = [at for at, step in rounds if step.failures]
    assert failed == [30, 35, 40]
    assert [at for at, step in rounds if step.kill] == [40]
    assert rounds[-1][1].kill == LIVENESS


def test_gnu_cat_words_a_missing_file_its_own_way():
    spec = {"name": "c", "image": "nginx", "livenessProbe": _exec("cat", "/tmp/healthy")}
    assert (
        Judge(_pod(), spec, IP)(LIVENESS, spec["livenessProbe"], 0.0).output
        == "cat: /tmp/healthy: No such file or directory"
    )
    assert Judge(_pod(), spec, IP)(LIVENESS, _exec("cat", "/etc/nginx/nginx.conf"), 0.0).ok  # the image's own file


def test_an_http_probe_needs_a_listening_server_and_a_known_path():
    nginx = {"name": "web", "image": "nginx:1.27"}
    judge = Judge(_pod(), nginx, IP)
    assert judge(LIVENESS, {"httpGet": {"path": "/", "port": 80}}, 0.0).ok
    assert judge(LIVENESS, {"httpGet": {"path": "/healthz", "port": 80}}, 0.0).ok
    assert judge(LIVENESS, {"httpGet": {"path": "/missing", "port": 80}}, 0.0) == Result(
        False, "HTTP probe failed with statuscode: 404"
    )
    assert judge(LIVENESS, {"httpGet": {"path": "/", "port": 8080}}, 0.0) == Result(
        False, f'Get "http://{IP}:8080/": dial tcp {IP}:8080: connect: connection refused'
    )
    named = {**nginx, "ports": [{"name": "http", "containerPort": 8080}]}
    assert Judge(_pod(), named, IP)(LIVENESS, {"httpGet": {"path": "/", "port": "http"}}, 0.0).ok


def test_a_tcp_probe_needs_something_listening():
    redis = {"name": "db", "image": "redis"}
    assert Judge(_pod(), redis, IP)(READINESS, {"tcpSocket": {"port": 6379}}, 0.0).ok
    sleeper = _busybox("sleep 3600")
    assert Judge(_pod(), sleeper, IP)(READINESS, {"tcpSocket": {"port": 8080}}, 0.0) == Result(
        False, f"dial tcp {IP}:8080: connect: connection refused"
    )


def test_annotations_make_probes_fail_from_the_start_or_after_a_while():
    nginx = {"name": "web", "image": "nginx"}
    http = {"httpGet": {"path": "/", "port": 80}}
    failing = Judge(_pod({PROBE_FAIL_ANNOTATION: "readiness"}), nginx, IP)
    assert not failing(READINESS, http, 0.0).ok and failing(LIVENESS, http, 0.0).ok
    later = Judge(_pod({UNHEALTHY_AFTER_ANNOTATION: "30s"}), nginx, IP)
    assert later(LIVENESS, http, 29.0).ok
    assert later(LIVENESS, http, 30.0) == Result(False, "HTTP probe failed with statuscode: 500")


def test_readiness_starts_unready_and_flips_after_its_thresholds():
    spec = {
        "name": "web",
        "image": "nginx",
        "readinessProbe": {"httpGet": {"path": "/", "port": 80}, "successThreshold": 2, "periodSeconds": 5},
    }
    probes = ContainerProbes(spec)
    assert not probes.ready
    rounds = _run(spec, until=10)
    assert [(at, step.changed) for at, step in rounds] == [(0, False), (5, True), (10, False)]
    pod = _pod({UNHEALTHY_AFTER_ANNOTATION: "20s"})
    changes = [at for at, step in _run(spec, pod, until=60) if step.changed]
    assert changes == [5, 30]  # ready after two successes; unready after three failures (20, 25, 30)


def test_a_readiness_probe_that_keeps_failing_repeats_its_event_only_now_and_then():
    spec = {"name": "web", "image": "nginx", "readinessProbe": {"httpGet": {"path": "/nope", "port": 80}}}
    rounds = _run(spec, until=700)
    reported = [at for at, step in rounds if step.failures]
    assert reported[:3] == [0, 10, 20]  # readiness starts as Failure, so the first failures already reported
    assert reported[3:] == [320, 620]
    assert not any(step.kill for _, step in rounds)


def test_a_startup_probe_holds_liveness_and_readiness_back_until_it_succeeds():
    spec = _busybox(
        "sleep 20; touch /tmp/started; sleep 3600",
        startupProbe=_exec("cat", "/tmp/started", periodSeconds=5, failureThreshold=10),
        livenessProbe=_exec("cat", "/tmp/started"),
        readinessProbe=_exec("cat", "/tmp/started"),
    )
    probes = ContainerProbes(spec)
    assert not probes.started and not probes.ready
    judge, judged = Judge(_pod(), spec, IP), {}
    while (due := probes.next_due()) is not None and due <= 20:
        judged[due] = probes.step(judge)
        assert probes.started == (due >= 20) and probes.ready == (due >= 20)
    assert [kind for kind, _ in judged[0].failures] == [STARTUP]  # liveness and readiness wait
    assert [kind for step in judged.values() for kind, _ in step.failures] == [STARTUP] * 4  # 0, 5, 10, 15
    assert judged[20].changed  # started, then ready from the readiness probe run at the same moment


def test_a_startup_probe_that_never_succeeds_restarts_after_failure_threshold_periods():
    spec = _busybox(
        "sleep 3600",
        startupProbe=_exec("cat", "/tmp/never", periodSeconds=10, failureThreshold=3),
        livenessProbe=_exec("true"),
    )
    rounds = _run(spec)
    assert [at for at, step in rounds if step.kill] == [20]
    assert rounds[-1][1].kill == STARTUP
    assert all(kind == STARTUP for _, step in rounds for kind, _ in step.failures)


def test_a_coming_change_is_seen_ahead_so_fast_forward_reaches_it():
    spec = _busybox(DOCS_SCRIPT, livenessProbe=_exec("cat", "/tmp/healthy", initialDelaySeconds=5, periodSeconds=5))
    judge = Judge(_pod(), spec, IP)
    probes = ContainerProbes(spec)
    assert probes.change_within(judge)
    healthy = ContainerProbes(
        {"name": "web", "image": "nginx", "livenessProbe": {"httpGet": {"path": "/", "port": 80}}}
    )
    assert not healthy.change_within(Judge(_pod(), {"name": "web", "image": "nginx"}, IP))


def _probed_pod(name: str, **probes: Any) -> dict[str, Any]:
    body = pinned_pod(name)
    body["spec"]["containers"][0].update(probes)
    return body


async def test_a_pod_that_stays_unready_lets_fast_forward_settle(sim):
    start = sim.engine.now
    await kubectl().create(_probed_pod("unready", readinessProbe={"httpGet": {"path": "/nope", "port": 80}}))
    await sim.engine.until_settled()

    stored = await pod("unready")
    assert stored["status"]["phase"] == "Running"
    assert condition(stored, "Ready")["status"] == "False"
    assert condition(stored, "ContainersReady")["reason"] == "ContainersNotReady"
    assert stored["status"]["containerStatuses"][0]["ready"] is False
    assert stored["status"]["containerStatuses"][0]["started"] is True
    # Three failures reported, then quiet for five minutes: the engine stops once the settle window is over.
    assert sim.engine.now - start < 300
    (unhealthy,) = [e for e in await events_of("unready") if e["reason"] == "Unhealthy"]
    assert unhealthy["message"] == "Readiness probe failed: HTTP probe failed with statuscode: 404"
    assert unhealthy["type"] == "Warning" and unhealthy["count"] == 3
    assert unhealthy["involvedObject"]["fieldPath"] == "spec.containers{myapp}"


async def test_fast_forward_reaches_a_liveness_failure_and_the_restart_it_brings(sim):
    probe = {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5, "periodSeconds": 5}
    body = _probed_pod("docs", livenessProbe=probe, image="busybox", args=["/bin/sh", "-c", DOCS_SCRIPT])
    await kubectl().create(body)
    await sim.engine.until_settled()

    status = (await pod("docs"))["status"]["containerStatuses"][0]
    assert status["restartCount"] >= 1
    assert status["lastState"]["terminated"]["exitCode"] == 137
    reasons = [(e["reason"], e["message"]) for e in await events_of("docs")]
    assert ("Killing", "Container myapp failed liveness probe, will be restarted") in reasons
    killed = status["lastState"]["terminated"]
    ran = datetime.fromisoformat(killed["finishedAt"]) - datetime.fromisoformat(killed["startedAt"])
    # Failures at 30, 35 and 40 s: the third one restarts it. The kill's own hops come after the third
    # probe, and both times are written to the second, so a start late in its second reads as 41.
    assert 40 <= ran.total_seconds() <= 41


async def test_a_restarted_kubelet_probes_its_running_containers_again(sim):
    probe = {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 5}
    await kubectl().create(_probed_pod("probed", readinessProbe=probe))
    await sim.engine.until_settled()
    assert condition(await pod("probed"), "Ready")["status"] == "True"

    await set_kubelet("node01", "stopped")
    await sim.engine.until_settled()
    await set_kubelet("node01", "running")
    await sim.engine.until_settled()
    # The new worker probes the adopted container: a readiness failure set now still takes effect.
    await kubectl().patch(
        "pods", "probed", {"metadata": {"annotations": {PROBE_FAIL_ANNOTATION: "readiness"}}}, "default"
    )
    await sim.engine.until_settled()
    stored = await pod("probed")
    assert condition(stored, "Ready")["status"] == "False"
    assert stored["status"]["containerStatuses"][0]["restartCount"] == 0


async def test_a_liveness_failure_under_restart_policy_never_fails_the_pod(sim):
    body = _probed_pod("once", livenessProbe={"tcpSocket": {"port": 8080}, "periodSeconds": 5})
    body["spec"]["restartPolicy"] = "Never"
    await kubectl().create(body)
    await sim.engine.until_settled()

    status = (await pod("once"))["status"]
    assert status["phase"] == "Failed"
    terminated = status["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 137 and terminated["reason"] == "Error"
    messages = [e["message"] for e in await events_of("once") if e["reason"] == "Unhealthy"]
    assert messages == [f"Liveness probe failed: dial tcp {status['podIP']}:8080: connect: connection refused"]
