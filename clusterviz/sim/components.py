"""Every simulated component, registered once so each cluster's engine runs it (one line per component)."""

from clusterviz.kubelet.nodes import NodeManager

from .registry import register_component

register_component("kubelets", NodeManager)
