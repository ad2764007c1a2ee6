"""Small builders for the lessons' YAML and filler Pods, so each lesson states only what differs."""

from __future__ import annotations

from typing import Any

IMAGE = "soscscs/myapp:v1"


def deployment(name: str, replicas: int, pod_spec: str = "", image: str = IMAGE, ports: str = "") -> str:
    """A Deployment like the seeds' ``myapp.yaml``: ``app: <name>`` labels, one container on port 80.

    ``pod_spec`` is YAML indented to the Pod spec's level (six spaces), placed before ``containers``;
    ``ports`` is YAML added under the container's port (ten spaces), e.g. a hostPort.
    """
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
{pod_spec}      containers:
      - name: {name}
        image: {image}
        ports:
        - containerPort: 80
{ports}"""


def filler(name: str, node: str, *, cpu: str = "", memory: str = "", image: str = "busybox:1.36",
           labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    """A Pod pinned to ``node`` (nodeName) that is there before the lesson starts: it loads the node's
    CPU and memory, or holds a port or a disk (``spec`` adds to the container: ``ports``, ``volumeMounts``;
    a ``volumes`` entry goes to the Pod)."""
    volumes = spec.pop("volumes", None)
    container: dict[str, Any] = {"name": "main", "image": image, **spec}
    if image.startswith("busybox"):
        # A shell with nothing to run exits at once (CrashLoopBackOff): a filler stays, as `sleep infinity` does.
        container.setdefault("command", ["sleep", "infinity"])
    if cpu or memory:
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
        container["resources"] = {"requests": requests}
    pod_spec: dict[str, Any] = {"nodeName": node, "containers": [container]}
    if volumes:
        pod_spec["volumes"] = volumes
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {"role": "filler"}},
            "spec": pod_spec}
