"""A Job's podFailurePolicy, successPolicy and tracking finalizer through the real kubectl, on the demo cluster in fast-forward."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Kubectl
from tests.e2e.test_jobs import cells, eventually, finished, job, ok

FATAL = """apiVersion: batch/v1
kind: Job
metadata: {name: fatal}
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget, status: "True"}]
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: ["sh", "-c", "echo the input is corrupt; exit 42"]
"""

LEADER = """apiVersion: batch/v1
kind: Job
metadata: {name: leader}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 1
  successPolicy:
    rules: [{succeededIndexes: "0"}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: "busybox:1.36", command: ["sleep", "5"]}]
"""


def test_a_fail_job_rule_fails_the_job_at_once_and_kubectl_says_why(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "fatal.yaml").write_text(FATAL)
    assert ok(kubectl("apply", "-f", str(tmp_path / "fatal.yaml"))).strip() == "job.batch/fatal created"
    try:
        eventually(lambda: finished(kubectl, "fatal"), "the Job to fail")
        assert cells(ok(kubectl("get", "job", "fatal")))[1] == "Failed"
        pods = json.loads(ok(kubectl("get", "pods", "-l", "job-name=fatal", "-o", "json")))["items"]
        assert len(pods) == 1  # no retry, although backoffLimit allows six
        pod = pods[0]["metadata"]["name"]
        message = f"Container main for pod default/{pod} failed with exit code 42 matching FailJob rule at index 0"
        failed = next(c for c in job(kubectl, "fatal")["status"]["conditions"] if c["type"] == "Failed")
        assert (failed["reason"], failed["message"]) == ("PodFailurePolicy", message)
        events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=fatal,reason=PodFailurePolicy"))
        assert message in events
    finally:
        ok(kubectl("delete", "job", "fatal"))


def test_a_policy_kubectl_sends_is_checked_by_the_api_server(kubectl: Kubectl, tmp_path: Path):
    bad = FATAL.replace("restartPolicy: Never", "restartPolicy: OnFailure").replace("values: [42]", "values: [42, 0]")
    (tmp_path / "bad.yaml").write_text(bad)
    refused = kubectl("apply", "-f", str(tmp_path / "bad.yaml"))
    assert refused.returncode == 1
    assert 'The Job "fatal" is invalid:' in refused.stderr
    assert "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [42,0]: must be ordered" in refused.stderr
    assert ('spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
            "podFailurePolicy is specified") in refused.stderr


def test_a_success_policy_completes_an_indexed_job_at_its_leader(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "leader.yaml").write_text(LEADER)
    ok(kubectl("apply", "-f", str(tmp_path / "leader.yaml")))
    try:
        eventually(lambda: finished(kubectl, "leader"), "the Job to complete")
        row = cells(ok(kubectl("get", "job", "leader")))
        assert row[:3] == ["leader", "Complete", "1/3"]
        complete = next(c for c in job(kubectl, "leader")["status"]["conditions"] if c["type"] == "Complete")
        assert (complete["reason"], complete["message"]) == ("SuccessPolicy", "Matched rules at index 0")
        assert ok(kubectl("get", "job", "leader", "-o", "jsonpath={.status.completedIndexes}")) == "0"
    finally:
        ok(kubectl("delete", "job", "leader"))


def test_a_jobs_pods_carry_the_tracking_finalizer_until_counted(kubectl: Kubectl, tmp_path: Path):
    # nginx serves until it is stopped: in fast-forward a `sleep` would end (and the Job complete)
    # between two of the test's polls, the replacement's included.
    ok(kubectl("create", "job", "tracked", "--image=nginx:1.27"))
    try:
        def running() -> list[dict]:
            items = json.loads(ok(kubectl("get", "pods", "-l", "job-name=tracked", "-o", "json")))["items"]
            return [p for p in items if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]

        eventually(lambda: len(running()) == 1, "the Job's Pod to run")
        [pod] = running()
        assert pod["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"]
        name = pod["metadata"]["name"]
        assert ok(kubectl("delete", "pod", name)).strip() == f'pod "{name}" deleted'
        # Counted as a failure, released, gone; the Job makes a replacement.
        eventually(lambda: job(kubectl, "tracked")["status"].get("failed") == 1, "the deleted Pod to count as failed")
        eventually(lambda: kubectl("get", "pod", name).returncode == 1, "the deleted Pod to go")

        def replaced() -> bool:
            # One listing per poll: two would be two moments of the cluster.
            pods = [p["metadata"]["name"] for p in running()]
            return len(pods) == 1 and pods[0] != name

        eventually(replaced, "a replacement")
    finally:
        ok(kubectl("delete", "job", "tracked"))
    eventually(lambda: ok(kubectl("get", "pods", "-l", "job-name=tracked", "-o", "name")).strip() == "", "Pods gone")
