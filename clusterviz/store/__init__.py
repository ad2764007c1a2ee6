"""etcd: the per-cluster object store, revision counter and watch log."""
