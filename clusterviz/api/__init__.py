"""kube-apiserver: REST paths and verbs, validation, Status errors, Tables, watch."""
