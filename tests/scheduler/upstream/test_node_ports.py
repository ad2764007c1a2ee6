"""NodePorts cases from upstream ``pkg/scheduler/framework/plugins/nodeports/node_ports_test.go``
(TestNodePorts and TestFits)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_ports import NodePorts
from tests.scheduler.helpers import OK, SKIP, container, filter_status, make_node, make_pod, snap, verdict

CONFLICT = (Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))


def host_ports(*specs: str) -> list[dict]:
    """Container ports from upstream's ``PROTOCOL/hostIP/hostPort`` shorthand."""
    out = []
    for spec in specs:
        protocol, ip, port = spec.split("/")
        out.append({"containerPort": int(port), "hostPort": int(port), "hostIP": ip, "protocol": protocol})
    return out


def pod_with_ports(name: str, *specs: str, node: str | None = None) -> dict:
    return make_pod(name, node=node, containers=[container(ports=host_ports(*specs))])


def init_pod(*, sidecar: bool) -> dict:
    ports = host_ports("TCP/0.0.0.0/8001")
    return make_pod("p", init_containers=[container("init", ports=ports, restart_policy="Always" if sidecar else None)])


def check(pod: dict, *existing: str) -> tuple:
    nodes = [make_node("n")]
    pods = [pod_with_ports("existing", *existing, node="n")] if existing else []
    return verdict(filter_status(NodePorts(), pod, snap(nodes, pods), "n"))


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(make_pod("p"), (), SKIP, id="skip filter"),
        pytest.param(pod_with_ports("p", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/9090",), OK, id="other port"),
        pytest.param(pod_with_ports("p", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/8080",), CONFLICT, id="same udp port"),
        pytest.param(pod_with_ports("p", "TCP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), CONFLICT, id="same tcp port"),
        pytest.param(pod_with_ports("p", "TCP/127.0.0.1/8080"), ("TCP/127.0.0.2/8080",), OK, id="different host ip"),
        pytest.param(pod_with_ports("p", "UDP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), OK, id="different protocol"),
        pytest.param(
            pod_with_ports("p", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
            ("UDP/127.0.0.1/8080",),
            CONFLICT,
            id="second udp port conflict",
        ),
        pytest.param(
            pod_with_ports("p", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
            ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
            CONFLICT,
            id="first tcp port conflict",
        ),
        pytest.param(
            pod_with_ports("p", "TCP/0.0.0.0/8001"),
            ("TCP/127.0.0.1/8001",),
            CONFLICT,
            id="first tcp port conflict due to 0.0.0.0 hostIP",
        ),
        pytest.param(
            pod_with_ports("p", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
            ("TCP/127.0.0.1/8001",),
            CONFLICT,
            id="TCP hostPort conflict due to 0.0.0.0 hostIP",
        ),
        pytest.param(
            pod_with_ports("p", "TCP/127.0.0.1/8001"),
            ("TCP/0.0.0.0/8001",),
            CONFLICT,
            id="second tcp port conflict to 0.0.0.0 hostIP",
        ),
        pytest.param(
            pod_with_ports("p", "UDP/127.0.0.1/8001"), ("TCP/0.0.0.0/8001",), OK, id="second different protocol"
        ),
        pytest.param(
            pod_with_ports("p", "UDP/127.0.0.1/8001"),
            ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
            CONFLICT,
            id="UDP hostPort conflict due to 0.0.0.0 hostIP",
        ),
        # A classic init container has exited before the app starts, so its host port is never held.
        pytest.param(
            init_pod(sidecar=False), ("TCP/0.0.0.0/8001",), SKIP, id="non-sidecar initContainer using hostPort"
        ),
        pytest.param(
            init_pod(sidecar=True),
            ("TCP/0.0.0.0/8001",),
            CONFLICT,
            id="TCP hostPort conflict from sidecar initContainer",
        ),
    ],
)
def test_node_ports(pod, existing, want):
    assert check(pod, *existing) == want


@pytest.mark.parametrize(
    ("wanted", "existing", "fits"),
    [
        pytest.param(("TCP/127.0.0.1/80",), ("TCP/127.0.0.1/9090",), True, id="non-conflicting ports"),
        pytest.param(
            ("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
            ("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"),
            True,
            id="multiple non-conflicting ports",
        ),
        pytest.param(("TCP/127.0.0.1/80",), ("UDP/127.0.0.1/80",), True, id="same ports on different protocols"),
        pytest.param(("TCP/127.0.0.1/80",), ("TCP/127.0.0.1/80",), False, id="conflicting ports"),
        pytest.param(
            ("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
            ("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"),
            False,
            id="multiple ports, some conflicting",
        ),
    ],
)
def test_fits(wanted, existing, fits):
    assert check(pod_with_ports("p", *wanted), *existing) == (OK if fits else CONFLICT)
