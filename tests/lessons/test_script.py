"""The lessons as data: ten in course order, both languages, valid manifests, commands kubectl accepts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clusterviz.api import codec
from clusterviz.api.client import resource_for
from clusterviz.lessons import BY_SLUG, LESSONS, Action
from clusterviz.lessons.script import ACTION_KINDS
from clusterviz.sim.api_group import TIMINGS

ACTIONS = [(lesson.slug, action) for lesson in LESSONS for action in lesson.actions]


def test_the_ten_lessons_come_in_course_order():
    assert [lesson.slug for lesson in LESSONS] == [
        "creation-flow", "node-name", "node-selector", "node-affinity", "pod-affinity", "resources",
        "ports-and-disks", "scale-and-rollout", "node-failure", "service", "daemonset", "crash-loop",
        "jobs", "statefulset", "preemption", "drain", "autoscaling", "storage", "custom-resources",
    ]
    assert list(BY_SLUG) == [lesson.slug for lesson in LESSONS]


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_lesson_opens_with_apply_and_speaks_english_and_chinese(lesson):
    assert lesson.title and lesson.title_zh
    assert lesson.steps[0].action is not None and lesson.steps[0].action.kind == "apply"
    for step in lesson.steps:
        assert step.text and step.text_zh
        assert bool(step.question) == bool(step.question_zh)
        if step.action is not None:
            assert step.action.kind in ACTION_KINDS
            assert step.action.label and step.action.label_zh
    assert any(step.question for step in lesson.steps), "a lesson pauses at least once for the class to guess"


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_every_manifest_holds_known_kinds_and_the_followed_object(lesson):
    docs = codec.parse_yaml(lesson.manifest, multi=True)
    assert docs and all(resource_for(d) for d in docs)
    assert lesson.followed in {f"{d['kind']}/{d['metadata']['name']}" for d in docs}
    assert set(lesson.timings) <= set(TIMINGS)


def test_actions_print_the_kubectl_command_that_does_the_same():
    assert Action("label", "node02", "disktype=ssd").kubectl() == "kubectl label node node02 disktype=ssd"
    assert Action("unlabel", "node02", "disktype").kubectl() == "kubectl label node node02 disktype-"
    assert Action("taint", "node01", "k=v:NoSchedule").kubectl() == "kubectl taint node node01 k=v:NoSchedule"
    assert Action("untaint", "node01", "k:NoSchedule").kubectl() == "kubectl taint node node01 k:NoSchedule-"
    assert Action("cordon", "node03").kubectl() == "kubectl cordon node03"
    assert Action("scale", "rc/mysql", "2").kubectl() == "kubectl scale rc/mysql --replicas=2"
    assert (Action("set-image", "deployment/myapp", "myapp=soscscs/myapp:v2").kubectl()
            == "kubectl set image deployment/myapp myapp=soscscs/myapp:v2")
    assert Action("delete-pod", "pod/disk-holder").kubectl() == "kubectl delete pod/disk-holder"
    assert (Action("stop-kubelet", "node02").kubectl()
            == "kubectl annotate node node02 clusterviz.io/kubelet=stopped --overwrite")
    assert (Action("create-job", "cronjob/tick", "tick-now").kubectl()
            == "kubectl create job tick-now --from=cronjob/tick")
    assert Action("suspend", "cronjob/tick").kubectl() == "kubectl patch cronjob/tick -p '{\"spec\":{\"suspend\":true}}'"


@pytest.mark.parametrize(("slug", "action"), ACTIONS, ids=[f"{s}:{a.kubectl()}" for s, a in ACTIONS])
def test_kubectl_accepts_every_command_of_the_lessons(kubectl_binary, tmp_path: Path, slug, action):
    # kubectl checks its arguments before it contacts the server: a command it accepts goes on to the
    # (unreachable) server, one it refuses stops with a usage error that never names the server.
    if action.kind == "apply":
        (tmp_path / action.target).write_text(action.manifest or BY_SLUG[slug].manifest)
    result = subprocess.run(
        [kubectl_binary, "--server=http://127.0.0.1:9", "--request-timeout=2s", *action.arguments()],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
        env={"HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "none"), "PATH": "/usr/bin:/bin"},
    )
    assert "127.0.0.1:9" in result.stdout + result.stderr, result.stdout + result.stderr
