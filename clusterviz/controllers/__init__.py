"""kube-controller-manager: the Deployment, ReplicaSet, ReplicationController, node lifecycle,
taint eviction, endpoints and garbage-collector controllers, each a list-watch reconciler."""
