"""The presenter's story of the Job and StatefulSet lessons: their first Pod told from the apply to Running, 1-13."""

from __future__ import annotations

import pytest

from clusterviz.lessons import BY_SLUG
from clusterviz.web import story

from .helpers import press, start

# A workload's Pod: the client's write, the controller's watch and its Pod, the scheduler, the kubelet.
CREATION = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "12a", "13"]


@pytest.mark.parametrize(("slug", "first"), [("jobs", "count-"), ("statefulset", "web-0")])
async def test_the_lessons_first_pod_is_told_from_the_apply_to_running(sim, slug: str, first: str):
    lesson = BY_SLUG[slug]
    seq = await start(sim, slug)
    await press(sim, slug, lesson.actions[0])
    messages = [m.as_dict() for m in sim.engine.trace if m.seq > seq]
    told = story.build(messages, story.Ref.parse(lesson.followed))
    assert told.root == story.Ref.parse(lesson.followed) and told.pod.startswith(first)
    assert [b.label for b in told.beats] == CREATION
    assert all(b.complete for b in told.beats) and told.progress == 13
    # The first hops are the workload's own write and watch, then the Pod's.
    kind = lesson.followed.partition("/")[0]
    assert {m["object"]["kind"] for b in told.beats[:5] for m in b.messages} == {kind}
    assert {m["object"]["name"] for b in told.beats[5:] for m in b.messages} == {told.pod}
