"""kubectl auth can-i for a teacher, a student and an anonymous caller, through the real server's HTTPS
endpoint with their tokens; what the classroom refuses, a RoleBinding the teacher makes can grant."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.formclient import Browser
from tests.livesim import LiveServer

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of this module's own, with the HTTPS endpoint (kubectl sends tokens only over TLS)."""
    server = LiveServer(tmp_path_factory.mktemp("rbac-access"), {"CLUSTERVIZ_DEFAULT_MODE": "fast-forward"}, tls=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def classroom(live: LiveServer) -> dict[str, str]:
    """Class "rbac101": the demo's and Ann's sandbox's names, the teacher's and Ann's kubeconfigs."""
    assert live.manage("createteacher", "tara", "--password", "teach-pass-2").returncode == 0
    teacher = Browser(live.url)
    teacher.submit("/accounts/login/?next=/classes/", {"username": "tara", "password": "teach-pass-2"})
    _, page = teacher.submit("/classes/", {"title": "RBAC 101", "slug": "rbac101", "preset": "creation-flow"})
    demo = re.search(r'href="/c/(rbac101-[0-9a-f]{6})/"', page)
    assert demo, page[:2000]
    ann = Browser(live.url)
    anns = ann.submit("/join/rbac101/", {"name": "Ann"})[0].rstrip("/").rsplit("/", 1)[1]
    return {"demo": demo[1], "anns": anns, "teacher": teacher.get("/classes/rbac101/kubeconfig")[1],
            "ann": ann.get("/classes/rbac101/kubeconfig")[1]}


def runner(kubeconfig: str, kubectl_binary: str, live: LiveServer, home: Path) -> Run:
    config = home / f"kubeconfig-{abs(hash(kubeconfig))}"
    config.write_text(kubeconfig)

    def kubectl(*args: str, server: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kubectl_binary, "--kubeconfig", str(config), "--server", f"https://127.0.0.1:{live.tls_port}/c/{server}",
             *args],
            capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(home)}, check=False,
        )

    return kubectl


@pytest.fixture
def teacher(classroom: dict[str, str], kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Run:
    return runner(classroom["teacher"], kubectl_binary, live, tmp_path)


@pytest.fixture
def ann(classroom: dict[str, str], kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Run:
    return runner(classroom["ann"], kubectl_binary, live, tmp_path)


def answer(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout.strip()


def rules(listed: str) -> list[list[str]]:
    """``kubectl auth can-i --list``'s rows, each split into its four columns."""
    lines = listed.splitlines()
    header = lines[0]
    starts = [header.index(title) for title in ("Resources", "Non-Resource URLs", "Resource Names", "Verbs")]
    return [[line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)] for line in lines[1:]]


def test_a_teacher_may_do_anything_anywhere(teacher: Run, classroom: dict[str, str]):
    whoami = teacher("auth", "whoami", server=classroom["demo"])
    assert re.search(r"Groups\s+\[clusterviz:teachers system:authenticated\]", whoami.stdout), whoami.stderr
    for cluster in (classroom["demo"], classroom["anns"]):
        assert answer(teacher("auth", "can-i", "delete", "pods", server=cluster)) == "yes"
        assert answer(teacher("auth", "can-i", "*", "*", server=cluster)) == "yes"
    listed = rules(teacher("auth", "can-i", "--list", server=classroom["demo"]).stdout)
    assert ["*.*", "[]", "[]", "[*]"] in listed and ["", "[*]", "[]", "[*]"] in listed
    # The bootstrap binding that says so, readable with kubectl.
    binding = teacher("get", "clusterrolebinding", "clusterviz:teachers", "-o", "wide", server=classroom["demo"])
    assert re.search(r"clusterviz:teachers\s+ClusterRole/cluster-admin\s+\S+\s+clusterviz:teachers", binding.stdout)


def test_a_student_may_write_her_sandbox_and_read_the_demo(ann: Run, classroom: dict[str, str]):
    assert answer(ann("auth", "can-i", "create", "deployments", server=classroom["anns"])) == "yes"
    assert answer(ann("auth", "can-i", "list", "pods", server=classroom["demo"])) == "yes"
    refused = ann("auth", "can-i", "delete", "pods", server=classroom["demo"])
    assert (refused.returncode, answer(refused)) == (1, "no")
    listed = rules(ann("auth", "can-i", "--list", server=classroom["demo"]).stdout)
    assert ["*.*", "[]", "[]", "[get list watch]"] in listed
    assert ["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"] in listed
    assert ["", "[/api/*]", "[]", "[get]"] in listed
    # Her sandbox's binding names her.
    owner = ann("get", "clusterrolebinding", "clusterviz:sandbox-owner", "-o", "wide", server=classroom["anns"])
    assert re.search(r"ClusterRole/cluster-admin\s+\S+\s+student:Ann\s*$", owner.stdout.splitlines()[1]), owner.stderr


def test_an_anonymous_caller_may_only_ask(kubectl_binary: str, live: LiveServer, classroom: dict[str, str],
                                         tmp_path: Path):
    anonymous = Kubectl(kubectl_binary, live.cluster_url(classroom["anns"]), tmp_path)
    assert answer(anonymous("auth", "can-i", "get", "pods")) == "no"
    listed = rules(anonymous("auth", "can-i", "--list").stdout)
    assert all("*" not in row[3] for row in listed)
    assert ["selfsubjectreviews.authentication.k8s.io", "[]", "[]", "[create]"] in listed


def test_a_rolebinding_grants_a_student_what_the_classroom_does_not(teacher: Run, ann: Run, classroom: dict[str, str]):
    demo = classroom["demo"]
    # The preset left the demo in step mode, where a write waits for the steps: run it instead.
    patched = teacher("patch", "simulations", "default", "--type", "merge", "-p", '{"spec":{"mode":"fast-forward"}}',
                      server=demo)
    assert patched.returncode == 0, patched.stderr
    refused = ann("create", "configmap", "notes", "--from-literal=a=1", server=demo)
    assert 'User "student:Ann" cannot create resource "configmaps"' in refused.stderr
    granted = teacher("create", "rolebinding", "ann-edits", "--clusterrole=edit", "--user=student:Ann", server=demo)
    assert granted.returncode == 0, granted.stderr

    assert answer(ann("auth", "can-i", "create", "configmaps", server=demo)) == "yes"
    assert answer(ann("auth", "can-i", "create", "configmaps", "-n", "kube-system", server=demo)) == "no"
    assert answer(ann("auth", "can-i", "delete", "nodes", server=demo)) == "no"
    created = ann("create", "configmap", "notes", "--from-literal=a=1", server=demo)
    assert created.stdout.strip() == "configmap/notes created", created.stderr
    elsewhere = ann("create", "configmap", "notes", "-n", "kube-system", "--from-literal=a=1", server=demo)
    assert 'cannot create resource "configmaps" in API group "" in the namespace "kube-system"' in elsewhere.stderr

    assert teacher("delete", "rolebinding", "ann-edits", server=demo).returncode == 0
    again = ann("delete", "configmap", "notes", server=demo)
    assert 'User "student:Ann" cannot delete resource "configmaps"' in again.stderr


def test_the_demos_readers_binding_names_each_student_who_joined(teacher: Run, classroom: dict[str, str]):
    listed = teacher("get", "clusterrolebinding", "clusterviz:class-readers", "-o", "wide", server=classroom["demo"])
    row = listed.stdout.splitlines()[1]
    assert re.search(r"^clusterviz:class-readers\s+ClusterRole/clusterviz:reader\s+\S+\s+student:Ann\s*$", row), listed
    reader = teacher("get", "clusterrole", "clusterviz:reader", "-o", "jsonpath={.rules}", server=classroom["demo"])
    assert reader.stdout == '[{"apiGroups":["*"],"resources":["*"],"verbs":["get","list","watch"]}]'


def test_a_student_given_admin_cannot_grant_more_than_she_holds(teacher: Run, ann: Run, classroom: dict[str, str]):
    demo = classroom["demo"]
    teacher("patch", "simulations", "default", "--type", "merge", "-p", '{"spec":{"mode":"fast-forward"}}', server=demo)
    granted = teacher("create", "rolebinding", "ann-admin", "--clusterrole=admin", "--user=student:Ann", server=demo)
    assert granted.returncode == 0, granted.stderr
    # What admin holds she may pass on: a Role of her own, view for a classmate.
    role = ann("create", "role", "cm-reader", "--verb=get", "--resource=configmaps", server=demo)
    assert role.stdout.strip() == "role.rbac.authorization.k8s.io/cm-reader created", role.stderr
    shared = ann("create", "rolebinding", "bob-views", "--clusterrole=view", "--user=student:Bob", server=demo)
    assert shared.returncode == 0, shared.stderr
    # Not cluster-admin, nor a Role with rights admin lacks.
    escalated = ann("create", "rolebinding", "ann-root", "--clusterrole=cluster-admin", "--user=student:Ann", server=demo)
    assert escalated.stderr.strip() == (
        'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "ann-root" is forbidden: '
        'user "student:Ann" (groups=["clusterviz:students" "system:authenticated"]) is attempting to grant RBAC '
        'permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n'
        '{NonResourceURLs:["*"], Verbs:["*"]}'
    )
    nodes = ann("create", "role", "node-taint", "--verb=get,patch", "--resource=nodes", server=demo)
    assert 'is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], ' \
           'Verbs:["patch"]}' in nodes.stderr
    # The teacher holds everything: the same binding is hers to make.
    assert teacher("create", "rolebinding", "ann-root", "--clusterrole=cluster-admin", "--user=student:Ann",
                   server=demo).returncode == 0
    for name in ("ann-root", "ann-admin", "bob-views"):
        teacher("delete", "rolebinding", name, server=demo)
    teacher("delete", "role", "cm-reader", server=demo)
