"""Jobs and CronJobs through the machine's real kubectl, against the demo cluster in fast-forward."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Kubectl


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def header(output: str) -> list[str]:
    return re.split(r"\s{2,}", output.splitlines()[0].strip())


def cells(output: str, row: int = 1) -> list[str]:
    """The cells of a table row, cut at the header's column starts (an empty cell stays empty)."""
    title = output.splitlines()[0]
    starts = [m.start() for m in re.finditer(r"(?:^|(?<=\s\s))\S", title)]
    line = output.splitlines()[row]
    return [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]


def eventually(check: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Poll until ``check`` holds: the server runs in its own process, in fast-forward."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)  # wall-clock: real time between polls of another process (Daphne), not simulated time


def job(kubectl: Kubectl, name: str) -> dict:
    return json.loads(ok(kubectl("get", "job", name, "-o", "json")))


def test_create_job_and_get_it_with_the_upstream_columns(kubectl: Kubectl):
    out = ok(kubectl("create", "job", "hello", "--image=busybox:1.36", "--", "echo", "hi"))
    assert out.strip() == "job.batch/hello created"
    got = ok(kubectl("get", "jobs"))
    assert header(got) == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    wide = ok(kubectl("get", "job", "hello", "-o", "wide"))
    assert header(wide) == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    row = cells(wide)
    assert row[0] == "hello" and row[2].endswith("/1")
    assert row[5] == "hello" and row[6] == "busybox:1.36"
    uid = job(kubectl, "hello")["metadata"]["uid"]
    assert row[7] == f"batch.kubernetes.io/controller-uid={uid}"
    created = job(kubectl, "hello")
    assert created["spec"]["backoffLimit"] == 6 and created["spec"]["completionMode"] == "NonIndexed"
    labels = created["spec"]["template"]["metadata"]["labels"]
    assert labels["job-name"] == "hello" and labels["batch.kubernetes.io/controller-uid"] == uid
    ok(kubectl("delete", "job", "hello"))


def test_create_cronjob_and_get_it_with_the_upstream_columns(kubectl: Kubectl):
    out = ok(kubectl("create", "cronjob", "tick", "--image=busybox:1.36", "--schedule=*/5 * * * *", "--", "date"))
    assert out.strip() == "cronjob.batch/tick created"
    got = ok(kubectl("get", "cronjobs"))
    assert header(got) == ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]
    row = cells(ok(kubectl("get", "cj", "tick", "-o", "wide")))
    assert row[:5] == ["tick", "*/5 * * * *", "<none>", "False", "0"] or row[:4] == ["tick", "*/5 * * * *", "<none>", "False"]
    assert row[7:] == ["tick", "busybox:1.36", "<none>"]
    ok(kubectl("delete", "cronjob", "tick"))


def test_invalid_jobs_and_cronjobs_get_the_api_servers_messages(kubectl: Kubectl, tmp_path: Path):
    bad_schedule = kubectl("create", "cronjob", "bad", "--image=busybox", "--schedule=* * *")
    assert bad_schedule.returncode == 1
    assert 'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]' in bad_schedule.stderr
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: always\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Always\n      containers:\n      - name: c\n        image: busybox\n"
    )
    refused = kubectl("apply", "-f", str(manifest))
    assert refused.returncode == 1
    assert 'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"' in (
        refused.stderr
    )


JOB_YAML = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  completions: {completions}
  parallelism: {parallelism}
  backoffLimit: {backoff}
  template:
    metadata:
      annotations:
        clusterviz.io/exit-after: 5s
        clusterviz.io/exit-code: "{code}"
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
"""


def apply_job(kubectl: Kubectl, tmp_path: Path, name: str, *, completions=1, parallelism=1, backoff=6, code=0) -> None:
    manifest = tmp_path / f"{name}.yaml"
    manifest.write_text(
        JOB_YAML.format(name=name, completions=completions, parallelism=parallelism, backoff=backoff, code=code)
    )
    assert ok(kubectl("apply", "-f", str(manifest))).strip() == f"job.batch/{name} created"


def finished(kubectl: Kubectl, name: str) -> bool:
    conditions = job(kubectl, name)["status"].get("conditions", [])
    return any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions)


def test_a_job_completes_and_kubectl_shows_it(kubectl: Kubectl, tmp_path: Path):
    apply_job(kubectl, tmp_path, "counted", completions=2, parallelism=2)
    eventually(lambda: finished(kubectl, "counted"), "the Job to finish")

    row = cells(ok(kubectl("get", "job", "counted")))
    assert row[:3] == ["counted", "Complete", "2/2"] and row[3].endswith("s")
    done = job(kubectl, "counted")
    assert done["status"]["succeeded"] == 2 and done["status"]["completionTime"]
    pods = ok(kubectl("get", "pods", "-l", "job-name=counted"))
    assert [cells(pods, i)[1:3] for i in (1, 2)] == [["0/1", "Completed"], ["0/1", "Completed"]]
    selected = ok(kubectl("get", "jobs", "--field-selector", "status.successful=2", "-o", "name"))
    assert "job.batch/counted" in selected.split()
    described = ok(kubectl("describe", "job", "counted"))
    assert re.search(r"Pods Statuses:\s+0 Active \(0 Ready\) / 2 Succeeded / 0 Failed", described), described
    assert re.search(r"Normal\s+SuccessfulCreate\s+.*job-controller\s+Created pod: counted-", described)
    assert re.search(r"Normal\s+Completed\s+.*job-controller\s+Job completed", described)
    # Deleting the Job deletes its Pods (the garbage collector follows their ownerReferences).
    assert ok(kubectl("delete", "job", "counted")).strip() == 'job.batch "counted" deleted'
    eventually(lambda: ok(kubectl("get", "pods", "-l", "job-name=counted", "-o", "name")).strip() == "", "Pods gone")


def test_failing_pods_use_up_the_backoff_limit(kubectl: Kubectl, tmp_path: Path):
    apply_job(kubectl, tmp_path, "doomed", backoff=1, code=3)
    eventually(lambda: finished(kubectl, "doomed"), "the Job to fail")

    failed = job(kubectl, "doomed")
    assert failed["status"]["failed"] == 2
    condition = next(c for c in failed["status"]["conditions"] if c["type"] == "Failed")
    assert (condition["reason"], condition["message"]) == (
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
    )
    assert cells(ok(kubectl("get", "job", "doomed")))[1] == "Failed"
    pods = ok(kubectl("get", "pods", "-l", "job-name=doomed"))
    assert cells(pods, 1)[2] == "Error" and cells(pods, 2)[2] == "Error"
    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=doomed"))
    assert "BackoffLimitExceeded" in events and "Job has reached the specified backoff limit" in events
    ok(kubectl("delete", "job", "doomed"))


def test_a_job_is_updated_with_kubectl(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "later.yaml"
    manifest.write_text(
        JOB_YAML.format(name="later", completions=4, parallelism=1, backoff=6, code=0).replace(
            "spec:\n  completions", "spec:\n  suspend: true\n  completions"
        )
    )
    ok(kubectl("apply", "-f", str(manifest)))
    eventually(lambda: cells(ok(kubectl("get", "job", "later")))[1] == "Suspended", "the Job to show Suspended")
    ok(kubectl("patch", "job", "later", "-p", '{"spec":{"suspend":false,"parallelism":2}}'))
    assert job(kubectl, "later")["spec"]["parallelism"] == 2
    eventually(lambda: finished(kubectl, "later"), "the resumed Job to complete")
    resumed = job(kubectl, "later")
    assert resumed["status"]["succeeded"] == 4
    suspended = next(c for c in resumed["status"]["conditions"] if c["type"] == "Suspended")
    assert (suspended["status"], suspended["reason"]) == ("False", "JobResumed")
    immutable = kubectl("patch", "job", "later", "-p", '{"spec":{"completions":5}}')
    assert immutable.returncode == 1 and "spec.completions: Invalid value: 5: field is immutable" in immutable.stderr
    ok(kubectl("delete", "job", "later"))


CRON_YAML = """apiVersion: batch/v1
kind: CronJob
metadata:
  name: minutely
spec:
  schedule: "*/1 * * * *"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        metadata:
          annotations:
            clusterviz.io/exit-after: 5s
        spec:
          restartPolicy: OnFailure
          containers:
          - name: tick
            image: busybox:1.36
"""


def owned_jobs(kubectl: Kubectl, cron_job: str) -> list[dict]:
    items = json.loads(ok(kubectl("get", "jobs", "-o", "json")))["items"]
    return [j for j in items if any(r["name"] == cron_job for r in j["metadata"].get("ownerReferences", []))]


def test_a_cronjob_makes_a_job_every_simulated_minute(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "cron.yaml"
    manifest.write_text(CRON_YAML)
    assert ok(kubectl("apply", "-f", str(manifest))).strip() == "cronjob.batch/minutely created"
    try:
        def pushed_out() -> bool:
            return "SuccessfulDelete" in ok(kubectl("get", "events", "--field-selector", "involvedObject.name=minutely"))

        eventually(pushed_out, "a third Job to push the oldest out of the history")
        ok(kubectl("patch", "cronjob", "minutely", "-p", '{"spec":{"suspend":true}}'))
        row = cells(ok(kubectl("get", "cronjob", "minutely")))
        assert row[:4] == ["minutely", "*/1 * * * *", "<none>", "True"] and row[5] != "<none>"
        eventually(lambda: len([j for j in owned_jobs(kubectl, "minutely") if j["status"].get("succeeded")]) <= 2,
                   "the history limit")
        ok(kubectl("create", "job", "by-hand", "--from=cronjob/minutely"))
        manual = job(kubectl, "by-hand")
        assert manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
        assert manual["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
        eventually(lambda: finished(kubectl, "by-hand"), "the manual Job to complete")
        described = ok(kubectl("describe", "cronjob", "minutely"))
        assert re.search(r"Schedule:\s+\*/1 \* \* \* \*", described) and re.search(r"Suspend:\s+True", described)
        assert re.search(r"Normal\s+SuccessfulCreate\s+.*cronjob-controller\s+Created job minutely-", described)
    finally:
        ok(kubectl("delete", "cronjob", "minutely"))
    eventually(lambda: owned_jobs(kubectl, "minutely") == [], "the CronJob's Jobs to be collected")
