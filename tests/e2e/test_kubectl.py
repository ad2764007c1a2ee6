"""The machine's real kubectl against our API server, command by command."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import Kubectl

ROOT = Path(__file__).resolve().parents[2]
MYAPP = (ROOT / "examples" / "myapp.yaml").read_text()


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def header(output: str) -> list[str]:
    return re.split(r"\s{2,}", output.splitlines()[0].strip())


def test_apply_creates_then_is_unchanged_then_configured(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: applied", 1))
    assert ok(kubectl("apply", "-f", str(manifest))).strip() == "deployment.apps/applied created"
    assert ok(kubectl("apply", "-f", str(manifest))).strip() == "deployment.apps/applied unchanged"
    manifest.write_text(manifest.read_text().replace("replicas: 3", "replicas: 4"))
    assert ok(kubectl("apply", "-f", str(manifest))).strip() == "deployment.apps/applied configured"
    replicas = ok(kubectl("get", "deploy", "applied", "-o", "jsonpath={.spec.replicas}"))
    assert replicas == "4"
    # Strategic merge kept the container's port while the image changed.
    manifest.write_text(manifest.read_text().replace("soscscs/myapp:v1", "soscscs/myapp:v2"))
    ok(kubectl("apply", "-f", str(manifest)))
    ports = ok(kubectl("get", "deploy", "applied", "-o", "jsonpath={.spec.template.spec.containers[0].ports[0].containerPort}"))
    assert ports == "80"
    assert ok(kubectl("delete", "-f", str(manifest))).strip() == 'deployment.apps "applied" deleted'
    gone = kubectl("get", "deploy", "applied")
    assert gone.returncode == 1
    assert 'deployments.apps "applied" not found' in gone.stderr


def test_get_nodes_prints_the_real_columns(kubectl: Kubectl):
    out = ok(kubectl("get", "nodes"))
    assert header(out) == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [r[0] for r in rows] == ["node01", "node02", "node03"]
    assert all(r[1] == "Ready" and r[2] == "<none>" for r in rows)
    wide = ok(kubectl("get", "nodes", "-o", "wide"))
    assert header(wide)[:7] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP"]


def test_get_pods_wide_prints_the_seed_columns(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: widepod\n  labels: {app: wide}\n"
        "spec:\n  nodeName: node01\n  containers:\n  - name: c\n    image: soscscs/myapp:v1\n"
    )
    ok(kubectl("apply", "-f", str(manifest)))
    out = ok(kubectl("get", "pods", "-o", "wide", "-l", "app=wide"))
    assert header(out) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    row = out.splitlines()[1].split()
    assert row[0] == "widepod" and row[1] in ("0/1", "1/1") and row[6] == "node01"
    ok(kubectl("delete", "pod", "widepod"))


def test_get_several_kinds_prefixes_names(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: kinds", 1))
    ok(kubectl("apply", "-f", str(manifest)))
    out = ok(kubectl("get", "deploy,rs,svc"))
    assert "deployment.apps/kinds" in out
    assert "service/kubernetes" in out
    assert "READY" in out and "UP-TO-DATE" in out and "AVAILABLE" in out
    assert "CLUSTER-IP" in out and "PORT(S)" in out and "443/TCP" in out
    ok(kubectl("delete", "-f", str(manifest)))


def test_label_node_add_overwrite_and_remove(kubectl: Kubectl):
    assert ok(kubectl("label", "node", "node01", "disktype=ssd")).strip() == "node/node01 labeled"
    refused = kubectl("label", "node", "node01", "disktype=hdd")
    assert refused.returncode != 0 and "already has a value (ssd)" in refused.stderr
    ok(kubectl("label", "node", "node01", "disktype=hdd", "--overwrite"))
    assert ok(kubectl("get", "node", "node01", "-o", "jsonpath={.metadata.labels.disktype}")) == "hdd"
    shown = ok(kubectl("get", "nodes", "-L", "disktype"))
    assert "DISKTYPE" in shown and "hdd" in shown
    assert ok(kubectl("label", "node", "node01", "disktype-")).strip() == "node/node01 unlabeled"
    assert ok(kubectl("get", "node", "node01", "-o", "jsonpath={.metadata.labels.disktype}")) == ""


def test_scale_deployment(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: scaled", 1))
    ok(kubectl("apply", "-f", str(manifest)))
    assert ok(kubectl("scale", "deployment", "scaled", "--replicas=5")).strip() == "deployment.apps/scaled scaled"
    assert ok(kubectl("get", "deploy", "scaled", "-o", "jsonpath={.spec.replicas}")) == "5"
    ok(kubectl("delete", "deploy", "scaled"))


def test_describe_pod_and_node(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: described\nspec:\n  containers:\n"
        "  - name: c\n    image: soscscs/myapp:v1\n    ports:\n    - containerPort: 80\n"
    )
    ok(kubectl("apply", "-f", str(manifest)))
    out = ok(kubectl("describe", "pod", "described"))
    assert re.search(r"^Name:\s+described$", out, re.M)
    assert re.search(r"^Namespace:\s+default$", out, re.M)
    assert "soscscs/myapp:v1" in out and "80/TCP" in out
    node = ok(kubectl("describe", "node", "node02"))
    assert re.search(r"^Name:\s+node02$", node, re.M)
    assert "kubernetes.io/hostname=node02" in node
    assert "Allocatable:" in node and "KubeletReady" in node
    ok(kubectl("delete", "pod", "described"))


def test_get_pods_watch_prints_a_line_when_a_pod_appears(kubectl: Kubectl, tmp_path: Path):
    env_home = kubectl.home
    proc = subprocess.Popen(
        [kubectl.binary, f"--server={kubectl.server}", f"--cache-dir={env_home / 'cache'}", "get", "pods", "--watch",
         "-l", "app=watched", "-v=6"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"HOME": str(env_home), "KUBECONFIG": str(env_home / "kubeconfig"), "PATH": "/usr/bin:/bin"},
    )
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "watched-pod" in line:
                seen.set()
                return

    watching = threading.Event()

    def read_errors() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "watch=true" in line and " 200 OK" in line:
                watching.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    threading.Thread(target=read_errors, daemon=True).start()
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: watched-pod\n  labels: {app: watched}\n"
        "spec:\n  containers:\n  - name: c\n    image: nginx:1.27\n"
    )
    try:
        # Create once kubectl's watch is open (its -v=6 log says so): before, its list (on a loaded machine)
        # may already show the Pod past Pending.
        assert watching.wait(timeout=30), "kubectl never opened its watch"
        ok(kubectl("apply", "-f", str(manifest)))
        assert seen.wait(timeout=30), f"no line for the new pod; got {lines!r}"
        assert any(line.split()[:3] == ["watched-pod", "0/1", "Pending"] for line in lines)
    finally:
        proc.kill()
        proc.wait()
        ok(kubectl("delete", "pod", "watched-pod"))


def test_invalid_manifest_prints_the_usual_is_invalid_error(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: broken", 1).replace("replicas: 3", "replicas: -1"))
    result = kubectl("apply", "-f", str(manifest))
    assert result.returncode == 1
    assert 'The Deployment "broken" is invalid' in result.stderr
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in result.stderr
    assert kubectl("get", "deploy", "broken").returncode == 1


def test_apply_server_side(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: ssa", 1))
    assert ok(kubectl("apply", "--server-side", "-f", str(manifest))).strip() == "deployment.apps/ssa serverside-applied"
    manifest.write_text(manifest.read_text().replace("replicas: 3", "replicas: 2"))
    assert ok(kubectl("apply", "--server-side", "-f", str(manifest))).strip() == "deployment.apps/ssa serverside-applied"
    assert ok(kubectl("get", "deploy", "ssa", "-o", "jsonpath={.spec.replicas}")) == "2"
    ok(kubectl("delete", "deploy", "ssa"))


def test_create_deployment_sends_protobuf_and_works(kubectl: Kubectl):
    out = ok(kubectl("create", "deployment", "proto", "--image=nginx:1.27", "--replicas=2", "--port=8080"))
    assert out.strip() == "deployment.apps/proto created"
    assert ok(kubectl("get", "deploy", "proto", "-o", "jsonpath={.spec.template.spec.containers[0].image}")) == "nginx:1.27"
    again = kubectl("create", "deployment", "proto", "--image=nginx:1.27")
    assert again.returncode == 1 and 'deployments.apps "proto" already exists' in again.stderr
    ok(kubectl("delete", "deploy", "proto"))


def test_get_missing_pod_is_not_found(kubectl: Kubectl):
    result = kubectl("get", "pod", "nope")
    assert result.returncode == 1
    assert result.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


@pytest.mark.parametrize("kind", ["namespaces", "events", "endpoints", "replicationcontrollers", "configmaps"])
def test_other_resource_types_list(kubectl: Kubectl, kind: str):
    result = kubectl("get", kind, "-A")
    assert result.returncode == 0, result.stderr


def test_get_follows_continue_tokens_in_chunks(kubectl: Kubectl):
    ok(kubectl("create", "namespace", "paging"))
    for name in ("cm-a", "cm-b", "cm-c", "cm-d", "cm-e"):
        ok(kubectl("create", "configmap", name, "-n", "paging", "--from-literal=k=v"))
    verbose = kubectl("get", "configmaps", "-n", "paging", "--chunk-size=2", "-v=6")
    assert verbose.returncode == 0, verbose.stderr
    names = [line.split()[0] for line in verbose.stdout.splitlines()[1:]]
    assert [n for n in names if n.startswith("cm-")] == ["cm-a", "cm-b", "cm-c", "cm-d", "cm-e"]
    assert verbose.stderr.count("limit=2") == 3 and "continue=" in verbose.stderr


def test_server_side_apply_removes_a_field_taken_out_of_the_manifest(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-owned\n  labels: {keep: 'yes', drop: 'yes'}\n"
                        "data: {a: '1', b: '2'}\n")
    ok(kubectl("apply", "--server-side", "-f", str(manifest)))
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-owned\n  labels: {keep: 'yes'}\n"
                        "data: {a: '1'}\n")
    assert "serverside-applied" in ok(kubectl("apply", "--server-side", "-f", str(manifest)))
    labels = ok(kubectl("get", "configmap", "ssa-owned", "-o", "jsonpath={.metadata.labels}"))
    data = ok(kubectl("get", "configmap", "ssa-owned", "-o", "jsonpath={.data}"))
    assert labels == '{"keep":"yes"}' and data == '{"a":"1"}'


def test_rollout_undo_reuses_the_old_replica_set(kubectl: Kubectl):
    # kubectl create writes the template's metadata.creationTimestamp as null; undo's patch drops it.
    ok(kubectl("create", "deployment", "undone", "--image=nginx:1.25", "--replicas=2"))
    ok(kubectl("set", "image", "deployment/undone", "nginx=nginx:1.26"))
    ok(kubectl("rollout", "status", "deployment/undone", "--timeout=60s"))
    assert ok(kubectl("rollout", "undo", "deployment/undone")).strip() == "deployment.apps/undone rolled back"
    ok(kubectl("rollout", "status", "deployment/undone", "--timeout=60s"))
    names = ok(kubectl("get", "rs", "-l", "app=undone", "-o", "jsonpath={.items[*].metadata.name}")).split()
    assert len(names) == 2
    history = ok(kubectl("rollout", "history", "deployment/undone"))
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["2", "3"]
    image = ok(kubectl("get", "deploy", "undone", "-o", "jsonpath={.spec.template.spec.containers[0].image}"))
    assert image == "nginx:1.25"
    ok(kubectl("delete", "deployment", "undone"))


def test_auth_on_the_open_demo_cluster(kubectl: Kubectl):
    assert ok(kubectl("auth", "can-i", "create", "pods")).strip() == "yes"
    assert ok(kubectl("auth", "can-i", "delete", "nodes")).strip() == "yes"
    who = ok(kubectl("auth", "whoami")).splitlines()
    assert [line.split(None, 1) for line in who] == [
        ["ATTRIBUTE", "VALUE"], ["Username", "system:anonymous"], ["Groups", "[system:unauthenticated]"],
    ]


def test_raw_requests_for_the_version_and_health_reach_the_sites_root(kubectl: Kubectl):
    # kubectl sends --raw paths without the server URL's /c/<cluster> prefix.
    version = json.loads(ok(kubectl("get", "--raw", "/version")))
    assert (version["major"], version["minor"], version["gitVersion"]) == ("1", "32", "v1.32.0")
    for check in ("/healthz", "/livez", "/readyz"):
        assert ok(kubectl("get", "--raw", check)) == "ok"
    assert json.loads(ok(kubectl("version", "-o", "json")))["serverVersion"]["gitVersion"] == "v1.32.0"
