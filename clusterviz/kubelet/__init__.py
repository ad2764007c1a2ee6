"""The kubelets and their container runtimes: one agent per node, driven by list-watch.

``nodes.NodeManager`` runs one ``kubelet.Kubelet`` per Node object; each
kubelet admits the Pods bound to its node, has ``runtime.ContainerRuntime``
pull images and start containers, reports Pod status, and renews its node's
Lease as its heartbeat.
"""
