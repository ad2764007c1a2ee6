"""NodePorts: host port conflicts by protocol, port and overlapping IP."""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.nodeinfo import HostPort, HostPortInfo
from clusterviz.scheduler.plugins.node_ports import REASON, NodePorts
from tests.scheduler.helpers import container, filter_status, make_node, make_pod, run, snap


def port(number, protocol=None, ip=None):
    p = {"containerPort": 80, "hostPort": number}
    if protocol:
        p["protocol"] = protocol
    if ip:
        p["hostIP"] = ip
    return p


def with_ports(name, *ports, node=None, sidecar=False, init=False):
    if sidecar or init:
        return make_pod(
            name,
            node=node,
            init_containers=[container("i", ports=list(ports), restart_policy="Always" if sidecar else None)],
        )
    return make_pod(name, node=node, containers=[container(ports=list(ports))])


def check(pod, existing):
    return filter_status(NodePorts(), pod, snap([make_node("n")], [existing]), "n")


def test_same_port_and_protocol_conflicts():
    status = check(with_ports("p", port(8080)), with_ports("e", port(8080), node="n"))
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, (REASON,))
    assert REASON == "node(s) didn't have free ports for the requested pod ports"


def test_different_protocols_do_not_conflict():
    assert check(with_ports("p", port(53, "UDP")), with_ports("e", port(53, "TCP"), node="n")).is_success


def test_all_addresses_conflict_with_a_specific_ip():
    assert not check(with_ports("p", port(80, ip="10.0.0.1")), with_ports("e", port(80), node="n")).is_success
    assert not check(with_ports("p", port(80)), with_ports("e", port(80, ip="10.0.0.1"), node="n")).is_success


def test_two_different_specific_ips_do_not_conflict():
    assert check(
        with_ports("p", port(80, ip="10.0.0.2")), with_ports("e", port(80, ip="10.0.0.1"), node="n")
    ).is_success


def test_pod_without_host_ports_skips():
    assert check(make_pod("p"), with_ports("e", port(80), node="n")).is_skip


def test_sidecar_ports_count_but_classic_init_ports_do_not():
    assert not check(with_ports("p", port(80)), with_ports("e", port(80), node="n", sidecar=True)).is_success
    assert check(with_ports("p", port(80)), with_ports("e", port(80), node="n", init=True)).is_success


def test_host_port_info_releases_ports():
    info = HostPortInfo()
    info.add(HostPort("0.0.0.0", "TCP", 80))
    info.remove(HostPort("0.0.0.0", "TCP", 80))
    assert not info.conflicts(HostPort("0.0.0.0", "TCP", 80))


def test_host_port_conflict_sends_the_pod_to_the_free_node():
    existing = [with_ports("web-1", port(8080), node="node01")]
    record = run(with_ports("web-2", port(8080)), [make_node("node01"), make_node("node02")], existing)
    assert record.selected == "node02"
    assert record.node("node01").feasible is False
