"""Shared test support: Pods pinned to a node, and reading what the kubelets wrote."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client

Obj = dict[str, Any]


def pinned_pod(name: str, node: str = "node01", image: str = "soscscs/myapp:v1", **requests: str) -> Obj:
    """A Pod bound with ``spec.nodeName`` (no scheduler), optionally requesting resources.

    It tolerates an unreachable node for ever, so a lesson's stopped kubelet does not get it evicted.
    """
    container: Obj = {"name": "myapp", "image": image, "ports": [{"containerPort": 80}]}
    if requests:
        container["resources"] = {"requests": dict(requests)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "myapp"}},
        "spec": {
            "nodeName": node,
            "containers": [container],
            "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}],
        },
    }


def kubectl() -> Client:
    """A client that plays kubectl against the demo cluster."""
    return Client("demo", "kubectl")


async def pod(name: str) -> Obj:
    """The Pod ``default/name`` as stored."""
    return await kubectl().get("pods", name, "default")


async def events_of(name: str) -> list[Obj]:
    """The Events about ``default/name``, oldest first."""
    listed = await kubectl().list("events", "default", field_selector=f"involvedObject.name={name}")
    return sorted(listed["items"], key=lambda e: (e.get("firstTimestamp") or "", e["metadata"]["resourceVersion"]))


def condition(obj: Obj, type_: str) -> Obj:
    """One condition of an object's status (empty if it has none of that type)."""
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == type_), {})


async def lease_renewed(node: str) -> str:
    """The renewTime of the node's Lease."""
    lease = await kubectl().get("leases", node, "kube-node-lease")
    return lease["spec"]["renewTime"]


async def set_kubelet(node: str, state: str) -> None:
    """``kubectl annotate node <node> clusterviz.io/kubelet=<state> --overwrite``."""
    await kubectl().patch("nodes", node, {"metadata": {"annotations": {"clusterviz.io/kubelet": state}}})


async def let_time_pass() -> None:
    """A harmless write, so the next settle runs another window of simulated time."""
    await kubectl().patch("namespaces", "default", {"metadata": {"annotations": {"clusterviz.io/tick": "1"}}})
    await kubectl().patch("namespaces", "default", {"metadata": {"annotations": {"clusterviz.io/tick": None}}})
