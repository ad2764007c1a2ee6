"""A cluster's address plan, as kind lays it out: node addresses and the nodes' Pod subnets.

Node IPAM hands each node a /24 of the cluster CIDR. flannel's 10.244.0.0/16 holds 256 of them; the
plan widens it to 10.244.0.0/14 so that a cluster of a thousand nodes still gives every node one. The
first, 10.244.0.0/24, is the control plane's, so the worker nodes count from 1.
"""

from __future__ import annotations

POD_SUBNETS = 1024
# The control-plane host's address; the nodes count up from 192.168.49.10.
API_SERVER_ADDRESS = "192.168.49.2"
FIRST_NODE_HOST = 10


def pod_subnet(index: int) -> str | None:
    """The podCIDR of the ``index``-th node (from 1); None past the cluster CIDR's last /24."""
    if not 1 <= index < POD_SUBNETS:
        return None
    return f"10.{244 + index // 256}.{index % 256}.0/24"


def node_address(index: int) -> str:
    """The InternalIP of the ``index``-th node (from 1): 192.168.49.11 and up, on into 192.168.50.0."""
    host = FIRST_NODE_HOST + index
    return f"192.168.{49 + host // 256}.{host % 256}"
