"""clusterviz: a Kubernetes control plane you can watch, for teaching."""
