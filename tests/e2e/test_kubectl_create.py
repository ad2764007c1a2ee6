"""Every ``kubectl create`` generator of a served kind works, whatever body kubectl sends (JSON or protobuf)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok

CREATES = [
    (("deployment", "gen-deploy", "--image=nginx", "--replicas=2"), "deployment.apps/gen-deploy created"),
    (("service", "clusterip", "gen-svc", "--tcp=80:8080"), "service/gen-svc created"),
    (("configmap", "gen-cm", "--from-literal=colour=blue"), "configmap/gen-cm created"),
    (("secret", "generic", "gen-secret", "--from-literal=password=s3cret"), "secret/gen-secret created"),
    (("serviceaccount", "gen-sa"), "serviceaccount/gen-sa created"),
    (("namespace", "gen-ns"), "namespace/gen-ns created"),
    (("job", "gen-job", "--image=busybox", "--", "echo", "hi"), "job.batch/gen-job created"),
    (("cronjob", "gen-cron", "--image=busybox", "--schedule=*/5 * * * *", "--", "echo", "hi"),
     "cronjob.batch/gen-cron created"),
    (("poddisruptionbudget", "gen-pdb", "--selector=app=gen", "--min-available=50%"),
     "poddisruptionbudget.policy/gen-pdb created"),
    (("priorityclass", "gen-pc", "--value=1000", "--description=for the lesson", "--preemption-policy=Never"),
     "priorityclass.scheduling.k8s.io/gen-pc created"),
]


@pytest.mark.parametrize(("args", "said"), CREATES, ids=[args[0] for args, _said in CREATES])
def test_kubectl_create_makes_each_kind(kubectl: Kubectl, args: tuple[str, ...], said: str):
    try:
        assert ok(kubectl("create", *args)).strip() == said
    finally:
        # Nothing stays behind for the other tests of this server (a CronJob would keep fast-forward busy).
        kubectl("delete", said.split()[0], "--wait=false")


def test_what_kubectl_create_sent_as_protobuf_is_stored_field_for_field(kubectl: Kubectl):
    ok(kubectl("create", "pdb", "gen-pdb-max", "--selector=app=gen", "--max-unavailable=2"))
    spec = json.loads(ok(kubectl("get", "pdb", "gen-pdb-max", "-o", "jsonpath={.spec}")))
    assert spec == {"maxUnavailable": 2, "selector": {"matchLabels": {"app": "gen"}}}
    ok(kubectl("delete", "pdb", "gen-pdb-max"))
    try:
        ok(kubectl("create", "priorityclass", "gen-pc-default", "--value=7", "--global-default=true"))
        pc = json.loads(ok(kubectl("get", "priorityclass", "gen-pc-default", "-o", "json")))
        assert (pc["value"], pc["globalDefault"], pc["preemptionPolicy"]) == (7, True, "PreemptLowerPriority")
    finally:
        # A global default would give every later Pod of this server its priority.
        kubectl("delete", "priorityclass", "gen-pc-default")
