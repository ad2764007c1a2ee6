"""The page's kubectl pane prints what the machine's real kubectl prints for the same cluster."""

from __future__ import annotations

import html
import http.cookiejar
import re
import shlex
import time
import urllib.parse
import urllib.request
from pathlib import Path

from tests.conftest import Kubectl
from tests.livesim import ROOT, LiveServer

MYAPP = ROOT / "examples" / "myapp.yaml"

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


def page_action(opener: urllib.request.OpenerDirector, live: LiveServer, cluster: str, path: str,
                data: dict[str, str]) -> tuple[str, list[str]]:
    """POST one of the cluster page's actions as its form does; the pane's command and kubectl's lines."""
    csrf = next(c.value for c in opener.cookie_jar if c.name == "csrftoken")  # type: ignore[attr-defined]
    request = urllib.request.Request(
        f"{live.cluster_url(cluster)}/{path}", data=urllib.parse.urlencode(data).encode(),
        headers={"X-CSRFToken": csrf, "Referer": live.url}, method="POST",
    )
    with opener.open(request) as response:
        body = response.read().decode()
    entry = html.unescape(re.sub(r"<[^>]+>", "", body[body.index('<pre class="terminal entry'):]))
    line, *output = entry.strip().splitlines()
    return line.removeprefix("$ "), output


def test_each_page_action_prints_what_kubectl_prints_for_its_command(kubectl_binary: str, live: LiveServer,
                                                                      tmp_path: Path):
    # Two equal clusters: the page acts on one, the real kubectl runs the pane's command on the other.
    for cluster in ("bypage", "bykubectl"):
        assert live.manage("createcluster", cluster, "--nodes", "2").returncode == 0
    by_kubectl = Kubectl(kubectl_binary, live.cluster_url("bykubectl"), tmp_path)
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.cookie_jar = jar  # type: ignore[attr-defined]
    opener.open(f"{live.cluster_url('bypage')}/").read()
    for cluster in ("bypage", "bykubectl"):
        Kubectl(kubectl_binary, live.cluster_url(cluster), tmp_path)("create", "deployment", "web", "--image=nginx:1.27")
    actions = [
        ("nodes/node02/action", {"action": "label", "value": "disktype=ssd"}),
        ("nodes/node02/action", {"action": "label", "value": "disktype=ssd", "overwrite": "1"}),
        ("nodes/node02/action", {"action": "label", "value": "disktype=hdd"}),
        ("nodes/node02/action", {"action": "unlabel", "value": "disktype"}),
        ("nodes/node02/action", {"action": "unlabel", "value": "disktype"}),
        ("nodes/node02/action", {"action": "taint", "value": "gpu=yes:NoSchedule"}),
        ("nodes/node02/action", {"action": "untaint", "value": "gpu:NoSchedule"}),
        ("nodes/node02/action", {"action": "cordon"}),
        ("nodes/node02/action", {"action": "uncordon"}),
        ("nodes/node02/action", {"action": "stop"}),
        ("nodes/node02/action", {"action": "start"}),
        ("workloads/deployments/default/web", {"action": "scale", "replicas": "2"}),
        ("workloads/deployments/default/web", {"action": "image", "container": "nginx", "image": "nginx:1.28"}),
        ("pods/default/nope/delete", {}),
        ("nodes/node02/action", {"action": "delete"}),
    ]
    manifest = MYAPP.read_text()
    for action in ("apply", "dry-run", "create", "delete", "delete", "create"):
        actions.append(("yaml", {"action": action, "yaml": manifest}))
    for path, data in actions:
        line, shown = page_action(opener, live, "bypage", path, data)
        result = by_kubectl(*shlex.split(line)[1:], stdin=data.get("yaml"))
        printed = result.stdout.splitlines() + result.stderr.splitlines()
        assert sorted(shown) == sorted(printed), f"{line}\npage: {shown}\nkubectl: {printed}"
