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
        time.sleep(0.2)  # real time between polls of another process, not simulated time


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
