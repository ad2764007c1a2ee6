"""One Pod's story: hops 1-13 of the creation flow, each once and in order, out of the interleaved trace."""

from clusterviz.api.client import Client
from clusterviz.web import story
from tests.sim.test_engine import DEPLOYMENT

CREATION = ["1", "2", "3", "4", "5", "6a–8a", "6", "7", "8", "9", "10", "11", "12", "12a", "13"]


async def _trace(sim, body):
    await sim.engine.until_settled()
    start = sim.engine.last_seq
    await Client("demo", "kubectl").create(body)
    await sim.engine.until_settled()
    return [m.as_dict() for m in sim.engine.trace if m.seq > start]


def _pods(messages):
    return sorted({m["object"]["name"] for m in messages if m["object"]["kind"] == "Pod" and m["step"] == 7})


async def test_a_deployment_pod_is_told_in_fifteen_beats_numbered_1_to_13(sim):
    messages = await _trace(sim, DEPLOYMENT)
    told = story.build(messages, story.Ref("Deployment", "myapp"))
    assert [b.label for b in told.beats] == CREATION
    assert all(b.complete for b in told.beats) and told.progress == 13
    seqs = [s for b in told.beats for s in b.seqs]
    assert seqs == sorted(seqs)
    assert told.pod in _pods(messages) and told.pod.startswith("myapp-")
    # The beats carry the right objects: the sub-round is the ReplicaSet's, 6-13 the followed Pod's.
    assert {m["object"]["kind"] for m in told.beats[5].messages} == {"ReplicaSet"}
    assert [m["step"] for m in told.beats[5].messages] == [6, 7, 8, 4, 5]
    assert {m["object"]["name"] for b in told.beats[6:] for m in b.messages} == {told.pod}
    assert [m["verb"] for m in told.beats[13].messages][-1] == "start"


async def test_any_pod_of_the_deployment_can_be_followed(sim):
    messages = await _trace(sim, DEPLOYMENT)
    for pod in _pods(messages):
        told = story.build(messages, story.Ref("Deployment", "myapp"), pod)
        assert told.pod == pod and [b.label for b in told.beats] == CREATION
        # Picked on its own, the Pod's owners are found from the names in the trace.
        assert story.build(messages, None, pod).root == story.Ref("Deployment", "myapp")


async def test_a_pinned_pod_skips_the_scheduler(sim):
    body = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "template": {
        "metadata": {"labels": {"app": "myapp"}},
        "spec": {**DEPLOYMENT["spec"]["template"]["spec"], "nodeName": "node01"}}}}
    messages = await _trace(sim, body)
    told = story.build(messages, story.Ref("Deployment", "myapp"))
    assert [b.label for b in told.beats] == [label for label in CREATION if label not in ("9", "10", "11")]
    assert told.skipped == (9, 10, 11) and told.progress == 13


async def test_a_bare_pod_goes_from_its_write_to_the_scheduler(sim):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}
    messages = await _trace(sim, pod)
    told = story.build(messages, story.Ref("Pod", "solo"))
    assert [b.label for b in told.beats] == ["1", "2", "3", "9", "10", "11", "12", "12a", "13"]


async def test_a_story_in_progress_has_only_the_beats_delivered_so_far(sim):
    messages = await _trace(sim, DEPLOYMENT)
    told = story.build(messages, story.Ref("Deployment", "myapp"))
    cut = told.beats[9].seqs[-1]
    partial = story.build([m for m in messages if m["seq"] <= cut], story.Ref("Deployment", "myapp"))
    assert [b.label for b in partial.done] == CREATION[:10] and partial.progress == 9
