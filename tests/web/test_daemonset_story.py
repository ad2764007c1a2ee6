"""A daemon Pod's story for the presenter: hops 1-13, the DaemonSet's write and watch, then the Pod's own."""

from clusterviz.web import story
from tests.controllers.test_daemonset import DAEMON_SET
from tests.web.test_story import _pods, _trace

DAEMON_CREATION = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "12a", "13"]


async def test_each_daemon_pod_is_told_from_the_daemon_set_s_write_to_running(sim):
    messages = await _trace(sim, DAEMON_SET)
    pods = _pods(messages)
    assert len(pods) == 3
    for pod in pods:
        told = story.build(messages, story.Ref("DaemonSet", "agent"), pod)
        assert [b.label for b in told.beats] == DAEMON_CREATION
        assert all(b.complete for b in told.beats) and told.progress == 13
        assert {m["object"]["kind"] for b in told.beats[:5] for m in b.messages} == {"DaemonSet"}
        # Picked on its own, the Pod is found to be the DaemonSet's.
        assert story.build(messages, None, pod).root == story.Ref("DaemonSet", "agent")
