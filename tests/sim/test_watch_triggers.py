"""A watch of Pods on one node is offered only the events of Pods on that node, in the usual order."""

import orjson

from clusterviz.sim.engine_gate import _Fanout
from clusterviz.store import kv


class Watching:
    """What ``_Fanout`` reads of a watcher: its trigger (the node it watches Pods on, or None)."""

    def __init__(self, name: str, trigger: str | None) -> None:
        self.name = name
        self.trigger = trigger


def pod_event(revision: int, event_type: str, node: str, previous_node: str | None = None) -> kv.Event:
    def text(on: str) -> str:
        return orjson.dumps({"metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": on}}).decode()

    previous = None if previous_node is None else text(previous_node)
    return kv.Event(revision, event_type, "pods", "default", "web", text(node), previous)


def offered(fanout: _Fanout, event: kv.Event) -> list[str]:
    return [watcher.name for watcher in fanout.offered(event)]


def test_a_pod_event_is_offered_to_its_node_s_watchers_and_to_those_watching_every_node_in_order():
    watchers = [Watching("controller-manager", None), Watching("kubelet/node01", "node01"),
                Watching("kubelet/node02", "node02"), Watching("scheduler", None), Watching("unscheduled", "")]
    fanout = _Fanout("pods", watchers)
    assert offered(fanout, pod_event(1, "ADDED", "")) == ["controller-manager", "scheduler", "unscheduled"]
    assert offered(fanout, pod_event(2, "MODIFIED", "node02", previous_node="")) == [
        "controller-manager", "kubelet/node02", "scheduler", "unscheduled"]
    assert offered(fanout, pod_event(3, "DELETED", "node01")) == ["controller-manager", "kubelet/node01", "scheduler"]


def test_watchers_of_a_resource_without_a_trigger_are_all_offered_every_event():
    watchers = [Watching("a", None), Watching("b", None)]
    event = kv.Event(1, "ADDED", "nodes", "", "node01", "{}")
    assert [w.trigger for w in _Fanout("nodes", watchers).offered(event)] == [None, None]
