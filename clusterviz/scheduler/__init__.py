"""kube-scheduler (v1.35, default profile) as pure Python: framework, plugins, snapshot, cycle, queue.

Nothing in this package touches the database, the network or Django; Pods and
Nodes arrive as Kubernetes JSON dicts. The scheduler loop that feeds it from
list-watch and writes bindings lives elsewhere.
"""
