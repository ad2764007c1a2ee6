"""The page's kubectl pane prints what the machine's real kubectl prints for the same cluster."""

from __future__ import annotations

import html
import re
import time
import urllib.request
from pathlib import Path

from tests.conftest import Kubectl
from tests.livesim import LiveServer

POD = """apiVersion: v1
kind: Pod
metadata: {name: consoled, labels: {app: consoled}, annotations: {note: shown}}
spec:
  containers:
  - name: web
    image: nginx:1.27
    ports: [{containerPort: 80}]
    env: [{name: MODE, value: lesson}]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes: [{name: scratch, emptyDir: {}}]
"""


def pane(live: LiveServer, path: str) -> str:
    """A console endpoint's terminal text, without its ``$ kubectl ...`` line."""
    with urllib.request.urlopen(f"{live.cluster_url()}/console/{path}") as response:
        text = html.unescape(re.sub(r"<[^>]+>", "", response.read().decode()))
    return text.strip("\n").split("\n", 1)[1]


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout.rstrip("\n")


def running(kubectl: Kubectl, name: str) -> None:
    for _ in range(100):
        if ok(kubectl("get", "pod", name, "-o", "jsonpath={.status.phase}")) == "Running":
            return
        time.sleep(0.1)  # wall-clock: waiting for the server's fast-forward to start the Pod
    raise AssertionError(f"pod {name} never ran")


def test_get_pods_wide_is_printed_as_kubectl_prints_it(kubectl: Kubectl, live: LiveServer, tmp_path: Path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(POD)
    ok(kubectl("apply", "-f", str(manifest)))
    running(kubectl, "consoled")
    for _ in range(5):
        # AGE may tick between two reads: kubectl's answer must equal the pane's before or after it.
        before = pane(live, "pods")
        printed = ok(kubectl("get", "pods", "-o", "wide"))
        after = pane(live, "pods")
        if printed in (before, after):
            break
    assert printed in (before, after), f"kubectl:\n{printed}\npane:\n{after}"
    assert "consoled" in printed


def test_describe_pod_is_printed_as_kubectl_prints_it(kubectl: Kubectl, live: LiveServer, tmp_path: Path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(POD.replace("consoled", "described-here"))
    ok(kubectl("apply", "-f", str(manifest)))
    running(kubectl, "described-here")
    printed = ok(kubectl("describe", "pod", "described-here"))
    shown = pane(live, "describe/pod/default/described-here")
    head, _sep, events = printed.partition("\nEvents:\n")
    shown_head, _sep, shown_events = shown.partition("\nEvents:\n")
    assert head == shown_head
    # kubectl counts event ages on the machine's clock, the pane on the cluster's simulated one: the rest is equal.
    def without_age(block: str) -> list[list[str]]:
        return [(cells[:2] + cells[3:]) for cells in (re.split(r"\s{2,}", line.strip()) for line in block.splitlines())]

    assert without_age(events) == without_age(shown_events)
    assert "Started" in events
