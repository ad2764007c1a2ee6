"""A class through the real server: students sign up in a browser-like session, then use kubectl with their token.

The server also listens on HTTPS (kubectl sends tokens only over TLS). The
student's downloaded kubeconfig points there and trusts the server's
certificate; it works for their own sandbox, and the same token gets
RBAC-worded Forbidden errors from kubectl for a classmate's sandbox and for
writes to the teacher's demo, which it may only read.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import Kubectl
from tests.formclient import Browser
from tests.livesim import LiveServer


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of this module's own, with the HTTPS endpoint."""
    server = LiveServer(tmp_path_factory.mktemp("classroom"), {"CLUSTERVIZ_DEFAULT_MODE": "fast-forward"}, tls=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def classroom(live: LiveServer) -> dict[str, str]:
    """Class "kube101" with students Ann and Bob; their sandbox names and Ann's kubeconfig text."""
    result = live.manage("createteacher", "tina", "--password", "teach-pass-1")
    assert result.returncode == 0, result.stderr
    teacher = Browser(live.url)
    teacher.submit("/accounts/login/?next=/classes/", {"username": "tina", "password": "teach-pass-1"})
    url, page = teacher.submit("/classes/", {"title": "Kube 101", "slug": "kube101", "preset": "creation-flow"})
    assert url.endswith("/classes/kube101/")
    demo = re.search(r'href="/c/(kube101-[0-9a-f]{6})/"', page)
    assert demo, page[:2000]
    ann, bob = Browser(live.url), Browser(live.url)
    anns = ann.submit("/join/kube101/", {"name": "Ann"})[0].rstrip("/").rsplit("/", 1)[1]
    bobs = bob.submit("/join/kube101/", {"name": "Bob"})[0].rstrip("/").rsplit("/", 1)[1]
    return {"demo": demo[1], "anns": anns, "bobs": bobs, "kubeconfig": ann.get("/classes/kube101/kubeconfig")[1]}


def test_a_students_token_reaches_only_their_sandbox(
    classroom: dict[str, str], kubectl_binary: str, live: LiveServer, tmp_path: Path
) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(classroom["kubeconfig"])
    cluster = yaml.safe_load(classroom["kubeconfig"])["clusters"][0]["cluster"]
    assert cluster["server"] == f"https://127.0.0.1:{live.tls_port}/c/{classroom['anns']}"
    https = f"https://127.0.0.1:{live.tls_port}/c/"

    def kubectl(*args: str, server: str = classroom["anns"]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kubectl_binary, "--kubeconfig", str(config), "--server", https + server, *args],
            capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)}, check=False,
        )  # fmt: skip

    nodes = kubectl("get", "nodes", "-o", "name")
    assert nodes.returncode == 0, nodes.stderr
    assert nodes.stdout.split() == ["node/node01", "node/node02", "node/node03"]
    # The preset left the sandbox in step mode, where a write waits for the steps: run it instead.
    assert (
        kubectl(
            "patch", "simulations", "default", "--type", "merge", "-p", '{"spec":{"mode":"fast-forward"}}'
        ).returncode
        == 0
    )
    assert kubectl("create", "configmap", "mine", "--from-literal=a=1").returncode == 0

    peek = kubectl("get", "pods", server=classroom["bobs"])
    assert peek.returncode != 0
    assert (
        'Error from server (Forbidden): pods is forbidden: User "student:Ann" cannot list resource "pods"'
        in peek.stderr
    )

    assert kubectl("get", "nodes", server=classroom["demo"]).returncode == 0
    write = kubectl("label", "node", "node01", "mine=yes", server=classroom["demo"])
    assert write.returncode != 0 and 'cannot patch resource "nodes"' in write.stderr

    wrong = kubectl("--token", "not-a-token", "get", "nodes")
    assert wrong.returncode != 0 and "Unauthorized" in wrong.stderr


def test_without_a_token_kubectl_gets_nothing_of_a_sandbox(
    classroom: dict[str, str], kubectl_binary: str, live: LiveServer, tmp_path: Path
) -> None:
    anonymous = Kubectl(kubectl_binary, live.cluster_url(classroom["anns"]), tmp_path)
    refused = anonymous("get", "nodes")
    assert refused.returncode != 0 and 'User "system:anonymous" cannot list resource "nodes"' in refused.stderr


def test_kubectl_auth_says_who_the_caller_is_and_what_they_may_do(
    classroom: dict[str, str], kubectl_binary: str, live: LiveServer, tmp_path: Path
) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(classroom["kubeconfig"])
    https = f"https://127.0.0.1:{live.tls_port}/c/"

    def kubectl(*args: str, server: str = classroom["anns"]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kubectl_binary, "--kubeconfig", str(config), "--server", https + server, *args],
            capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)}, check=False,
        )  # fmt: skip

    whoami = kubectl("auth", "whoami")
    assert whoami.returncode == 0, whoami.stderr
    assert [line.split(None, 1) for line in whoami.stdout.splitlines()] == [
        ["ATTRIBUTE", "VALUE"], ["Username", "student:Ann"], ["Groups", "[clusterviz:students system:authenticated]"],
    ]
    # Her sandbox is hers; the class's demo she may only read; a classmate's sandbox not at all.
    assert kubectl("auth", "can-i", "create", "deployments").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "list", "pods", server=classroom["demo"]).stdout.strip() == "yes"
    refused = kubectl("auth", "can-i", "delete", "pods", server=classroom["demo"])
    assert (refused.returncode, refused.stdout.strip()) == (1, "no")
    assert kubectl("auth", "can-i", "get", "pods", server=classroom["bobs"]).stdout.strip() == "no"

    anonymous = Kubectl(kubectl_binary, live.cluster_url(classroom["anns"]), tmp_path)
    assert anonymous("auth", "can-i", "get", "pods").stdout.strip() == "no"
    who = anonymous("auth", "whoami")
    assert "system:anonymous" in who.stdout and "[system:unauthenticated]" in who.stdout
