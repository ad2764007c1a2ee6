"""Namespaces through the official kubernetes Python client: create, list by label, watch from a list and delete.

(The other workload kinds have theirs beside their kubectl tests: test_jobs_python_client, test_daemonsets,
test_statefulsets, test_secrets.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client, watch

from tests.livesim import LiveServer


@pytest.fixture
def core(live: LiveServer) -> Iterator[client.CoreV1Api]:
    with client.ApiClient(client.Configuration(host=live.cluster_url("demo"))) as api_client:
        yield client.CoreV1Api(api_client)


def test_a_namespace_is_created_listed_watched_and_deleted(core: client.CoreV1Api) -> None:
    start = core.list_namespace().metadata.resource_version
    created = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-team", labels={"py": "yes"})))
    assert created.status.phase == "Active"
    assert created.metadata.labels == {"py": "yes", "kubernetes.io/metadata.name": "py-team"}
    assert created.spec.finalizers == ["kubernetes"]
    listed = core.list_namespace(label_selector="py=yes")
    assert [n.metadata.name for n in listed.items] == ["py-team"]
    by_name = core.list_namespace(label_selector="kubernetes.io/metadata.name in (py-team,default)")
    assert sorted(n.metadata.name for n in by_name.items) == ["default", "py-team"]
    core.delete_namespace("py-team")
    seen: list[tuple[str, str]] = []
    for event in watch.Watch().stream(core.list_namespace, label_selector="py=yes", resource_version=start,
                                      timeout_seconds=30):
        seen.append((event["type"], event["object"].status.phase))
        if event["type"] == "DELETED":
            break
    assert seen[0] == ("ADDED", "Active")
    assert ("MODIFIED", "Terminating") in seen and seen[-1][0] == "DELETED"
    assert core.list_namespace(label_selector="py=yes").items == []
